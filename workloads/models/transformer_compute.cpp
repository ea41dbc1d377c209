// Transformer layer, embedding/head and optimizer compute times from GEMM and memory-kernel mechanisms (see
// include/vgsim/workloads/models/transformer_compute.hpp for the formulas, byte counts and their sources).
#include "vgsim/workloads/models/transformer_compute.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::models {

namespace {

double peak16(const GpuComputeSpec& g, Precision prec) {
  if (prec == Precision::FP32 || prec == Precision::TF32)
    throw InputError("", "gpu '" + g.name + "'", "the transformer compute model covers 16-bit training",
                     to_string(prec), "fp16, bf16 or amp");
  if (prec == Precision::BF16 && g.peak_bf16_flops > 0.0) return g.peak_bf16_flops;
  return g.peak_fp16_flops;
}

void check_gpu16(const GpuComputeSpec& g, Precision prec) {
  const std::string where = "gpu '" + g.name + "'";
  if (!(peak16(g, prec) > 0.0)) throw InputError("", where, "no 16-bit peak FLOP/s", "0", "a peak > 0");
  if (!(g.memory_bandwidth.bytes_per_s > 0.0))
    throw InputError("", where, "no memory bandwidth", "0", "a bandwidth > 0");
  if (g.sm_count <= 0) throw InputError("", where, "no SM count", std::to_string(g.sm_count), "an integer > 0");
}

// llm.eff_memory: the layer's, embedding's and head's kernels and GEMM rooflines.
double memory_rate(const GpuComputeSpec& g, const TransformerComputeParams& p) {
  return g.memory_bandwidth.bytes_per_s * g.memory_fraction * p.llm_eff_memory;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

double Gemm::flops() const {
  return 2.0 * static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double Gemm::bytes() const {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  return 2.0 * static_cast<double>(batch) * (dm * dk + dk * dn + dm * dn);
}

double gemm_quantization(const Gemm& g, int sms, const TransformerComputeParams& p) {
  const std::int64_t tm = ceil_div(g.m, p.tile_m), tn = ceil_div(g.n, p.tile_n);
  const double tile = static_cast<double>(g.m) * static_cast<double>(g.n) /
                      (static_cast<double>(tm * p.tile_m) * static_cast<double>(tn * p.tile_n));
  const std::int64_t tiles = g.batch * tm * tn;
  const std::int64_t waves = ceil_div(tiles, sms);
  const double wave = static_cast<double>(tiles) / (static_cast<double>(waves) * sms);
  return tile * wave;
}

Time gemm_time(const Gemm& g, const GpuComputeSpec& gpu, Precision prec, const TransformerComputeParams& p,
               GemmPass pass) {
  check_gpu16(gpu, prec);
  const int sms = std::max(1, static_cast<int>(std::lround(gpu.sm_count * gpu.sm_fraction)));
  const double eff = pass == GemmPass::Backward ? p.eff_gemm_backward : p.eff_gemm;
  const double rate = peak16(gpu, prec) * gpu.sm_fraction * eff * gemm_quantization(g, sms, p);
  return Time::from_s(std::max(g.flops() / rate, g.bytes() / memory_rate(gpu, p)));
}

void PassTime::add(KernelTime k) {
  (k.gemm ? gemm : memory) += k.time;
  kernels.push_back(std::move(k));
}

const char* to_string(TpOp op) {
  switch (op) {
    case TpOp::AllReduce:
      return "allreduce";
    case TpOp::AllGather:
      return "allgather";
    case TpOp::ReduceScatter:
      return "reducescatter";
  }
  return "?";
}

namespace {

// The sizes one TP rank works on (file comment of the header).
struct Dims {
  std::int64_t b, s, h, t, heads_rank, head_dim, qkv_width, kv_rank, ffn_rank, tokens, vocab_rank;
  bool sp, swiglu, biases;
  double tokens_sp() const { return static_cast<double>(tokens) / (sp ? static_cast<double>(t) : 1.0); }
  Bytes activation_bytes() const { return tokens * h * 2; }  // b s h x 2 B, the TP collectives' tensor
};

Dims dims_of(const TransformerShape& m, const ParallelPlan& plan) {
  Dims d{};
  d.b = plan.micro_batch, d.s = m.seq, d.h = m.hidden, d.t = plan.tp;
  d.heads_rank = m.heads / plan.tp;
  d.head_dim = m.hidden / m.heads;
  d.qkv_width = (m.hidden + 2 * d.head_dim * m.kv_heads) / plan.tp;  // h (1 + 2 g / a) / t
  d.kv_rank = d.head_dim * m.kv_heads / plan.tp;                     // K (or V) width on one rank
  d.ffn_rank = m.ffn_hidden / plan.tp;
  d.tokens = d.b * d.s;
  d.vocab_rank = ceil_div(m.vocab, plan.tp);
  d.sp = plan.sequence_parallel && plan.tp > 1;
  d.swiglu = m.swiglu, d.biases = m.biases;
  return d;
}

class PassBuilder {
 public:
  PassBuilder(PassTime& out, const GpuComputeSpec& gpu, Precision prec, const TransformerComputeParams& p)
      : out_(out), gpu_(gpu), prec_(prec), p_(p) {}
  Time gemm(const std::string& name, const Gemm& g, GemmPass pass = GemmPass::Forward) {
    const Time t = gemm_time(g, gpu_, prec_, p_, pass);
    out_.add(KernelTime{name, true, g.flops(), g.bytes(), t});
    return t;
  }
  // Both backward GEMMs of forward GEMM `g`; returns {dgrad time, wgrad time}.
  std::pair<Time, Time> backward(const std::string& name, const Gemm& g) {
    const Time dgrad = gemm(name + ".dgrad", Gemm{g.batch, g.m, g.k, g.n}, GemmPass::Backward);
    const Time wgrad = gemm(name + ".wgrad", Gemm{g.batch, g.k, g.n, g.m}, GemmPass::Backward);
    return {dgrad, wgrad};
  }
  // A fused kernel doing `flops` at `eff` of the peak or moving `bytes`, whichever takes longer (FlashAttention).
  void fused(const std::string& name, double flops, double bytes, double eff) {
    const double rate = peak16(gpu_, prec_) * gpu_.sm_fraction * eff;
    out_.add(KernelTime{name, true, flops, bytes, Time::from_s(std::max(flops / rate, bytes / memory_rate(gpu_, p_)))});
  }
  void memory(const std::string& name, double bytes_per_element, double elements) {
    const double bytes = bytes_per_element * elements;
    out_.add(KernelTime{name, false, 0.0, bytes, Time::from_s(bytes / memory_rate(gpu_, p_))});
  }

 private:
  PassTime& out_;
  const GpuComputeSpec& gpu_;
  Precision prec_;
  const TransformerComputeParams& p_;
};

struct LayerGemms {
  Gemm qkv, score, ctx, proj, fc1, fc2;
};
LayerGemms layer_gemms(const Dims& d) {
  LayerGemms g;
  g.qkv = Gemm{1, d.tokens, d.qkv_width, d.h};
  g.score = Gemm{d.b * d.heads_rank, d.s, d.s, d.head_dim};
  g.ctx = Gemm{d.b * d.heads_rank, d.s, d.head_dim, d.s};
  g.proj = Gemm{1, d.tokens, d.h, d.h / d.t};
  g.fc1 = Gemm{1, d.tokens, (d.swiglu ? 2 : 1) * d.ffn_rank, d.h};
  g.fc2 = Gemm{1, d.tokens, d.h, d.ffn_rank};
  return g;
}

double score_elements(const Dims& d) {
  return static_cast<double>(d.b * d.heads_rank) * static_cast<double>(d.s) * static_cast<double>(d.s);
}
double hidden_sp(const Dims& d) { return d.tokens_sp() * static_cast<double>(d.h); }
double hidden_rank(const Dims& d) { return static_cast<double>(d.tokens * d.h / d.t); }
double ffn_elements(const Dims& d) { return static_cast<double>(d.tokens) * static_cast<double>(d.ffn_rank); }

// FlashAttention (header): forward FLOPs, causal, and the layout copies around it.
double flash_flops(const Dims& d) { return 0.5 * 4.0 * score_elements(d) * static_cast<double>(d.head_dim); }
double flash_copy_elements(const Dims& d) {
  return static_cast<double>(d.tokens) * static_cast<double>(2 * d.h / d.t + 2 * d.kv_rank);
}
double flash_lse_bytes(const Dims& d) { return 4.0 * static_cast<double>(d.tokens * d.heads_rank); }

// Scores, softmax, dropout, scores x V and the permute copy: the part selective recomputation re-runs.
void attention_core(PassBuilder& pb, const LayerGemms& g, const Dims& d, const TransformerComputeParams& p) {
  if (p.flash_attention) {
    pb.memory("flash_layout_copies", 4.0, flash_copy_elements(d));
    pb.fused("flash_attn", flash_flops(d), 2.0 * flash_copy_elements(d) + flash_lse_bytes(d), p.eff_flash);
    return;
  }
  const bool dropout = p.dropout;
  pb.gemm("score", g.score);
  pb.memory("softmax", 4.0, score_elements(d));
  if (dropout) pb.memory("attn_dropout", 5.0, score_elements(d));
  pb.gemm("ctx", g.ctx);
  pb.memory("context_permute", 4.0, hidden_rank(d));
}

void forward_pass(PassBuilder& pb, const Dims& d, const TransformerComputeParams& p) {
  const LayerGemms g = layer_gemms(d);
  const bool dropout = p.dropout;
  const double bda = dropout ? 7.0 : 6.0;  // bias+dropout+residual: x, residual in; out (+ 1-byte mask) out
  pb.memory("ln1", 4.0, hidden_sp(d));
  pb.gemm("qkv", g.qkv);
  attention_core(pb, g, d, p);
  pb.gemm("proj", g.proj);
  pb.memory("bias_dropout_add1", bda, hidden_sp(d));
  pb.memory("ln2", 4.0, hidden_sp(d));
  pb.gemm("fc1", g.fc1);
  pb.memory(d.swiglu ? "swiglu" : "bias_gelu", d.swiglu ? 6.0 : 4.0, ffn_elements(d));
  pb.gemm("fc2", g.fc2);
  pb.memory("bias_dropout_add2", bda, hidden_sp(d));
}

// Backward kernels in reverse order; returns the {dgrad, wgrad} times of qkv and fc1 (what their input-gradient
// collectives may overlap).
struct OverlapTimes {
  std::pair<Time, Time> qkv, fc1;
};
// The attention core's backward between proj and qkv.
void attention_core_backward(PassBuilder& pb, const LayerGemms& g, const Dims& d, const TransformerComputeParams& p) {
  if (p.flash_attention) {
    // Reads Q, K, V, O, dO and writes dQ, dK, dV (16-bit) and reads the fp32 log-sum-exp; 2.5x the forward FLOPs.
    const double bytes = 2.0 * static_cast<double>(d.tokens) * static_cast<double>(3 * d.h / d.t + 4 * d.kv_rank);
    pb.fused("flash_attn.bwd", 2.5 * flash_flops(d), bytes + flash_lse_bytes(d), p.eff_flash);
    pb.memory("flash_layout_copies.bwd", 4.0, flash_copy_elements(d));
    return;
  }
  pb.memory("context_permute.bwd", 4.0, hidden_rank(d));
  pb.backward("ctx", g.ctx);
  if (p.dropout) pb.memory("attn_dropout.bwd", 5.0, score_elements(d));
  pb.memory("softmax.bwd", 6.0, score_elements(d));
  pb.backward("score", g.score);
}

OverlapTimes backward_pass(PassBuilder& pb, const Dims& d, const TransformerComputeParams& p) {
  const LayerGemms g = layer_gemms(d);
  const bool dropout = p.dropout;
  const double bda = dropout ? 7.0 : 2.0;  // dropout grad (read dy, mask, write dx) + bias grad; else bias grad
  OverlapTimes o;
  pb.memory("bias_dropout_add2.bwd", bda, hidden_sp(d));
  pb.backward("fc2", g.fc2);
  pb.memory(d.swiglu ? "swiglu.bwd" : "bias_gelu.bwd", d.swiglu ? 10.0 : 8.0, ffn_elements(d));
  o.fc1 = pb.backward("fc1", g.fc1);
  pb.memory("ln2.bwd", 6.0, hidden_sp(d));
  pb.memory("residual_grad_add2", 6.0, hidden_sp(d));
  pb.memory("bias_dropout_add1.bwd", bda, hidden_sp(d));
  pb.backward("proj", g.proj);
  attention_core_backward(pb, g, d, p);
  const double qkv_elements = static_cast<double>(d.tokens) * static_cast<double>(d.qkv_width);
  pb.memory("qkv_grad_concat", 4.0, qkv_elements);
  if (d.biases) pb.memory("qkv_bias_grad", 2.0, qkv_elements);
  o.qkv = pb.backward("qkv", g.qkv);
  pb.memory("ln1.bwd", 6.0, hidden_sp(d));
  pb.memory("residual_grad_add1", 6.0, hidden_sp(d));
  return o;
}

std::vector<TpCollective> forward_collectives(const Dims& d) {
  if (d.t <= 1) return {};
  const Bytes n = d.activation_bytes();
  if (!d.sp) return {{TpOp::AllReduce, "after proj", n, Time{0}}, {TpOp::AllReduce, "after fc2", n, Time{0}}};
  return {{TpOp::AllGather, "before qkv", n, Time{0}},
          {TpOp::ReduceScatter, "after proj", n, Time{0}},
          {TpOp::AllGather, "before fc1", n, Time{0}},
          {TpOp::ReduceScatter, "after fc2", n, Time{0}}};
}

// A column-parallel linear's backward collectives (input gradient; with SP also the input re-gather).
void column_backward(std::vector<TpCollective>& out, const Dims& d, const std::string& name, std::pair<Time, Time> dw) {
  const Bytes n = d.activation_bytes();
  if (!d.sp) {
    out.push_back({TpOp::AllReduce, "beside " + name + ".wgrad", n, dw.second});
    return;
  }
  out.push_back({TpOp::AllGather, "beside " + name + ".dgrad", n, dw.first});
  out.push_back({TpOp::ReduceScatter, "beside " + name + ".wgrad", n, dw.second});
}

std::vector<TpCollective> backward_collectives(const Dims& d, const OverlapTimes& o) {
  std::vector<TpCollective> out;
  if (d.t <= 1) return out;
  const Bytes n = d.activation_bytes();
  if (d.sp) out.push_back({TpOp::AllGather, "before fc2.dgrad", n, Time{0}});
  column_backward(out, d, "fc1", o.fc1);
  if (d.sp) out.push_back({TpOp::AllGather, "before proj.dgrad", n, Time{0}});
  column_backward(out, d, "qkv", o.qkv);
  return out;
}

}  // namespace

LayerComputeTime transformer_layer_time(const TransformerShape& m, const ParallelPlan& plan, const GpuComputeSpec& gpu,
                                        Precision prec, const TransformerComputeParams& p) {
  check_gpu16(gpu, prec);
  const Dims d = dims_of(m, plan);
  LayerComputeTime r;
  PassBuilder fwd(r.forward, gpu, prec, p);
  forward_pass(fwd, d, p);
  r.forward_comm = forward_collectives(d);
  PassBuilder bwd(r.backward, gpu, prec, p);
  const OverlapTimes o = backward_pass(bwd, d, p);
  r.backward_comm = backward_collectives(d, o);
  PassBuilder rec(r.recompute, gpu, prec, p);
  if (plan.recompute == Recompute::Full) {
    forward_pass(rec, d, p);
    r.recompute_comm = forward_collectives(d);
  } else if (plan.recompute == Recompute::Selective) {
    attention_core(rec, layer_gemms(d), d, p);
  }
  return r;
}

namespace {

void embedding_passes(EmbeddingHeadTime& r, const TransformerShape& m, const Dims& d, PassBuilder& fwd,
                      PassBuilder& bwd, bool dropout) {
  const double th = static_cast<double>(d.tokens) * static_cast<double>(d.h);
  fwd.memory("embedding_gather", 4.0, th);  // read the table row, write the output
  fwd.memory("embedding_mask", 4.0, th);    // zero the rows of tokens outside this rank's vocabulary part
  if (m.learned_positions) fwd.memory("position_add", 6.0, th);
  if (dropout) fwd.memory("embedding_dropout", 5.0, hidden_sp(d));
  if (d.t > 1)
    r.embedding_forward_comm.push_back(
        {d.sp ? TpOp::ReduceScatter : TpOp::AllReduce, "after embedding_gather", d.activation_bytes(), Time{0}});
  if (dropout) bwd.memory("embedding_dropout.bwd", 5.0, hidden_sp(d));
  const double table = static_cast<double>(d.vocab_rank) * static_cast<double>(d.h);
  bwd.memory("embedding_grad", 1.0, 2.0 * th + 12.0 * table);
}

void head_passes(EmbeddingHeadTime& r, const Dims& d, PassBuilder& fwd, PassBuilder& bwd) {
  const Gemm logits{1, d.tokens, d.vocab_rank, d.h};
  const double elements = static_cast<double>(d.tokens) * static_cast<double>(d.vocab_rank);
  const Bytes n = d.activation_bytes();
  fwd.memory("final_ln", 4.0, hidden_sp(d));
  if (d.sp) r.head_forward_comm.push_back({TpOp::AllGather, "before logits", n, Time{0}});
  fwd.gemm("logits", logits);
  fwd.memory("cross_entropy", 38.0, elements);
  if (d.t > 1)
    for (const char* what : {"max", "target logit", "sum of exponentials"})
      r.head_forward_comm.push_back({TpOp::AllReduce, std::string("cross_entropy ") + what, d.tokens * 4, Time{0}});
  bwd.memory("cross_entropy.bwd", 22.0, elements);
  const auto dw = bwd.backward("logits", logits);
  if (d.t > 1) column_backward(r.head_backward_comm, d, "logits", dw);
  bwd.memory("final_ln.bwd", 6.0, hidden_sp(d));
}

}  // namespace

EmbeddingHeadTime embedding_head_time(const TransformerShape& m, const ParallelPlan& plan, const GpuComputeSpec& gpu,
                                      Precision prec, const TransformerComputeParams& p) {
  check_gpu16(gpu, prec);
  const Dims d = dims_of(m, plan);
  EmbeddingHeadTime r;
  PassBuilder ef(r.embedding_forward, gpu, prec, p), eb(r.embedding_backward, gpu, prec, p);
  embedding_passes(r, m, d, ef, eb, p.dropout);
  PassBuilder hf(r.head_forward, gpu, prec, p), hb(r.head_backward, gpu, prec, p);
  head_passes(r, d, hf, hb);
  return r;
}

double optimizer_bytes_per_param(int grad_bytes) {
  const double copy_to_main = grad_bytes == 2 ? 2.0 + 4.0 : 0.0;  // 16-bit gradient read, fp32 main written
  const double unscale = 4.0 + 4.0, norm = 4.0;
  const double adam = 4.0 + 2.0 * (4.0 + 4.0 + 4.0);  // gradient; master weight, m, v read and written
  const double copy_out = 4.0 + 2.0;                  // fp32 master read, 16-bit weight written
  return copy_to_main + unscale + norm + adam + copy_out;
}

double optimizer_params_per_gpu(const TransformerShape& m, const ParallelPlan& plan) {
  // ZeRO-1 and up shard the dense states over dp and the MoE experts' over dp / ep (zero_sharded_bytes).
  return zero_sharded_bytes(memory_per_gpu(m, plan), plan, 1.0, 1);
}

Time optimizer_step_time(double params, int grad_bytes, const GpuComputeSpec& gpu, const TransformerComputeParams& p) {
  if (!(gpu.memory_bandwidth.bytes_per_s > 0.0))
    throw InputError("", "gpu '" + gpu.name + "'", "no memory bandwidth", "0", "a bandwidth > 0");
  // compute.eff_memory: a flat multi-tensor stream, the STREAM-copy kind of kernel (not fitted to Table 4).
  const double rate = gpu.memory_bandwidth.bytes_per_s * gpu.memory_fraction * p.eff_memory;
  return Time::from_s(params * optimizer_bytes_per_param(grad_bytes) / rate);
}

std::pair<std::int64_t, std::int64_t> parse_gemm_tile(const std::string& text, const std::string& origin) {
  const std::size_t x = text.find('x');
  auto number = [&](const std::string& part) -> std::int64_t {
    if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoll(part);
  };
  const std::int64_t tm = x == std::string::npos ? -1 : number(text.substr(0, x));
  const std::int64_t tn = x == std::string::npos ? -1 : number(text.substr(x + 1));
  if (tm < 16 || tm > 512 || tn < 16 || tn > 512)
    throw InputError(origin, "llm.gemm_tile", "bad GEMM output tile", text,
                     "MxN with M and N in 16..512, e.g. 256x128");
  return {tm, tn};
}

namespace {

// A fraction in (0, 1].
ParamDecl fraction_decl(const std::string& name, const std::string& help, const std::string& source) {
  ParamDecl d;
  d.name = name;
  d.unit = "fraction";
  d.min = 0.0, d.min_open = true, d.max = 1.0;
  d.help = help;
  d.source = source;
  return d;
}

// "0.81 fitted to ...": the declared default in the text, so the source cannot disagree with the value.
std::string fitted_source(double value, const std::string& what) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return std::string(text) +
         " fitted jointly with llm.eff_gemm, llm.eff_gemm_backward and llm.eff_memory to Korthikanti et al. 2022 "
         "Table 4 (22B layer, A100-SXM4-80GB, TP 8): " +
         what + "; transformer_compute.hpp";
}

std::vector<ParamDecl> make_transformer_compute_params() {
  ParamDecl eff = fraction_decl(
      "llm.eff_gemm",
      "achieved fraction of the 16-bit peak by a forward or recomputed Transformer GEMM with no tile or wave loss",
      fitted_source(kDefaultEffGemm, "row 'Baseline no recompute' forward 7.7 ms"));
  ParamDecl tile;
  tile.name = "llm.gemm_tile";
  tile.type = ParamType::Text;
  tile.unit = "elements";
  tile.help = "GEMM output tile MxN (each 16..512) for tile and wave quantization";
  tile.source =
      "256x128 [assumption]: NVIDIA Matrix Multiplication Background User's Guide, example tile for large "
      "FP16 GEMMs on A100";
  ParamDecl drop;
  drop.name = "llm.dropout";
  drop.type = ParamType::Boolean;
  drop.help = "attention and hidden dropout kernels run (GPT); false for runs with dropout 0 (Llama-style)";
  drop.source = "true [assumption]: Megatron-LM GPT defaults (attention and hidden dropout 0.1)";
  ParamDecl attn;
  attn.name = "llm.attention";
  attn.type = ParamType::Choice;
  attn.choices = {"unfused", "flash"};
  attn.help =
      "attention core: unfused (score GEMM, fused softmax, dropout, context GEMM; Megatron-LM 2022) or "
      "one causal FlashAttention-2 kernel";
  attn.source = "unfused: the kernels of Korthikanti et al. 2022's Megatron-LM, the validation set";
  ParamDecl flash = fraction_decl(
      "llm.eff_flash", "achieved fraction of the 16-bit peak by the FlashAttention kernels (llm.attention=flash)",
      "0.60 [assumption]: FlashAttention-2 (Dao 2023) abstract, 50-73 % of the A100 peak (recalled, grade C); not "
      "validated here");
  ParamDecl bwd = fraction_decl(
      "llm.eff_gemm_backward",
      "achieved fraction of the 16-bit peak by a backward (data- or weight-gradient) Transformer GEMM with no tile "
      "or wave loss",
      fitted_source(kDefaultEffGemmBackward, "row 'Baseline no recompute' backward 11.9 ms"));
  ParamDecl mem = fraction_decl(
      "llm.eff_memory",
      "achieved fraction of the HBM bandwidth by the Transformer's memory-bound kernels and GEMM rooflines (the "
      "optimizer step uses compute.eff_memory)",
      fitted_source(kDefaultLlmEffMemory, "backward increment of selective recompute, 13.2 - 11.9 = 1.3 ms"));
  return {eff, tile, drop, attn, flash, bwd, mem};
}

}  // namespace

const std::vector<ParamDecl>& transformer_compute_params() {
  static const std::vector<ParamDecl> decls = make_transformer_compute_params();
  return decls;
}

void set_transformer_compute_param(TransformerComputeParams& p, const std::string& name, const Json& value,
                                   const std::string& origin) {
  if (name == "llm.eff_gemm") p.eff_gemm = value.get<double>();
  if (name == "llm.dropout") p.dropout = value.get<bool>();
  if (name == "llm.attention") p.flash_attention = value.get<std::string>() == "flash";
  if (name == "llm.eff_flash") p.eff_flash = value.get<double>();
  if (name == "llm.eff_gemm_backward") p.eff_gemm_backward = value.get<double>();
  if (name == "llm.eff_memory") p.llm_eff_memory = value.get<double>();
  if (name == "llm.gemm_tile") std::tie(p.tile_m, p.tile_n) = parse_gemm_tile(value.get<std::string>(), origin);
}

}  // namespace vgsim::models
