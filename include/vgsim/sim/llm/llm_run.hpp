// One training iteration of a large-model job (issue 17 items 3 and 5): per micro-batch and virtual pipeline stage,
// the layers' compute (workloads/models/transformer_compute) plus the tensor-parallel collectives they wait for (run
// on the engine by the TP groups of a node together, group_collectives.hpp); the pipeline schedule's order and
// timeline (workloads/models/pipeline_schedule) with the stage-to-stage activation and gradient transfers (run on the
// engine by all pipeline neighbours of a boundary together; with scatter/gather, a 1/tp slice each and an NVLink
// allgather); ZeRO-3 parameter allgathers and gradient reduce-scatters per layer, prefetched behind compute; after a
// stage's last backward its data-parallel gradient synchronisation (allreduce, or reduce-scatter + allgather under
// ZeRO-1/2, all DP groups of the stage's nodes together) and the optimizer step. The iteration ends when the slowest
// stage is done.
// Each communication pattern is simulated on its own engine with every instance that shares its nodes (contention
// within a pattern); patterns do not contend with each other [assumption: in Megatron-LM they rarely overlap in
// time: TP collectives sit between a layer's GEMMs, p2p between micro-batches, DP after the flush] and TP
// communication is not overlapped with compute (Megatron-LM 2021: it is on the critical path).
// MoE shapes (models/moe.hpp, moe_groups.hpp): the layer's MLP is the MoE MLP; per layer and micro-batch two
// expert-parallel all-to-alls forward (dispatch, combine) and two backward (two more recomputed under full
// recomputation), each simulated on every EP group of the nodes together and blocking [Megatron-Core of that era: not
// overlapped]; the expert gradients are synchronised over the expert-data-parallel groups (dp / ep ranks) after the
// dense ones over dp.
// Not modelled: the tied-embedding gradient allreduce between the first and last stages, data loading, logging,
// kernel-launch gaps, the HBM bandwidth NCCL kernels take from compute.
// Pipeline send/recv is blocking by default (llm.pp_blocking): the op that sends holds its GPU for the transfer, as
// Megatron-LM's batch_isend_irecv + wait + torch.cuda.synchronize do; otherwise it only delays the receiving op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/llm/llm_job.hpp"
#include "vgsim/workloads/models/pipeline_schedule.hpp"

namespace vgsim::sim::llm {

// One communication pattern as simulated.
struct CommRecord {
  std::string what;  // "tp allreduce (forward, per layer)", "dp allreduce (stage 0)", ...
  std::string op;
  Bytes bytes = 0;
  Time time{0};
  std::uint32_t groups = 0;  // instances simulated together
  std::string algo, proto;
  std::uint32_t channels = 0;
  std::int64_t count = 0;  // calls per iteration per rank
};

struct LlmResult {
  Time iteration{0};
  // Per virtual stage (pp x v), one micro-batch: the op's total, the tensor-parallel communication and the exposed
  // ZeRO-3 weight/gradient traffic inside it (the rest is compute).
  std::vector<Time> forward, backward, forward_tp, backward_tp, forward_z3, backward_z3;
  std::vector<Time> forward_ep, backward_ep;  // the expert-parallel all-to-alls inside it (0 for a dense shape)
  // Per virtual stage: the blocking pipeline send/recv inside that op (llm.pp_blocking; 0 otherwise). Counted as
  // pipeline idle in the breakdown, not as compute.
  std::vector<Time> forward_p2p, backward_p2p;
  models::PipelineTimeline timeline;
  std::vector<Time> stage_sync;       // per pipeline rank: DP gradient synchronisation exposed after its last op
  std::vector<Time> stage_optimizer;  // per pipeline rank
  std::vector<Time> stage_end;        // per pipeline rank: its iteration end
  std::int64_t critical_stage = 0;    // the pipeline rank that ends last
  // Breakdown of the critical stage's iteration (sums to `iteration`): compute, exposed tensor-parallel
  // communication, exposed ZeRO-3 parameter traffic, expert-parallel all-to-alls (ep_exposed), pipeline idle (bubble
  // and p2p waits), data-parallel synchronisation, optimizer step.
  Time compute{0}, tp_exposed{0}, zero3_exposed{0}, pipeline_idle{0}, dp_exposed{0}, optimizer{0};
  Time ep_exposed{0};                  // expert-parallel all-to-alls (MoE); reported as "EP" for an MoE shape only
  bool moe = false;                    // the shape has experts > 1 (the reports add the EP term and the plan's ep)
  double ideal_bubble_fraction = 0.0;  // (p - 1) / (v m), Narayanan et al. (for reference)
  double model_flops = 0.0, hardware_flops = 0.0;  // per iteration, whole job
  double tokens_per_s = 0.0;
  double model_tflops_per_gpu = 0.0, hardware_tflops_per_gpu = 0.0;
  double mfu = 0.0, hfu = 0.0;  // against the GPU's dense 16-bit tensor peak
  models::MemoryEstimate memory;
  std::vector<CommRecord> comms;
  std::uint64_t engine_events = 0;  // events of the distinct calls simulated (each pattern once per size)
};

LlmResult simulate_llm_iteration(const LlmJob& job);

// Summary as text (parameters with sources, plan, memory, iteration and its breakdown, communication table).
void write_llm_summary(std::ostream& os, const LlmJob& job, const LlmResult& r);
Json llm_json(const LlmJob& job, const LlmResult& r);
// Chrome trace: one process per pipeline rank (its first TP rank of data-parallel replica 0), forward / backward ops
// per micro-batch and chunk, then the gradient synchronisation and the optimizer step.
Json llm_chrome_trace(const LlmJob& job, const LlmResult& r);

}  // namespace vgsim::sim::llm
