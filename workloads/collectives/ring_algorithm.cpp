// The ring algorithm's record (algorithm_registry.hpp): NCCL's Ring for every collective (allreduce, allgather,
// reducescatter on rings; broadcast / reduce as chains along the ring; generators in ring.cpp, chain.cpp) and the
// marker of point-to-point calls (sendrecv.cpp, alltoall.cpp), with its NCCL cost terms (tuning.cc Ring rows,
// docs/SOURCES.md#nccl-tuning), validation of the ring, chain, sendrecv and alltoall semantics, and its
// analytical forms (analytical.hpp).
#include <map>
#include <utility>

#include "builtin_algorithms.hpp"
#include "nccl_model.hpp"
#include "vgsim/workloads/collectives/ring_stream.hpp"

namespace vgsim::coll::detail {

namespace {

CollectiveSchedule generate_ring(Op op, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size,
                                 const GenOptions& o) {
  switch (op) {
    case Op::AllReduce:
      return ring_allreduce(n, ppn, size, proto, o);
    case Op::AllGather:
      return ring_allgather(n, ppn, size, proto, o);
    case Op::ReduceScatter:
      return ring_reducescatter(n, ppn, size, proto, o);
    case Op::Broadcast:
      return ring_broadcast(n, ppn, size, proto, o);
    case Op::Reduce:
      return ring_reduce(n, ppn, size, proto, o);
    case Op::SendRecv:
      return sendrecv(n, ppn, size, proto, o);
    case Op::AllToAll:
      return alltoall(n, ppn, size, proto, o);
  }
  throw std::invalid_argument("unknown collective");
}

// ---- NCCL cost model (tuning.cc Ring). The NET hop of one rank per node takes Tree's row (latencies fully exposed).
int net_row(const CommShape& c) { return c.nodes > 1 && c.ranks / c.nodes == 1 ? kTreeRow : kRingRow; }

double ring_hop_us(const NcclTuning& t, Link link, Proto proto, const CommShape& c) {
  return table_hop_us(t, link, link == Link::Net ? net_row(c) : kRingRow, proto);
}

double ring_latency_us(const NcclTuning& t, Op op, Proto proto, const CommShape& c) {
  const std::uint32_t n = c.ranks, N = c.nodes, ppn = n / N;
  const TableLatency l = table_latency(t, kRingRow, ppn == 1 ? kTreeRow : kRingRow, proto, c);
  const double inter_lat = l.inter, base = l.base;
  double intra_lat = l.intra;
  const int p = static_cast<int>(proto), intra = static_cast<int>(c.intra), net = static_cast<int>(Link::Net);
  if (op == Op::Broadcast || op == Op::Reduce) {
    const double hwl = t.hw_latency_us[N == 1 ? intra : net][kRingRow][p];
    return base + (c.same_channels ? 1.0 : static_cast<double>(n)) * hwl;
  }
  if (op == Op::SendRecv || op == Op::AllToAll) return base + (N > 1 ? inter_lat : intra_lat);  // one hop (assumption)
  const double nsteps = op == Op::AllReduce ? 2.0 * (n - 1) : n - 1.0;
  const double ninter = N > 1 ? (op == Op::AllReduce ? 2.0 * (N - 1) : N - 1.0) : 0.0;
  if (N > 1) {
    const double ovh =
        t.net_overhead_us[static_cast<int>(c.cpu)] * (proto == Proto::Simple ? t.net_overhead_simple_factor : 1.0);
    intra_lat = std::max(intra_lat, ovh);
  }
  return base + (nsteps - ninter) * intra_lat + ninter * inter_lat;
}

double ring_bandwidth_GBps(const NcclTuning& t, Op op, Proto proto, const CommShape& c) {
  const std::uint32_t n = c.ranks;
  const int arch = static_cast<int>(c.arch);
  const double nch = c.channels;
  double bus = graph_bus_GBps(c, false);
  if (proto == Proto::LL) bus = std::min(ll_max_GBps(t, c), bus * t.ring_ll_bw_factor);
  if (proto == Proto::LL128) bus = std::min(bus * t.ring_ll128_bw_factor, nch * t.per_ch_max_ring_ll128_bw_GBps[arch]);
  if (op == Op::SendRecv) return bus;
  // AllToAll [derived; NCCL's model has no p2p]: bus as the per-rank rate, algBw = busBw n / (n-1) (nccl-tests).
  if (op == Op::AllToAll) return n <= 1 ? bus : bus * n / (n - 1.0);
  const double nsteps = op == Op::AllReduce                                ? 2.0 * (n - 1)
                        : (op == Op::AllGather || op == Op::ReduceScatter) ? n - 1.0
                                                                           : n;
  return n <= 1 ? bus : bus * n / nsteps;
}

// 1.1: the ring plateau multiplies the latency of multi-node Simple allreduce once every rank's share is >= 64 B.
void ring_size_terms(const NcclTuning& t, Op op, Proto proto, Bytes bytes, const CommShape& c, AlgoTime& r) {
  if (proto == Proto::Simple && c.nodes > 1 && op == Op::AllReduce &&
      bytes / (static_cast<Bytes>(c.channels) * c.ranks) >= 64)
    r.latency_us *= t.ring_plateau_factor[c.arch == GpuArch::Volta ? 0 : 1];
}

// ---- validation: sendrecv r -> r+1, alltoall blocks, rings and chains along ring_order.
void check_sendrecv(const CollectiveSchedule& s, const ByteTally& b, const Fail& fail) {
  const std::uint32_t n = s.ranks;
  for (const Transfer& t : s.transfers)
    if (t.dst != (t.src + 1) % n) {
      fail("sendrecv transfer " + std::to_string(t.src) + "->" + std::to_string(t.dst) + " is not r -> r+1");
      break;
    }
  for (std::uint32_t r = 0; r < n; ++r)
    if (b.recv[r] != s.size)
      fail("rank " + std::to_string(r) + " receives " + std::to_string(b.recv[r]) + ", expected " +
           std::to_string(s.size));
}

// Rank r sends block d of its buffer (S/n, the first S % n blocks one byte more) to every d != r: each pair (r, d)
// carries block_d, so r sends S - block_r and receives (n-1) block_r.
void check_alltoall(const CollectiveSchedule& s, const Fail& fail) {
  const std::uint32_t n = s.ranks;
  const Bytes S = s.size;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Bytes> pair;
  for (const Transfer& t : s.transfers) pair[{t.src, t.dst}] += t.bytes;
  auto block = [&](std::uint32_t d) { return S / n + (static_cast<Bytes>(d) < S % n ? 1 : 0); };
  for (std::uint32_t r = 0; r < n; ++r)
    for (std::uint32_t d = 0; d < n; ++d) {
      if (r == d) continue;
      const auto it = pair.find({r, d});
      const Bytes got = it == pair.end() ? 0 : it->second;
      if (got != block(d))
        fail("alltoall pair " + std::to_string(r) + "->" + std::to_string(d) + " carries " + std::to_string(got) +
             " bytes, expected " + std::to_string(block(d)));
    }
}

// Rings and chains: every transfer goes from a position to the next one in ring_order.
void check_ring(const CollectiveSchedule& s, const ByteTally& b, const Fail& fail) {
  const std::uint32_t n = s.ranks;
  const Bytes S = s.size;
  if (s.ring_order.size() != n) {
    fail("ring schedule without a ring_order of " + std::to_string(n) + " ranks");
    return;
  }
  std::vector<std::uint32_t> pos(n, 0);
  for (std::uint32_t p = 0; p < n; ++p) pos[s.ring_order[p]] = p;
  for (const Transfer& t : s.transfers)
    if (pos[t.dst] != (pos[t.src] + 1) % n) {
      fail("transfer " + std::to_string(t.src) + "->" + std::to_string(t.dst) + " does not follow the ring");
      break;
    }
  if (s.op == Op::Broadcast || s.op == Op::Reduce) {
    // Broadcast: each non-root receives S. Reduce: each rank but the chain start (root's ring successor) receives S.
    const std::uint32_t idle = s.op == Op::Broadcast ? s.root : s.ring_order[(pos[s.root] + 1) % n];
    for (std::uint32_t r = 0; r < n; ++r) {
      const Bytes want = r == idle ? 0 : S;
      if (b.recv[r] != want)
        fail("rank " + std::to_string(r) + " receives " + std::to_string(b.recv[r]) + ", expected " +
             std::to_string(want));
    }
    return;
  }
  const std::vector<Bytes> block = blocks(s, n);
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t r = s.ring_order[p];
    // allreduce: position p receives every block but p (reduce-scatter) and every block but p+1 (allgather);
    // allgather / reducescatter: every block but its own.
    const Bytes want = s.op == Op::AllReduce ? 2 * S - block[p] - block[(p + 1) % n] : S - block[p];
    if (b.recv[r] != want)
      fail("rank " + std::to_string(r) + " receives " + std::to_string(b.recv[r]) + ", expected " +
           std::to_string(want));
  }
}

void check_ring_bytes(const CollectiveSchedule& s, const ByteTally& b, const Fail& fail) {
  if (s.op == Op::SendRecv) return check_sendrecv(s, b, fail);
  if (s.op == Op::AllToAll) return check_alltoall(s, fail);
  check_ring(s, b, fail);
}

// ---- analytical forms (analytical.hpp).
// The ring's own recurrence (ring_stream.hpp's dependency rule) over (send u = step x S + slice, ring position p),
// with every piece of loop l at its largest size x_l and slice s of it ring_slice_bytes(x_l, s): start(u, p) =
// max(sent(u-S, p-1) + a_{p-1} [data, not at a loop's first step], sent(u-1, p) [order], sent(u-R+S, p+1) [buffer,
// R = slots x S]), sent = start + x / B_p. The hop classes repeat around the ring with some period P (ppn for the
// node-major order), and so does the state, so only P positions are tracked: O(loops x nsteps x S x P). One loop,
// one class, one slice: 2(n-1)(a + S/(nB)).
Time ring_blocks_time(const AnalyticalCall& k, const PathCosts& costs) {
  const std::uint32_t n = k.ranks, ppn = k.ranks_per_node;
  const double eff = costs.payload_efficiency;
  const Partition part(k.size, k.chunk_bytes, static_cast<std::uint64_t>(k.channels) * n);
  const std::uint32_t nsteps = ring_steps(k.op, n);
  std::vector<const HopCost*> hop(n);
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t a = k.order[p], b = k.order[(p + 1) % n];
    hop[p] = a / ppn == b / ppn ? &costs.intra : &costs.inter;
  }
  std::uint32_t period = n;
  for (std::uint32_t q = 1; q < n; ++q) {
    if (n % q != 0) continue;
    bool ok = true;
    for (std::uint32_t p = 0; p < n && ok; ++p) ok = hop[p] == hop[(p + q) % n];
    if (ok) {
      period = q;
      break;
    }
  }
  const std::uint32_t P = period, S = std::max(1u, k.slices), room = k.slots * S, W = room + S;
  std::vector<std::vector<Time>> sent(W, std::vector<Time>(P, Time{0}));  // sent(u', .) for the last W sends
  std::vector<Time> cur(P);
  const std::uint64_t sends = static_cast<std::uint64_t>(part.loops) * nsteps * S;
  Bytes last = 0;  // the last send's bytes
  for (std::uint64_t u = 0; u < sends; ++u) {
    const std::uint64_t g = u / S;
    const Bytes x = ring_slice_bytes(part.piece(static_cast<std::uint32_t>(g / nsteps), 0),  // piece 0: the largest
                                     static_cast<std::uint32_t>(u % S), S, k.chunk_bytes);
    last = x;
    const bool has_a = g % nsteps != 0;
    const bool has_c = u >= room && ((u - room) / S) % nsteps != nsteps - 1;
    const std::vector<Time>& prev = sent[(u + W - 1) % W];         // send u-1
    const std::vector<Time>& data = sent[(u + W - S) % W];         // send u-S
    const std::vector<Time>& back = sent[(u + W - room + S) % W];  // send u-room+S
    for (std::uint32_t p = 0; p < P; ++p) {
      const std::uint32_t pm = (p + P - 1) % P, pn = (p + 1) % P;
      Time start{0};
      if (has_a) start = std::max(start, data[pm] + hop_latency(*hop[pm], x, eff));
      if (u > 0) start = std::max(start, prev[p]);
      if (has_c) start = std::max(start, back[pn]);
      cur[p] = start + send_time(*hop[p], x, eff);
    }
    sent[u % W] = cur;
  }
  Time end{0};
  if (sends > 0)
    for (std::uint32_t p = 0; p < P; ++p)
      end = std::max(end, sent[(sends - 1) % W][p] + hop_latency(*hop[p], last, eff));
  return costs.base + end;
}

