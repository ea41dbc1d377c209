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
// MoE (moe.hpp): a layer's expert weights are divided by tp x ep instead of tp, and what ZeRO shards over dp for the
// rest it shards over dp / ep for them; MoE layers keep moe_extra_activation_bytes more activations.
// P_stage = (layers / pp) x per-layer parameters / tp, plus the token embedding / tp on the first stage and the LM
// head / tp on the last (a tied embedding is held by both, as Megatron-LM does); norms are divided by tp too (they
// are replicated in reality: < 0.01 % of a layer's parameters).
#pragma once

#include <cstdint>
#include <string>

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
  double total() const { return weights + gradients + optimizer + activations; }
};
MemoryEstimate memory_per_gpu(const TransformerShape& m, const ParallelPlan& p);

// Throws InputError when `e` does not fit `capacity_bytes` (a GPU's memory, a vGPU profile's framebuffer or a MIG
// slice, named by `device`): the message gives what the plan needs by part, what the device has and by how much it
// is short, in GiB.
void require_fits(const MemoryEstimate& e, double capacity_bytes, const std::string& device,
                  const std::string& file = "", const std::string& where = "plan");

}  // namespace vgsim::models
