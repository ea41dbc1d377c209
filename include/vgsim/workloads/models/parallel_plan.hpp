// A large-model parallelism plan in the terms Megatron-LM, DeepSpeed and PyTorch FSDP users know (tp, pp, dp,
// zero_stage, micro_batch, global_batch, virtual stages, sequence parallelism, recomputation), its validation
// against a Transformer shape, and the memory it needs per GPU (issue 17 items 1 and 4). Pure functions: the
// engine-side placement and timing build on them.
// Memory per GPU, mixed-precision Adam (ZeRO paper, Rajbhandari et al. SC'20, sections 3.1 and 5, recalled: grade
// C; the formulas follow from what each stage shards): 16-bit weights 2 B, 16-bit gradients 2 B, optimizer states
// K = 12 B per parameter (fp32 master weights, momentum, variance), on the pipeline stage holding the most:
//   weights    2 P_stage / (dp if zero_stage >= 3)
//   gradients  g P_stage / (dp if zero_stage >= 2)     g = grad_bytes (2; Megatron's fp32 main gradients: 4)
//   optimizer  12 P_stage / (dp if zero_stage >= 1)
//   activations per layer (transformer_shape.hpp) x layers of the stage x micro-batches in flight on it: GPipe
//   keeps all m; 1F1B keeps min(m, pp) on the first stage; interleaved 1F1B multiplies that by 1 + (pp-1)/(pp v)
//   (Korthikanti et al. 2022 section 4.2.3). Embedding, logits and cross-entropy activations are not counted.
// At the backward's peak two transients come on top (issue 17 item 4; zero3_working_set and recompute_layer_bytes):
//   ZeRO-3 / FSDP working set (dp > 1): every layer's sharded 16-bit weights are gathered whole before it computes
//     (forward, recomputed forward + backward) and freed after; its whole gradients exist until the reduce-scatter
//     has sharded them. vgsim's ZeRO-3 timing (sim/llm/llm_run.cpp layer_ops) hides each layer's weight allgather and
//     gradient reduce-scatter behind one neighbouring layer's compute [assumption: one layer of prefetch,
//     kZero3PrefetchLayers]; memory counts what that overlap keeps alive while a layer's backward runs: its own and
//     the prefetched layer's gathered weights, its own gradients being produced and the previous layer's being
//     reduce-scattered: (1 + prefetch) x (2 + g) B x the largest gathered unit (a layer, the embedding or the head,
//     / tp). Mechanism: ZeRO (Rajbhandari et al. SC'20) stage 3 and PyTorch FSDP FULL_SHARD, recalled, grade C
//     (the reference notes pin no DeepSpeed prefetch or live-parameter setting, and no FSDP detail beyond Llama 3's
//     "not resharded after forward": data/reference/llm-table2-ptdp-vs-zero3.md). Included in `weights` and
//     `gradients` (zero3_gathered, zero3_unsharded_gradients).
//   The recomputed layer: with selective or full recomputation the layer whose backward runs holds the activations
//     it would keep without recomputation (activation_bytes_per_layer with Recompute::None, the formula used for
//     stored activations) in place of its stored ones: one layer's difference, once per GPU (one backward at a
//     time). Korthikanti et al. 2022 section 4 (eqs. 1-6; the reference notes hold eq. 6 only,
//     data/reference/llm-training-results.md, grade T), the extra layer derived from the mechanism (recompute rebuilds
//     then frees one layer). Included in `activations` (recompute_layer).
// MoE (moe.hpp): a layer's expert weights are divided by tp x ep instead of tp, and what ZeRO shards over dp for the
// rest it shards over dp / ep for them; MoE layers keep moe_extra_activation_bytes more activations.
// P_stage = (layers / pp) x per-layer parameters / tp, plus the token embedding / tp on the first stage and the LM
// head / tp on the last (a tied embedding is held by both, as Megatron-LM does); norms are divided by tp too (they
// are replicated in reality: < 0.01 % of a layer's parameters).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "vgsim/workloads/models/transformer_shape.hpp"

namespace vgsim::models {

enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };
const char* to_string(PipelineSchedule s);

struct ParallelPlan {
  std::int64_t tp = 1;            // tensor-parallel group (Megatron --tensor-model-parallel-size)
  std::int64_t pp = 1;            // pipeline stages (--pipeline-model-parallel-size)
  std::int64_t dp = 1;            // data-parallel replicas (or ZeRO / FSDP shards)
  int zero_stage = 0;             // 0 none, 1 optimizer states, 2 + gradients, 3 + weights (FSDP FULL_SHARD)
  std::int64_t micro_batch = 1;   // sequences per micro-batch (--micro-batch-size)
  std::int64_t global_batch = 1;  // sequences per iteration (--global-batch-size)
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  std::int64_t virtual_stages = 1;  // model chunks per GPU (interleaved 1F1B; --num-layers-per-virtual-pipeline-stage)
  bool sequence_parallel = false;
  Recompute recompute = Recompute::None;
  int grad_bytes = 2;  // bytes per gradient element (2: 16-bit; 4: Megatron-LM's fp32 main gradients)
  // MoE (moe.hpp): expert-parallel size (Megatron-Core --expert-model-parallel-size; divides the experts and dp) and
  // llm.moe_capacity_factor (kMoeDropless = 0: dropless).
  std::int64_t ep = 1;
  double moe_capacity_factor = 0.0;

