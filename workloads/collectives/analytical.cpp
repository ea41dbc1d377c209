// Closed-form collective times and the contention-free DAG longest path (see analytical.hpp).
#include "vgsim/workloads/collectives/analytical.hpp"

#include <algorithm>
#include <stdexcept>

#include "builder.hpp"

namespace vgsim::coll {

namespace {
// Time the bytes of one transfer occupy its connection (no latency).
Time send_time(const HopCost& h, Bytes bytes, double eff) {
  if (bytes <= 0) return Time{0};
  if (!(h.bw_per_channel.bytes_per_s > 0)) throw std::invalid_argument("analytical model: hop bandwidth must be > 0");
  return transfer_time(static_cast<double>(bytes) / eff, h.bw_per_channel);
}
// The node trees a c-channel tree call uses (tree 0, and tree 1 when c > 1): the deepest node's depth and the most
// tree edges at one node (parent + children).
struct TreeShape {
  std::uint32_t depth = 0, degree = 0;
};
TreeShape tree_shape(std::uint32_t nodes, std::uint32_t c) {
  TreeShape ts;
  for (int w = 0; w < (c == 1 ? 1 : 2); ++w) {
    const NodeTree nt = node_tree(nodes, w);
    for (std::uint32_t x = 0; x < nodes; ++x) {
      std::uint32_t d = 0;
      for (int y = static_cast<int>(x); nt.parent[y] >= 0; y = nt.parent[y]) ++d;
      ts.depth = std::max(ts.depth, d);
      ts.degree = std::max<std::uint32_t>(ts.degree, static_cast<std::uint32_t>(nt.children[x].size()) + (nt.parent[x] >= 0));
    }
  }
  return ts;
}
}  // namespace

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
    sent[i] = start + send_time(h, t.bytes, costs.payload_efficiency);
    delivered[i] = sent[i] + h.latency;
    end = std::max(end, delivered[i]);
  }
  return costs.base + end;
}

