// A large-model training job (issue 17): a Transformer shape (workloads/llm), a parallelism plan in Megatron-LM /
// DeepSpeed terms (tp, pp, dp, zero_stage, micro_batch, global_batch, schedule, virtual_stages, sequence_parallel,
// recompute), the layer compute model's llm.* parameters and llm.* job switches, on a cluster's GPUs with the NCCL
// options of any GPU job (resolve_platform). Resolution only; the iteration is llm_run.hpp, the ranks' groups
// llm_placement.hpp. Every value is recorded with its source; a plan that does not divide the shape or does not fit in
// the ranks' memory (GPU, vGPU framebuffer or MIG slice) is an InputError that says why and by how much.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/workloads/models/parallel_plan.hpp"
#include "vgsim/workloads/models/transformer_compute.hpp"
#include "vgsim/workloads/models/transformer_shape.hpp"

namespace vgsim::sim::llm {

// [assumption] micro-batches per pipeline stage when global_batch is not given: 4 x pp, so that the 1F1B bubble
// (p - 1) / m stays under 25 % (Narayanan et al. section 2.2.1).
constexpr std::int64_t kDefaultMicroBatchesPerStage = 4;

struct LlmJob {
  training::TrainingJob platform;  // cluster, ranks (node-major endpoints), GPU, NCCL options, VM compute efficiency
  models::TransformerShape shape;
  models::ParallelPlan plan;
  models::TransformerComputeParams compute;
  models::Precision precision = models::Precision::BF16;  // precision: bf16 or fp16 (16-bit tensor-core math)
  double memory_bytes = 0.0;  // what one rank may use: the GPU's memory, a vGPU framebuffer or a MIG slice
  std::string memory_device;  // names it in reports and errors
  // Megatron-LM's scatter/gather of pipeline activations (Narayanan et al. section 4.1): each TP rank sends 1/tp of
  // the activation to the next stage, which allgathers it over NVLink. llm.pp_scatter_gather.
  bool scatter_gather = true;
  // The gradient synchronisation overlaps the last micro-batch's backward (PyTorch DDP buckets) or follows the
  // pipeline flush (Megatron-LM's local DDP, 2021). llm.grad_overlap.
  bool grad_overlap = false;
  // Pipeline send/recv is blocking (Megatron-LM 2021-2022: batch_isend_irecv, wait, torch.cuda.synchronize; recalled,
  // grade C): the op that sends holds its GPU until the transfer (and the scatter/gather allgather) is done, so in
  // the steady state every op costs its compute plus one transfer. false: a transfer is only a delay between the
  // two ops (overlapped p2p, Megatron-Core's overlap_p2p_comm). llm.pp_blocking.
  bool pp_blocking = true;
  std::vector<training::ParamRecord> params;  // platform's, then the plan's and llm.*, then facts
  std::uint32_t ranks() const { return platform.ranks(); }
};

// The plan's own declarations (tp, pp, dp, zero_stage, micro_batch, global_batch, schedule, virtual_stages,
// sequence_parallel, recompute, grad_bytes, precision) and the job switches llm.pp_scatter_gather, llm.grad_overlap,
// llm.pp_blocking.
const std::vector<ParamDecl>& llm_plan_params();
// Everything an LLM job accepts beside the platform's: llm_plan_params() + models::transformer_compute_params().
std::vector<ParamDecl> llm_workload_params();

// True when `workload` names a Transformer shape of workloads/llm/transformer_shapes.json or a user's shape file
// ("my-model.json" or "shapes.json#name", models::is_transformer_shape_file): an LLM job.
bool is_llm_workload(const std::string& workload);

// Validates and resolves (InputError naming the option or file, the value and the expectation). dp = 0 (not given)
// is derived as ranks / (tp x pp); given, tp x pp x dp must equal the ranks. `check_memory` false skips the memory
// check (a plan search starts from any plan).
LlmJob resolve_llm_job(const training::JobSpec& spec, const topo::Catalog& catalog, bool check_memory = true);

// The same job with another plan (plan search): validated, memory checked; InputError when it does not fit.
LlmJob with_plan(const LlmJob& job, const models::ParallelPlan& plan);

}  // namespace vgsim::sim::llm
