// The tree algorithm's record (algorithm_registry.hpp): NCCL's double binary tree allreduce (generator in tree.cpp),
// its NCCL cost terms (tuning.cc Tree rows, docs/SOURCES.md#nccl-tuning: latency, bus bandwidth and the
// size-dependent tree correction), its validation (every rank ends with every byte) and its analytical form (the
// deepest leaf-root-leaf path as a pipeline).
#include "builtin_algorithms.hpp"
#include "nccl_model.hpp"

namespace vgsim::coll::detail {

namespace {

CollectiveSchedule generate_tree(Op op, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size,
                                 const GenOptions& o) {
  if (op != Op::AllReduce)
    throw std::invalid_argument(std::string("tree ") + to_string(op) +
                                ": NCCL's Tree algorithm only implements allreduce; use ring");
  return tree_allreduce(n, ppn, size, proto, o);
}

// 1.4: 2 x ((ppn - 1) intra hops + log2(N) inter hops), up and down.
double tree_latency_us(const NcclTuning& t, Op op, Proto proto, const CommShape& c) {
  if (op != Op::AllReduce)
    throw std::invalid_argument(std::string("NCCL model: Tree does not implement ") + to_string(op));
  const std::uint32_t n = c.ranks, N = c.nodes, ppn = n / N;
  const TableLatency l = table_latency(t, kTreeRow, kTreeRow, proto, c);
  return l.base + 2.0 * ((ppn - 1) * l.intra + log2i(N) * l.inter);
}

// 1.5: the tree graph's bus bandwidth with the protocol's factor and per-channel cap, algBw = busBw x 0.5.
double tree_bandwidth_GBps(const NcclTuning& t, Op, Proto proto, const CommShape& c) {
  const int arch = static_cast<int>(c.arch), col = nodes_col(c.nodes);
  const double nch = c.channels, ll_max = ll_max_GBps(t, c);
  double bus = graph_bus_GBps(c, true);
  if (proto == Proto::Simple) bus = std::min(bus * t.tree_bw_factor, nch * t.per_ch_max_tree_bw_GBps[arch][col]);
  if (proto == Proto::LL) bus = std::min(bus / t.tree_ll_bw_divisor, ll_max);
  if (proto == Proto::LL128)
    bus = std::min(bus * (c.nodes == 1 ? t.tree_ll128_bw_factor_one_node : t.tree_ll128_bw_factor),
                   nch * t.per_ch_max_tree_ll128_bw_GBps[arch][col]);
  return bus * t.tree_algbw_ratio;
}

// 1.1: the tree correction factor by log2(bytes / 64).
void tree_size_terms(const NcclTuning& t, Op, Proto proto, Bytes bytes, const CommShape&, AlgoTime& r) {
  const int lg = log2i(static_cast<std::uint64_t>(std::max<Bytes>(bytes, 0)) >> 6);
  if (lg >= 0 && lg < 23) r.bandwidth_GBps *= t.tree_correction[static_cast<int>(proto)][lg];
}

// Per channel: the root is the one rank that sends nothing up (step 0). Every rank must end up with every byte:
// bytes received down (step 1) + bytes of the channels it roots == S; likewise bytes sent up + rooted == S.
void check_tree_bytes(const CollectiveSchedule& s, const ByteTally&, const Fail& fail) {
  const std::uint32_t n = s.ranks;
  const Bytes S = s.size;
  std::vector<Bytes> ch_up(s.channels, 0);
  std::vector<std::vector<char>> sends_up(s.channels, std::vector<char>(n, 0));
  std::vector<Bytes> down_recv(n, 0), up_sent(n, 0);
  for (const Transfer& t : s.transfers) {
    if (t.step == 0) {
      ch_up[t.channel] += t.bytes;
      sends_up[t.channel][t.src] = 1;
      up_sent[t.src] += t.bytes;
    } else
      down_recv[t.dst] += t.bytes;
  }
  std::vector<Bytes> rooted(n, 0);
  for (std::uint32_t c = 0; c < s.channels; ++c) {
    int roots = 0;
    for (std::uint32_t r = 0; r < n; ++r)
      if (!sends_up[c][r]) {
        ++roots;
        rooted[r] += ch_up[c] / (n - 1);
      }
    if (roots != 1) fail("tree channel " + std::to_string(c) + " has " + std::to_string(roots) + " roots");
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    if (down_recv[r] + rooted[r] != S)
      fail("rank " + std::to_string(r) + " ends with " + std::to_string(down_recv[r] + rooted[r]) +
           " result bytes, expected " + std::to_string(S));
    if (up_sent[r] + rooted[r] != S)
      fail("rank " + std::to_string(r) + " contributes " + std::to_string(up_sent[r] + rooted[r]) +
           " bytes, expected " + std::to_string(S));
  }
}

// The deepest path = (ppn-1) chain hops + node-tree depth inter hops, up then down, as a pipeline of chunks.
Time tree_analytical(const AnalyticalCall& k, const PathCosts& costs) {
  const std::uint32_t ppn = k.ranks_per_node;
  const std::uint32_t depth = tree_shape(k.ranks / ppn, k.channels).depth;
  std::vector<const HopCost*> stages;
  for (std::uint32_t i = 0; i + 1 < ppn; ++i) stages.push_back(&costs.intra);
  for (std::uint32_t i = 0; i < 2 * depth; ++i) stages.push_back(&costs.inter);
  for (std::uint32_t i = 0; i + 1 < ppn; ++i) stages.push_back(&costs.intra);
  return costs.base + pipeline_time(stages, Partition(k.size, k.chunk_bytes, k.channels), costs.payload_efficiency);
}

}  // namespace

AlgorithmInfo tree_algorithm() {
  AlgorithmInfo a;
  a.name = "tree";
  a.nccl_name = "Tree";
  a.title = "Tree";
  a.help = "tree";
  a.ops = {Op::AllReduce};
  a.ops_error = "the tree algorithm exists only for allreduce";
  // NCCL 2.4.8 computes a tree threshold of 0 on one node: no default tree there (forcing it still runs it).
  a.offered_by_default = [](const NcclTuning& t, const CommShape& c) { return c.nodes >= 2 || t.tree_on_one_node; };
  a.generate = generate_tree;
  a.even_channels = true;
  a.check_bytes = check_tree_bytes;
  a.base_latency_us = [](const NcclTuning& t, Proto p) { return t.base_latency_us[kTreeRow][static_cast<int>(p)]; };
  a.hop_latency_us = [](const NcclTuning& t, Link link, Proto p, const CommShape&) {
    return table_hop_us(t, link, kTreeRow, p);
  };
  a.latency_us = tree_latency_us;
  a.bandwidth_GBps = tree_bandwidth_GBps;
  a.size_terms = tree_size_terms;
  a.analytical = tree_analytical;
  return a;
}

}  // namespace vgsim::coll::detail
