// The ANALYTICAL fidelity level: closed-form time of a collective with the same parameters the step-level engine
// uses (same chunking, channels, per-transfer hop latency, per-channel bandwidth, protocol efficiency, base latency),
// and the contention-free longest path through a generated schedule (the reference the closed forms are tested
// against). A transfer of b payload bytes on a hop of class h occupies its connection for b / (efficiency *
// bw_per_channel_h) and is delivered latency_h later; data dependents wait for delivery, order and buffer dependents
// only for the bytes (schedule.hpp dependency_kind, the engine's rule). With s_h(x) = x / (eff * bw_h), a = max a_h,
// x_l = the largest piece of loop l:
//   ring allreduce / allgather / reducescatter: the ring's recurrence over (step, position) with every piece at x_l,
//       positions folded by the period of the hop classes around the ring (ppn): O(loops x nsteps x ppn)
//       (1 loop, c = 1, one hop class: allreduce = base + 2(n-1)(a + S/(n*B)))
//   sendrecv: base + sum_l max_h s_h(x_l) + a
//   pipelines (broadcast / reduce chain of n-1 hops; tree: the deepest leaf-root-leaf path of (ppn-1) intra and
//   depth inter hops each way): sent[l][h] = max(sent[l][h-1] + a_{h-1}, sent[l-1][h]) + s_h(x_l), O(loops x
//   stages); equal stages give base + stages * (a + s) + (loops - 1) * s.
//   nvls allreduce (switch legs share each GPU's UP / DOWN within the call, so this is not contention-free): with
//       P_l = s((n+1) x_l), one loop: base + 4a + 2 P_0; more: base + 4a + 3 P_0 + sum_{l>=1} P_l (analytical.cpp).
//   nvlstree allreduce (the same switch legs per node plus a node tree of depth D): with P_l = s_intra((ppn+1) x_l)
//       and Q_l = s_inter(deg x_l), base + 4a_i + 2 P_0 + 2D(a_n + s_n(x_0)) [+ max(P_0, Q_0) with more loops]
//       + sum_{l>=1} max(P_l, Q_l); checked against the engine like NVLS.
//   alltoall: none (std::invalid_argument): the planning path that uses these forms runs training jobs, whose
//       collectives are allreduce and allgather; alltoall's p2p rounds share links by construction (step engine).
// Each form is its algorithm's (AlgorithmInfo::analytical, in the algorithm's file); analytical_time dispatches.
// Exact (to rounding) when nothing contends; a test checks them against contention_free_time within 1 % (not NVLS:
// its legs share UP / DOWN by construction, so its form is checked against the engine, tests/sim/planning).
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/generators.hpp"

namespace vgsim::coll {

struct HopCost {
  Time latency{0};           // per transfer on this hop class (NCCL hw latency + route latency)
  Bandwidth bw_per_channel;  // bandwidth one channel's flow gets on this hop class
  // Host staging (sim/step_costs.hpp delivery_latency): each transfer's delivery also waits for the store-and-forward
  // of min(bytes, staging_granule) (0: the whole transfer) at staged_s_per_byte per wire byte. 0 = not staged.
  double staged_s_per_byte = 0.0;
  Bytes staging_granule = 0;
};
// A transfer's latency on hop class h: latency plus its staged copy (the engine's delivery_latency).
Time hop_latency(const HopCost& h, Bytes transfer_bytes, double payload_efficiency);
struct PathCosts {
  Time base{0};                     // once per collective
  HopCost intra;                    // hops between ranks of one node
  HopCost inter;                    // hops between nodes
  double payload_efficiency = 1.0;  // LL 0.5, LL128 0.92, Simple 1
};

// One call as a closed form sees it: the generators' header checks and defaults applied (channels, chunk, slots,
// root) and the ring order (GenOptions::ring_order, else 0..n-1). ranks >= 2 when a form is called.
struct AnalyticalCall {
  Op op = Op::AllReduce;
  Proto proto = Proto::Simple;
  std::uint32_t ranks = 0, ranks_per_node = 0, channels = 1, slots = 0, slices = 1, root = 0;
  Bytes size = 0, chunk_bytes = 0;
  std::vector<std::uint32_t> order;
};

// The algorithm's closed form (std::invalid_argument for alltoall or an algorithm without one).
Time analytical_time(Op op, Algo algo, Proto proto, std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size,
                     const GenOptions& options, const PathCosts& costs);

// Longest path through the schedule's DAG with the per-transfer costs above (no sharing between transfers).
Time contention_free_time(const CollectiveSchedule& s, const PathCosts& costs);

}  // namespace vgsim::coll
