// Pipeline-parallel schedules (GPipe, Megatron-LM's 1F1B and interleaved 1F1B) as the order of forward and backward
// micro-batch ops on every pipeline rank, and an exact timeline of such an order given per-stage compute times and
// per-boundary point-to-point transfer times (issue 17 items 1 and 5). Pure and deterministic: no engine, no events;
// the timeline is the longest path through the op dependency graph, computed in time linear in the number of ops.
//
// The orders follow Megatron-LM's megatron/core/pipeline_parallel/schedules.py (recalled, not copied: grade C):
//   GPipe (Huang et al. 2019): all m forwards in micro-batch order, then all m backwards in reverse order.
//   1F1B, forward_backward_pipelining_without_interleaving: rank r runs W = min(p - r - 1, m) warmup forwards, then
//     m - W steady iterations of (forward W + i, backward i), then the W remaining backwards (cooldown).
//   Interleaved, forward_backward_pipelining_with_interleaving: rank r holds v model chunks; chunk c of rank r is the
//     global virtual stage c p + r. The m v "virtual micro-batches" k = 0..m v - 1 are taken in groups of p per chunk:
//     forward k runs chunk (k mod p v) / p on micro-batch (k / (p v)) p + k mod p; backward k runs chunk
//     v - 1 - (k mod p v) / p on the same micro-batch formula. Warmup W = min((p - r - 1) 2 + (v - 1) p, m v), or all
//     m v forwards when m == p; then steady (forward W + i, backward i) and cooldown backwards. m must be a multiple
//     of p (Megatron-LM's rule).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/models/parallel_plan.hpp"

namespace vgsim::models {

// One op on a pipeline rank: the forward or backward pass of micro-batch `micro` through the rank's model chunk
// `chunk` (0..v-1; the global virtual stage is chunk x pp + rank).
struct PipeOp {
  std::int32_t micro = 0;
  std::int32_t chunk = 0;
  bool backward = false;
  bool operator==(const PipeOp&) const = default;
};

// The op order of schedule `s` on each of `pp` ranks (result[rank] = ops in execution order; 2 m v ops per rank).
// Throws InputError naming "<where>.pp", "<where>.micro_batches" or "<where>.virtual_stages" for: a size below 1,
// virtual_stages > 1 without the interleaved schedule, or interleaving with micro-batches not a multiple of pp.
std::vector<std::vector<PipeOp>> pipeline_order(PipelineSchedule s, std::int64_t pp, std::int64_t micro_batches,
                                                std::int64_t virtual_stages, const std::string& where = "plan");

struct PipeSpan {
  PipeOp op;
  Time start, end;
};

struct PipelineTimeline {
  std::vector<std::vector<PipeSpan>> ranks;  // per rank, the ops in their order with start and end
  Time makespan;                             // first op start (0) to last op end, over all ranks
  std::vector<Time> busy;                    // per rank: sum of its op durations
  std::vector<Time> idle;                    // per rank: makespan - busy (the pipeline bubble seen by that rank)
  // Per rank: the most (micro-batch, chunk) activation sets held at once (a forward started whose backward has not
  // ended). In units of one chunk's activations of one micro-batch: with v chunks of equal size, divide by v for
  // whole-stage micro-batches (Korthikanti et al.'s p (1 + (p - 1) / (p v)) on rank 0 of an interleaved schedule).
  std::vector<std::int64_t> peak_in_flight;
};

// Evaluates `order` (as from pipeline_order) on `pp` ranks with `v` chunks each. `forward` and `backward` give the
// duration of one micro-batch through each global virtual stage (size pp x v; backward may include recomputation);
// `p2p_forward[k]` is the activation transfer from virtual stage k to k + 1 and `p2p_backward[k]` the gradient
// transfer from k + 1 to k (size pp x v - 1; zero allowed). An op starts when its rank finished the previous op in
// order and its input is there: a forward after the previous virtual stage's forward of the same micro-batch ended
// plus p2p_forward; a backward after the next virtual stage's backward ended plus p2p_backward and after its own
// forward ended. Sizes or negative times that do not fit -> InputError naming the argument; an order that does not
// hold every (micro-batch, chunk) forward and backward exactly once per rank, or that deadlocks -> std::logic_error.
PipelineTimeline run_pipeline(const std::vector<std::vector<PipeOp>>& order, std::int64_t pp, std::int64_t v,
                              const std::vector<Time>& forward, const std::vector<Time>& backward,
                              const std::vector<Time>& p2p_forward, const std::vector<Time>& p2p_backward);

}  // namespace vgsim::models