Time analytical_time(Op op, Algo algo, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size,
                     const GenOptions& o, const PathCosts& costs) {
  // Same header checks and defaults as the generators.
  CollectiveSchedule hdr;
  detail::check_and_init(hdr, op, algo, proto, n, ppn, size, o);
  if (n <= 1) return costs.base;
  if (op == Op::AllToAll)  // the planning path runs training collectives only (allreduce, allgather)
    throw std::invalid_argument("analytical model: alltoall has no closed form here (its p2p rounds and batches "
                                "contend by design); simulate it on the step engine");
  const double eff = costs.payload_efficiency;
  const std::uint32_t c = hdr.channels, N = n / ppn;
  if (hdr.ring_order.empty()) {
    hdr.ring_order.resize(n);
    for (std::uint32_t p = 0; p < n; ++p) hdr.ring_order[p] = p;
  }
  const bool has_intra = ppn > 1, has_inter = N > 1;
  auto s_max = [&](Bytes x) {  // bytes only
    Time t{0};
    if (has_intra) t = std::max(t, send_time(costs.intra, x, eff));
    if (has_inter) t = std::max(t, send_time(costs.inter, x, eff));
    return t;
  };
  const Time a_max = std::max(has_intra ? costs.intra.latency : Time{0}, has_inter ? costs.inter.latency : Time{0});
  const bool ring_blocks = (algo == Algo::Ring || algo == Algo::NVLS) &&
                           (op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter);
  const std::uint64_t pieces = ring_blocks ? static_cast<std::uint64_t>(c) * n
                               : algo == Algo::NVLSTree ? static_cast<std::uint64_t>(c) * ppn : c;
  const detail::Partition part(size, hdr.chunk_bytes, pieces);
  auto xmax = [&](std::uint32_t l) { return part.piece(l, 0); };  // piece 0 is the largest of its loop
  Time total = costs.base;
  if (algo == Algo::NVLS) {
    // Switch legs only (nvls.cpp), all at the leg's per-channel rate and latency (costs.intra). Per channel and loop
    // every GPU's UP and DOWN each carry (n+1) x_l: one period P_l = s((n+1) x_l). Loop 0's chain is 4 legs, 4a:
    // its n reads and reduced delivery run alone (n s + s); with one loop its store and multicast run alone too
    // (s + n s), so T = 4a + 2 P_0. With more loops they share UP / DOWN with loop 1's n reads / n deliveries at
    // 1/(n+1) each and take a period each (2 P_0); the later loops follow at the UP / DOWN pace, one P_l each.
    const HopCost& h = costs.intra;
    const Bytes n1 = static_cast<Bytes>(n + 1);
    Time t = h.latency * 4 + send_time(h, n1 * xmax(0), eff) * 2;
    if (part.loops > 1) t += send_time(h, n1 * xmax(0), eff);
    for (std::uint32_t l = 1; l < part.loops; ++l) t += send_time(h, n1 * xmax(l), eff);
    return total + t;
  }
  if (algo == Algo::NVLSTree) {
    // Switch legs at costs.intra (per-channel payload rate of a GPU's UP / DOWN), network legs at costs.inter
    // (nvls_tree.cpp). Per channel and loop a GPU's UP and DOWN carry (n_l+1) x_l, P_l = s_i((n_l+1) x_l), and its
    // network path at most deg x_l per direction (deg: most tree edges at one node, 1 for 2 nodes),
    // Q_l = s_n(deg x_l). Loop 0's chain: the NVLS reduce-scatter (4a_i / 2 + P_0 as in NVLS), D tree levels up and
    // down (2D (a_n + s_n(x_0)), D: the deepest node), the NVLS allgather (the other 2a_i + P_0); with more loops
    // one more period for the first sharing (as NVLS) and the later loops at the slower pace, max(P_l, Q_l) each.
    const TreeShape ts = tree_shape(N, c);
    const std::uint32_t depth = ts.depth, deg = ts.degree;
    const HopCost &hi = costs.intra, &hn = costs.inter;
    const Bytes n1 = static_cast<Bytes>(ppn + 1);
    auto pace = [&](Bytes x) { return std::max(send_time(hi, n1 * x, eff), send_time(hn, deg * x, eff)); };
    Time t = hi.latency * 4 + send_time(hi, n1 * xmax(0), eff) * 2 + (hn.latency + send_time(hn, xmax(0), eff)) * (2 * depth);
    if (part.loops > 1) t += pace(xmax(0));
    for (std::uint32_t l = 1; l < part.loops; ++l) t += pace(xmax(l));
    return total + t;
  }
  if (ring_blocks) {
    // The ring's own recurrence (ring.cpp dependency rule) over (global step g, ring position p), with every piece of
    // loop l at its largest size x_l: start(g, p) = max(sent(g-1, p-1) + a_{p-1} [data, not at a loop's first step],
    // sent(g-1, p) [order], sent(g-slots+1, p+1) [buffer, ring.cpp's has_c]), sent = start + x_l / B_p. The hop classes
    // repeat around the ring with some period P (ppn for the node-major order), and so does the state, so only P
    // positions are tracked: O(loops x nsteps x P). One loop, one class: 2(n-1)(a + S/(nB)).
    const std::uint32_t nsteps = ring_steps(op, n);
    std::vector<const HopCost*> hop(n);
    for (std::uint32_t p = 0; p < n; ++p) {
      const std::uint32_t a = hdr.ring_order[p], b = hdr.ring_order[(p + 1) % n];
      hop[p] = a / ppn == b / ppn ? &costs.intra : &costs.inter;
    }
    std::uint32_t period = n;
    for (std::uint32_t q = 1; q < n; ++q) {
      if (n % q != 0) continue;
      bool ok = true;
      for (std::uint32_t p = 0; p < n && ok; ++p) ok = hop[p] == hop[(p + q) % n];
      if (ok) { period = q; break; }
    }
    const std::uint32_t P = period, slots = hdr.slots;
    std::vector<std::vector<Time>> sent(slots, std::vector<Time>(P, Time{0}));  // sent(g', .) for the last slots steps
    std::vector<Time> cur(P);
    const std::uint64_t steps = static_cast<std::uint64_t>(part.loops) * nsteps;
    for (std::uint64_t g = 0; g < steps; ++g) {
      const Bytes x = xmax(static_cast<std::uint32_t>(g / nsteps));
      const std::uint32_t j = static_cast<std::uint32_t>(g % nsteps);
      const bool has_c = g >= slots && (g - slots) % nsteps != nsteps - 1;
      const std::vector<Time>& prev = sent[(g + slots - 1) % slots];   // step g-1
      const std::vector<Time>& back = sent[(g + 1) % slots];           // step g-slots+1 (slots >= 2)
      for (std::uint32_t p = 0; p < P; ++p) {
        const std::uint32_t pm = (p + P - 1) % P, pn = (p + 1) % P;
        Time start{0};
        if (j > 0) start = std::max(start, prev[pm] + hop[pm]->latency);
        if (g > 0) start = std::max(start, prev[p]);
        if (has_c) start = std::max(start, back[pn]);
        cur[p] = start + send_time(*hop[p], x, eff);
      }
      sent[g % slots] = cur;
    }
    Time end{0};
    if (steps > 0)
      for (std::uint32_t p = 0; p < P; ++p) end = std::max(end, sent[(steps - 1) % slots][p] + hop[p]->latency);
    return total + end;
  }
  if (op == Op::SendRecv) {  // only order dependencies: the sends stream back to back, then one latency
    for (std::uint32_t l = 0; l < part.loops; ++l) total += s_max(xmax(l));
    return total + a_max;
  }
  // Pipelines: a chunk walks a sequence of stages (hop classes); later chunks follow. Chunk k starts stage h when it
  // was delivered by stage h-1 (data) and chunk k-1 has left stage h (order): sent[k][h] = max(sent[k][h-1] + a_{h-1},
  // sent[k-1][h]) + x_k/B_h, delivered = sent + a_h. The slot edges do not lengthen it for the default slot counts
  // (8 slots of one step: (slots-1) x/B of the next stage exceeds a + x/B of this one).
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
    const std::uint32_t depth = tree_shape(N, c).depth;
    for (std::uint32_t i = 0; i + 1 < ppn; ++i) stages.push_back(&costs.intra);
    for (std::uint32_t i = 0; i < 2 * depth; ++i) stages.push_back(&costs.inter);
    for (std::uint32_t i = 0; i + 1 < ppn; ++i) stages.push_back(&costs.intra);
  }
  std::vector<Time> f(stages.size(), Time{0});  // sent time of the latest chunk per stage
  for (std::uint32_t l = 0; l < part.loops; ++l) {
    Time prev{0};  // delivery of this chunk by the previous stage
    for (std::size_t h = 0; h < stages.size(); ++h) {
      f[h] = std::max(prev, f[h]) + send_time(*stages[h], xmax(l), eff);
      prev = f[h] + stages[h]->latency;
    }
  }
  return total + (stages.empty() ? Time{0} : f.back() + stages.back()->latency);
}

}  // namespace vgsim::coll
