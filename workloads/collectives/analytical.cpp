// Closed-form collective times and the contention-free DAG longest path (see analytical.hpp).
#include "vgsim/workloads/collectives/analytical.hpp"

#include <algorithm>
#include <stdexcept>

#include "builder.hpp"

namespace vgsim::coll {

namespace {
Time hop_time(const HopCost& h, Bytes bytes, double eff) {
  if (bytes <= 0) return h.latency;
  if (!(h.bw_per_channel.bytes_per_s > 0)) throw std::invalid_argument("analytical model: hop bandwidth must be > 0");
  return h.latency + transfer_time(static_cast<double>(bytes) / eff, h.bw_per_channel);
}
}  // namespace

Time contention_free_time(const CollectiveSchedule& s, const PathCosts& costs) {
  const std::uint32_t ppn = s.ranks_per_node == 0 ? s.ranks : s.ranks_per_node;
  std::vector<Time> finish(s.transfers.size());
  Time end{0};
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    Time start{0};
    for (std::uint32_t d = 0; d < t.dep_count; ++d) start = std::max(start, finish[s.deps[t.dep_begin + d]]);
    const HopCost& h = (t.src / ppn == t.dst / ppn) ? costs.intra : costs.inter;
    finish[i] = start + hop_time(h, t.bytes, costs.payload_efficiency);
    end = std::max(end, finish[i]);
  }
  return costs.base + end;
}

Time analytical_time(Op op, Algo algo, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size,
                     const GenOptions& o, const PathCosts& costs) {
  // Same header checks and defaults as the generators.
  CollectiveSchedule hdr;
  detail::check_and_init(hdr, op, algo, proto, n, ppn, size, o);
  if (n <= 1) return costs.base;
  const double eff = costs.payload_efficiency;
  const std::uint32_t c = hdr.channels, N = n / ppn;
  if (hdr.ring_order.empty()) {
    hdr.ring_order.resize(n);
    for (std::uint32_t p = 0; p < n; ++p) hdr.ring_order[p] = p;
  }
  const bool has_intra = ppn > 1, has_inter = N > 1;
  auto t_max = [&](Bytes x) {
    Time t{0};
    if (has_intra) t = std::max(t, hop_time(costs.intra, x, eff));
    if (has_inter) t = std::max(t, hop_time(costs.inter, x, eff));
    return t;
  };
  const bool ring_blocks = algo == Algo::Ring && (op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter);
  const detail::Partition part(size, hdr.chunk_bytes, ring_blocks ? static_cast<std::uint64_t>(c) * n : c);
  auto xmax = [&](std::uint32_t l) { return part.piece(l, 0); };  // piece 0 is the largest of its loop
  Time total = costs.base;
  if (ring_blocks) {
    const std::uint32_t nsteps = ring_steps(op, n);
    for (std::uint32_t l = 0; l < part.loops; ++l) total += t_max(xmax(l)) * nsteps;
    return total;
  }
  if (op == Op::SendRecv) {
    for (std::uint32_t l = 0; l < part.loops; ++l) total += t_max(xmax(l));
    return total;
  }
  // Pipelines: a chunk walks a sequence of stages (hop classes); later chunks follow. The longest path through the
  // (chunk, stage) grid is f[k][h] = max(f[k][h-1], f[k-1][h]) + t_h(x_k); the slot edges never lengthen it for
  // slots >= 2 (their paths skip stages a grid path covers).
  std::vector<const HopCost*> stages;
  if (algo == Algo::Ring) {  // broadcast / reduce chain along the ring order (as the generator builds it)
    const std::vector<std::uint32_t>& order = hdr.ring_order;
    std::uint32_t root_pos = 0;
    for (std::uint32_t p = 0; p < n; ++p)
      if (order[p] == hdr.root) root_pos = p;
    const std::uint32_t start = op == Op::Broadcast ? root_pos : (root_pos + 1) % n;
    for (std::uint32_t h = 0; h + 1 < n; ++h) {
      const std::uint32_t a = order[(start + h) % n], b = order[(start + h + 1) % n];
      stages.push_back(a / ppn == b / ppn ? &costs.intra : &costs.inter);
    }
  } else {  // tree: deepest path = (ppn-1) chain hops + node-tree depth inter hops, up then down
    std::uint32_t depth = 0;
    for (int w = 0; w < (c == 1 ? 1 : 2); ++w) {
      const NodeTree nt = node_tree(N, w);
      for (std::uint32_t x = 0; x < N; ++x) {
        std::uint32_t d = 0;
        for (int y = static_cast<int>(x); nt.parent[y] >= 0; y = nt.parent[y]) ++d;
        depth = std::max(depth, d);
      }
    }
    for (std::uint32_t i = 0; i + 1 < ppn; ++i) stages.push_back(&costs.intra);
    for (std::uint32_t i = 0; i < 2 * depth; ++i) stages.push_back(&costs.inter);
    for (std::uint32_t i = 0; i + 1 < ppn; ++i) stages.push_back(&costs.intra);
  }
  std::vector<Time> f(stages.size(), Time{0});
  for (std::uint32_t l = 0; l < part.loops; ++l) {
    Time prev{0};
    for (std::size_t h = 0; h < stages.size(); ++h) {
      f[h] = std::max(prev, f[h]) + hop_time(*stages[h], xmax(l), eff);
      prev = f[h];
    }
  }
  return total + (stages.empty() ? Time{0} : f.back());
}

}  // namespace vgsim::coll