// sendrecv: only order dependencies, the sends stream back to back, then one latency: base + sum_l max_h s_h(x_l) + a.
Time sendrecv_time(const AnalyticalCall& k, const PathCosts& costs) {
  const bool has_intra = k.ranks_per_node > 1, has_inter = k.ranks / k.ranks_per_node > 1;
  const double eff = costs.payload_efficiency;
  const Partition part(k.size, k.chunk_bytes, k.channels);
  Time total = costs.base;
  for (std::uint32_t l = 0; l < part.loops; ++l) {
    Time t{0};
    if (has_intra) t = std::max(t, send_time(costs.intra, part.piece(l, 0), eff));
    if (has_inter) t = std::max(t, send_time(costs.inter, part.piece(l, 0), eff));
    total += t;
  }
  return total + std::max(has_intra ? costs.intra.latency : Time{0}, has_inter ? costs.inter.latency : Time{0});
}

// broadcast / reduce: the chain of n-1 hops along the ring order (as chain.cpp builds it) as a pipeline.
Time chain_time(const AnalyticalCall& k, const PathCosts& costs) {
  const std::uint32_t n = k.ranks, ppn = k.ranks_per_node;
  std::uint32_t root_pos = 0;
  for (std::uint32_t p = 0; p < n; ++p)
    if (k.order[p] == k.root) root_pos = p;
  const std::uint32_t start = k.op == Op::Broadcast ? root_pos : (root_pos + 1) % n;
  std::vector<const HopCost*> stages;
  for (std::uint32_t h = 0; h + 1 < n; ++h) {
    const std::uint32_t a = k.order[(start + h) % n], b = k.order[(start + h + 1) % n];
    stages.push_back(a / ppn == b / ppn ? &costs.intra : &costs.inter);
  }
  return costs.base + pipeline_time(stages, Partition(k.size, k.chunk_bytes, k.channels), costs.payload_efficiency);
}