  std::int64_t gpus() const { return tp * pp * dp; }
  // Micro-batches per iteration per data-parallel replica (gradient accumulation steps): global / (micro x dp).
  std::int64_t micro_batches() const { return global_batch / (micro_batch * dp); }
};

// Throws InputError naming `where` + ".<field>" (e.g. "plan.tp"), the value and the rule, for: a size < 1, tp not
// dividing heads, KV heads or the FFN width, pp x virtual_stages not dividing the layers, global_batch not a multiple
// of micro_batch x dp, an interleaved schedule whose micro-batches are not a multiple of pp (Megatron-LM's rule),
// virtual_stages > 1 without the interleaved schedule, zero_stage outside 0..3, sequence parallelism without tp > 1;
// and the MoE rules of validate_moe_plan (moe.hpp: ep, capacity factor).
void validate_plan(const TransformerShape& m, const ParallelPlan& p, const std::string& file = "",
                   const std::string& where = "plan");

struct MemoryEstimate {
  double parameters = 0.0;  // parameters on the largest stage, per GPU before ZeRO sharding
  // Of them, the MoE expert weights (already split over ep x tp; 0 for a dense shape): their gradients and optimizer
  // states are ZeRO-sharded over the expert-data-parallel group, dp / ep ranks, the rest over dp.
  double expert_parameters = 0.0;
  double weights = 0.0, gradients = 0.0, optimizer = 0.0, activations = 0.0;  // bytes per GPU
  // Of them, the transients at the backward's peak (file comment): gathered 16-bit weights (in `weights`), whole
  // gradients before their reduce-scatter (in `gradients`), both 0 unless zero_stage 3 and dp > 1; the recomputed
  // layer's activations beyond its stored ones (in `activations`), 0 without recomputation.
  double zero3_gathered = 0.0, zero3_unsharded_gradients = 0.0, recompute_layer = 0.0;
  double total() const { return weights + gradients + optimizer + activations; }
  // The persistent model states: weights + gradients + optimizer states without the ZeRO-3 transients.
  double model_states() const { return weights - zero3_gathered + gradients - zero3_unsharded_gradients + optimizer; }
};
// `flash_attention` (llm.attention = flash): activations without the stored attention scores
// (activation_bytes_per_layer).
MemoryEstimate memory_per_gpu(const TransformerShape& m, const ParallelPlan& p, bool flash_attention = false);

// Layers whose weights ZeRO-3 gathers ahead of the one computing: vgsim's ZeRO-3 timing hides each layer's traffic
// behind one neighbouring layer's compute (sim/llm/llm_run.cpp) [assumption: no source here pins DeepSpeed's
// stage3_prefetch_bucket_size / stage3_max_live_parameters or FSDP's backward prefetch for the runs modelled];
// memory uses the same depth so memory and time agree.
inline constexpr int kZero3PrefetchLayers = 1;

// Bytes per GPU of a per-parameter state of `bytes_per_param` on the stage `e` describes, when ZeRO shards it from
// `stage` on (1 optimizer states, 2 gradients, 3 weights): below that stage all of e.parameters; from it the dense
// parameters / dp plus the MoE expert parameters / (dp / ep). One place for the sharding rule (memory, optimizer).
double zero_sharded_bytes(const MemoryEstimate& e, const ParallelPlan& p, double bytes_per_param, int stage);

// ZeRO-3 working set per GPU (file comment), {gathered 16-bit weights, unsharded gradients} in bytes; {0, 0} unless
// zero_stage >= 3 and dp > 1.
std::pair<double, double> zero3_working_set(const TransformerShape& m, const ParallelPlan& p);

// The recomputed layer's activations beyond its stored ones, bytes per GPU (file comment); 0 without recomputation.
double recompute_layer_bytes(const TransformerShape& m, const ParallelPlan& p, bool flash_attention = false);

// Throws InputError when `e` does not fit `capacity_bytes` (a GPU's memory, a vGPU profile's framebuffer or a MIG
// slice, named by `device`): the message gives what the plan needs by part, what the device has and by how much it
// is short, in GiB.
void require_fits(const MemoryEstimate& e, double capacity_bytes, const std::string& device,
                  const std::string& file = "", const std::string& where = "plan");

}  // namespace vgsim::models
