// The ANALYTICAL fidelity level: closed-form time of a collective with the same parameters the step-level engine
// uses (same chunking, channels, per-transfer hop latency, per-channel bandwidth, protocol efficiency, base latency),
// and the contention-free longest path through a generated schedule (the reference the closed forms are tested
// against). A transfer of b payload bytes on a hop of class h costs latency_h + b / (efficiency * bw_per_channel_h).
// Closed forms (t(x) = max over the hop classes present of latency_h + x / (eff * bw_h); x_l = the largest piece of
// loop l; D = hops on the longest root-to-leaf path):
//   ring allreduce / allgather / reducescatter: base + sum_l nsteps * t(x_l)    (1 loop, c = 1, one hop class:
//       allreduce = base + 2(n-1)(a + S/(n*B)))
//   pipelines (broadcast / reduce chain of n-1 hops; tree: the deepest leaf-root-leaf path of (ppn-1) intra and
//   depth inter hops each way; sendrecv: one hop): the longest path through the (chunk, stage) grid,
//   f[l][h] = max(f[l][h-1], f[l-1][h]) + t_h(x_l), O(loops x stages); equal stages give
//   base + (stages + loops - 1) * t.
// Exact (to rounding) when nothing contends; a test checks them against contention_free_time within 1 %.
#pragma once

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/generators.hpp"

namespace vgsim::coll {

struct HopCost {
  Time latency{0};          // per transfer on this hop class (NCCL hw latency + route latency)
  Bandwidth bw_per_channel; // bandwidth one channel's flow gets on this hop class
};
struct PathCosts {
  Time base{0};             // once per collective
  HopCost intra;            // hops between ranks of one node
  HopCost inter;            // hops between nodes
  double payload_efficiency = 1.0;  // LL 0.5, LL128 0.92, Simple 1
};

Time analytical_time(Op op, Algo algo, Proto proto, std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size,
                     const GenOptions& options, const PathCosts& costs);

// Longest path through the schedule's DAG with the per-transfer costs above (no sharing between transfers).
Time contention_free_time(const CollectiveSchedule& s, const PathCosts& costs);

}  // namespace vgsim::coll