Time ring_analytical(const AnalyticalCall& k, const PathCosts& costs) {
  if (k.op == Op::AllReduce || k.op == Op::AllGather || k.op == Op::ReduceScatter) return ring_blocks_time(k, costs);
  if (k.op == Op::SendRecv) return sendrecv_time(k, costs);
  return chain_time(k, costs);
}

}  // namespace

AlgorithmInfo ring_algorithm() {
  AlgorithmInfo a;
  a.name = "ring";
  a.nccl_name = "Ring";
  a.title = "Ring";
  a.help = "ring";
  a.ops = {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast, Op::Reduce, Op::SendRecv, Op::AllToAll};
  a.generate = generate_ring;
  a.geometry = ring_geometry;
  a.check_bytes = check_ring_bytes;
  a.base_latency_us = [](const NcclTuning& t, Proto p) { return t.base_latency_us[kRingRow][static_cast<int>(p)]; };
  a.hop_latency_us = ring_hop_us;
  a.latency_us = ring_latency_us;
  a.bandwidth_GBps = ring_bandwidth_GBps;
  a.size_terms = ring_size_terms;
  a.ll_threshold_per_rank = true;
  a.simple_sync_threads = 32;
  a.analytical = ring_analytical;
  a.mean_hop_latency = true;  // the chain crosses every hop of a class in turn
  return a;
}

}  // namespace vgsim::coll::detail
