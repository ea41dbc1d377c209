// The closed forms' dispatch (each algorithm's form is in its file: AlgorithmInfo::analytical), the pieces they
// share, and the contention-free DAG longest path (see analytical.hpp).
#include "vgsim/workloads/collectives/analytical.hpp"

#include <algorithm>
#include <stdexcept>

#include "builtin_algorithms.hpp"

namespace vgsim::coll {

namespace detail {}  // namespace detail

Time hop_latency(const HopCost& h, Bytes transfer_bytes, double eff) {
  if (!(h.staged_s_per_byte > 0.0)) return h.latency;
  const Bytes unit = h.staging_granule > 0 ? std::min(transfer_bytes, h.staging_granule) : transfer_bytes;
  return h.latency + Time::from_s(static_cast<double>(unit) / eff * h.staged_s_per_byte);
}

namespace detail {
Time send_time(const HopCost& h, Bytes bytes, double eff) {
  if (bytes <= 0) return Time{0};
  if (!(h.bw_per_channel.bytes_per_s > 0)) throw std::invalid_argument("analytical model: hop bandwidth must be > 0");
  return transfer_time(static_cast<double>(bytes) / eff, h.bw_per_channel);
}

TreeShape tree_shape(std::uint32_t nodes, std::uint32_t c) {
  TreeShape ts;
  for (int w = 0; w < (c == 1 ? 1 : 2); ++w) {
    const NodeTree nt = node_tree(nodes, w);
    for (std::uint32_t x = 0; x < nodes; ++x) {
      std::uint32_t d = 0;
      for (int y = static_cast<int>(x); nt.parent[y] >= 0; y = nt.parent[y]) ++d;
      ts.depth = std::max(ts.depth, d);
      ts.degree =
          std::max<std::uint32_t>(ts.degree, static_cast<std::uint32_t>(nt.children[x].size()) + (nt.parent[x] >= 0));
    }
  }
  return ts;
}

// Chunk k starts stage h when it was delivered by stage h-1 (data) and chunk k-1 has left stage h (order):
// sent[k][h] = max(sent[k][h-1] + a_{h-1}, sent[k-1][h]) + x_k/B_h, delivered = sent + a_h. The slot edges do not
// lengthen it for the default slot counts (8 slots of one step: (slots-1) x/B of the next stage exceeds a + x/B of
// this one).
Time pipeline_time(const std::vector<const HopCost*>& stages, const Partition& part, double eff) {
  std::vector<Time> f(stages.size(), Time{0});  // sent time of the latest chunk per stage
  for (std::uint32_t l = 0; l < part.loops; ++l) {
    Time prev{0};  // delivery of this chunk by the previous stage
    for (std::size_t h = 0; h < stages.size(); ++h) {
      f[h] = std::max(prev, f[h]) + send_time(*stages[h], part.piece(l, 0), eff);
      prev = f[h] + hop_latency(*stages[h], part.piece(l, 0), eff);
    }
  }
  return stages.empty() ? Time{0} : f.back() + hop_latency(*stages.back(), part.piece(part.loops - 1, 0), eff);
}
}  // namespace detail

Time contention_free_time(const CollectiveSchedule& s, const PathCosts& costs) {
  // Engine semantics (sim/collective_run.hpp): bytes first, then latency; data dependents wait for delivery, order
  // and buffer dependents only for the bytes to have left (coll::dependency_kind).
  const std::uint32_t ppn = s.ranks_per_node == 0 ? s.ranks : s.ranks_per_node;
  std::vector<Time> sent(s.transfers.size()), delivered(s.transfers.size());
  Time end{0};
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    Time start{0};
    for (std::uint32_t d = 0; d < t.dep_count; ++d) {
      const std::uint32_t j = s.deps[t.dep_begin + d];
      start = std::max(start, dependency_kind(s.transfers[j], t) == DepKind::Data ? delivered[j] : sent[j]);
    }
    const bool switch_leg = t.src == kSwitchRank || t.dst == kSwitchRank;  // NVLS: a leg inside the node
    const HopCost& h = (switch_leg || t.src / ppn == t.dst / ppn) ? costs.intra : costs.inter;
    sent[i] = start + detail::send_time(h, t.bytes, costs.payload_efficiency);
    delivered[i] = sent[i] + hop_latency(h, t.bytes, costs.payload_efficiency);
    end = std::max(end, delivered[i]);
  }
  return costs.base + end;
}

Time analytical_time(Op op, Algo algo, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size, const GenOptions& o,
                     const PathCosts& costs) {
  // Same header checks and defaults as the generators.
  CollectiveSchedule hdr;
  AnalyticalCall call;
  call.order = detail::check_and_init(hdr, op, algo, proto, n, ppn, size, o);
  if (n <= 1) return costs.base;
  if (op == Op::AllToAll)  // the planning path runs training collectives only (allreduce, allgather)
    throw std::invalid_argument(
        "analytical model: alltoall has no closed form here (its p2p rounds and batches "
        "contend by design); simulate it on the step engine");
  const AlgorithmInfo& a = algorithm(algo);
  if (!a.analytical)
    throw std::invalid_argument("analytical model: the " + a.name +
                                " algorithm has no closed form; simulate it on "
                                "the step engine");
  call.op = op;
  call.proto = proto;
  call.ranks = n;
  call.ranks_per_node = ppn;
  call.channels = hdr.channels;
  call.slots = hdr.slots;
  call.slices = hdr.slices;
  call.root = hdr.root;
  call.size = size;
  call.chunk_bytes = hdr.chunk_bytes;
  return a.analytical(call, costs);
}

}  // namespace vgsim::coll
