// A decoder-only Transformer (GPT, Llama) described by its shape, and what follows from the shape alone: parameter
// counts, FLOPs per iteration (model FLOPs as Megatron-LM counts them; hardware FLOPs with activation recomputation)
// and activation memory per layer (Korthikanti et al. 2022). The large-model parallelism plans (issue 17) build on
// these. Shapes are loaded from workloads/llm/transformer_shapes.json, each entry with its source, or from a user's
// file in the same format (is_transformer_shape_file).
// Formulas (sources and their grades in data/reference/llm-training-results.md, section 6):
//   model FLOPs / iteration (Megatron-LM training.py num_floating_point_operations @ f2e5db40, fwd + bwd, no
//   recompute) = 12 B s L h^2 [ (1 + g/a + s/h) q/h + (f/h) k (3/2 if SwiGLU) + V / (2 L h) ]
//   with B sequences, s tokens each, L layers, h hidden, a heads, g KV heads (query groups), q = h (query
//   projection), f FFN hidden, k experts a token is routed to, V the (padded) vocabulary. For GPT (g = a, f = 4h,
//   k = 1, no SwiGLU) this is Korthikanti eq. (7): 72 B s L h^2 (1 + s/(6h) + V/(12 L h)).
//   Recomputation adds work: selective as Korthikanti eq. (8) publishes it, 72 B L s h^2 (s/(6h)) = 12 B L s^2 h
//   more (that reproduces the paper's Table 5 hardware FLOPs utilization; it is three times the forward FLOPs of
//   the recomputed attention scores, 4 B s^2 h per layer, so it is the published accounting, not a derivation);
//   full (Narayanan et al. SC'21 eq. 3) one more forward pass of every layer, a third of the layers' model FLOPs
//   (the logit layer is not recomputed).
// Units: FLOP (double), bytes (double), parameters (elements, int64).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgsim::models {

struct TransformerShape {
  std::string name;
  std::string source;
  std::int64_t layers = 0;        // L
  std::int64_t hidden = 0;        // h
  std::int64_t heads = 0;         // a
  std::int64_t kv_heads = 0;      // g (query groups; = heads without GQA)
  std::int64_t ffn_hidden = 0;    // f (4h for GPT)
  std::int64_t vocab = 0;         // V (padded as the training code pads it, when the source says so)
  std::int64_t seq = 0;           // s, the training sequence length
  bool swiglu = false;            // gated MLP: three h x f matrices instead of two
  bool biases = true;             // GPT: linear biases and LayerNorm (2 params per element); Llama: RMSNorm, none
  bool learned_positions = true;  // GPT: an s x h position table; Llama: RoPE (no parameters)
  bool tied_embeddings = true;    // GPT: the LM head reuses the token embedding; Llama: a separate V x h head
  std::int64_t experts = 1;       // MoE experts per layer (1 = dense)
  std::int64_t top_k = 1;         // experts a token is routed to
  // The parameter count the source publishes (0 = none) and whether it is a nominal name ("7B") or a count.
  double published_params = 0.0;
  bool published_nominal = false;
};

struct ParameterCount {
  std::int64_t embedding = 0;  // token (+ learned position) table
  std::int64_t per_layer = 0;  // attention + MLP (all experts) + norms
  std::int64_t final_norm = 0;
  std::int64_t lm_head = 0;  // 0 when tied
  std::int64_t total = 0;
};
ParameterCount parameter_count(const TransformerShape& m);

enum class Recompute { None, Selective, Full };
const char* to_string(Recompute r);
Recompute parse_recompute(const std::string& s);  // "none", "selective", "full"; throws UnitError otherwise

// Model FLOPs of one iteration over `sequences` sequences (forward + backward, no recomputation).
double model_flops(const TransformerShape& m, double sequences);
// FLOPs the GPUs execute: model FLOPs plus the recomputed forward work (file comment).
double hardware_flops(const TransformerShape& m, double sequences, Recompute r);

// Activation bytes one layer keeps for the backward pass, per micro-batch of b sequences, on one GPU of a tensor-
// parallel group of t, 16-bit activations and 1-byte dropout masks (Korthikanti et al. 2022 section 4, generalised
// term by term to GQA and FFN widths): per s b h,
//   kept whole on every TP rank without sequence parallelism: 2 LayerNorm inputs (4), attention and MLP inputs (4),
//     two dropout masks (2) = 10;
//   split over t: Q and the attention output-projection input (4), K and V (4 g/a), the MLP's wide tensors (GeLU:
//     input and output, 4 f/h; SwiGLU: gate, up, activation and product, 8 f/h: ASSUMPTION, the tensors PyTorch
//     saves for a SwiGLU MLP), the attention scores, softmax and its mask (5 a s / h);
//   with sequence parallelism everything is split over t. For GPT (g = a, f = 4h) this is eq. (4) s b h (10 + 24/t +
//   5 a s/(h t)) and eq. (5) s b h (34 + 5 a s / h) / t. Selective recomputation drops the 5 a s / h term (eq. 6:
//   34 s b h / t with sequence parallelism); full recomputation keeps only the layer input, 2 s b h (/ t with
//   sequence parallelism). With FlashAttention (`flash_attention`: llm.attention = flash) the scores, softmax and
//   mask are never stored (the kernel recomputes them in its backward), only each row's 4-byte softmax log-sum-exp,
//   4 b a s / t bytes: the 5 a s / h term becomes 4 a / h (FlashAttention-2, Dao 2023, recalled, grade C).
double activation_bytes_per_layer(const TransformerShape& m, double micro_batch, std::int64_t tp,
                                  bool sequence_parallel, Recompute r, bool flash_attention = false);

// The shapes in workloads/llm/transformer_shapes.json (or `file`): every entry validated (InputError naming the file,
// JSON path and value).
std::vector<TransformerShape> load_transformer_shapes(const std::string& file = "");
const TransformerShape& find_transformer_shape(const std::vector<TransformerShape>& shapes, const std::string& name);
std::string default_transformer_shapes_file();

// A user's shape file as a workload: "path.json" (a file in the format of transformer_shapes.json, {"shapes": [...]},
// holding exactly one shape) or "path.json#name" (one of several). True when `workload` names such a file: it ends
// in .json (before any #name), exists, parses, and its top level has "shapes" (a data-parallel model file has not).
bool is_transformer_shape_file(const std::string& workload);
// That shape; InputError naming the file, JSON path and value for an invalid entry, a file of several shapes without
// #name, or a #name the file does not hold.
TransformerShape load_transformer_shape_file(const std::string& workload);

}  // namespace vgsim::models
