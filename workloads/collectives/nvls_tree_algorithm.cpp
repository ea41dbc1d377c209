// The NVLS Tree algorithm's record (algorithm_registry.hpp): allreduce across >= 2 nodes of Hopper+ GPUs behind
// each node's NVSwitch, NCCL >= 2.18 (NCCL_ALGO=NVLSTree), Simple only (generator and physics in nvls_tree.cpp).
// Its NCCL cost terms (docs/SOURCES.md#nccl-tuning: lat = base + intraLat + 2 log2(N) interLat; bandwidth [derived],
// nccl_tuning.hpp), its availability rule (NVLS's per node), its validation (switch legs per node, one node tree per
// channel and local index), its per-call chunk (enqueue.cc) and its analytical form. In NCCL's default choice (see
// below). Its schedules are streamed (nvls_tree_stream.hpp): 16 GiB on 2 x 8 GPUs is 1.2 M transfers at 512 KiB.
#include "builtin_algorithms.hpp"
#include "nccl_model.hpp"

namespace vgsim::coll::detail {

namespace {

CollectiveSchedule generate_nvls_tree(Op op, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size,
                                      const GenOptions& o) {
  if (op != Op::AllReduce)
    throw std::invalid_argument(std::string("nvlstree ") + to_string(op) +
                                ": NCCL's NVLS Tree only implements allreduce; use ring");
  return nvls_tree_allreduce(n, ppn, size, proto, o);
}

std::string nvls_tree_unavailable(const CommShape& c) {
  if (c.nodes < 2) return "the ranks are on one node (NCCL turns NVLS Tree off on one node; use nvls)";
  return nvls_node_missing(c);
}

// NVLS's intraLat is once per call in NCCL's model, spread over the chain's switch legs; each network hop of its
// tree carries interLat as in 2 log2(N) interLat.
double nvls_tree_hop_us(const NcclTuning& t, Link link, Proto proto, const CommShape&) {
  double v = table_hop_us(t, link, kNvlsTreeRow, proto);
  if (link != Link::Net) v /= kNvlsChainLegs;
  return v;
}

double nvls_tree_latency_us(const NcclTuning& t, Op op, Proto proto, const CommShape& c) {
  if (op != Op::AllReduce)
    throw std::invalid_argument(std::string("NCCL model: NVLS Tree does not implement ") + to_string(op));
  if (c.nodes < 2)
    throw std::invalid_argument("NCCL model: NVLS Tree needs 2 or more nodes (NCCL turns it off on one node)");
  const TableLatency l = table_latency(t, kNvlsTreeRow, kNvlsTreeRow, proto, c);
  return l.base + l.intra + 2.0 * log2i(c.nodes) * l.inter;
}

// [derived] The reference states no NVLSTree bandwidth at HEAD: NVLS on one node's ppn GPUs at the tree graph's
// intra speed, bounded by the network, on N > 2 nodes at NCCL 2.18.3's NVLSTree ratio (see nccl_tuning.hpp).
double nvls_tree_bandwidth_GBps(const NcclTuning& t, Op, Proto proto, const CommShape& c) {
  const std::uint32_t N = c.nodes, ppn = c.ranks / N;
  if (proto != Proto::Simple || N < 2 || ppn < 2) return 0.0;
  const double intra_alg = nvls_alg_GBps(t, c, c.tree_bw_intra_GBps > 0 ? c.tree_bw_intra_GBps : c.bw_intra_GBps, ppn);
  const double ratio = N <= 2 ? 1.0 : t.nvls_tree_ratio_coeff * N / (2.0 * (N - 1));
  return std::min(intra_alg, c.channels * c.bw_inter_GBps * ratio);
}

// enqueue.cc (NCCL 2.18-2.19, computeColl's NVLS_TREE branch; recalled, not in the stored reference [verify]): with
// concurrentOps = nChannels x nvls.nHeads (the node's local ranks here: one NVLS head, one shard, per local GPU),
// the step-sized chunk is lowered to 256 KiB when size < 32 x concurrentOps x chunk, then to 128 KiB when
// size < 16 x concurrentOps x chunk, to 64 KiB when < 4 x, to 32 KiB when < 1 x, each test on the chunk the previous
// one left. On 2 x 8 GPUs with 16 channels (concurrentOps 128): 512 KiB from 2 GiB, 256 KiB from 512 MiB, 128 KiB
// from 64 MiB, 64 KiB from 8 MiB, 32 KiB below.
Bytes nvls_tree_call_chunk(Bytes chunk, Bytes size, std::uint32_t channels, std::uint32_t ranks_per_node) {
  const auto ops = static_cast<Bytes>(channels) * static_cast<Bytes>(ranks_per_node);
  constexpr struct { Bytes times, to; } kSteps[] = {{32, 256 * KiB}, {16, 128 * KiB}, {4, 64 * KiB}, {1, 32 * KiB}};
  for (const auto& step : kSteps)
    if (size < step.times * ops * chunk && chunk > step.to) chunk = step.to;
  return chunk;
}

std::uint32_t local_ranks(const CollectiveSchedule& s) { return s.ranks_per_node == 0 ? s.ranks : s.ranks_per_node; }

std::string check_nvls_tree_layout(const CollectiveSchedule& s) {
  const std::uint32_t n = s.ranks, ppn = local_ranks(s);
  if (ppn == 0 || n % ppn != 0)
    return "NVLS Tree schedule: ranks_per_node " + std::to_string(ppn) + " does not divide " + std::to_string(n) +
           " ranks";
  return "";
}

std::string check_nvls_tree_transfer(const CollectiveSchedule& s, const Transfer& t, std::size_t i) {
  const std::uint32_t n = s.ranks, ppn = local_ranks(s);
  if (t.src >= n || t.dst >= n || t.src / ppn == t.dst / ppn || t.src % ppn != t.dst % ppn)
    return "NVLS Tree transfer " + std::to_string(i) + " goes GPU to GPU but not between one local index on two nodes";
  return "";
}

Bytes nvls_tree_required_bytes(Op, std::uint32_t n, Bytes S, std::uint32_t ppn) {
  if (ppn == 0 || n % ppn != 0)
    throw std::invalid_argument("required_total_bytes: NVLS Tree needs ranks_per_node dividing the ranks");
  const Bytes N = n / ppn;
  return N * 2 * static_cast<Bytes>(ppn + 1) * S + 2 * (N - 1) * S;  // switch legs per node + tree edges
}

// Switch legs per GPU r of local index k: up = down = S + block_k (nvls_tree.cpp). Network, per (channel, k): one
// node tree over the GPUs k of all nodes; its root sends nothing up (step 2), and every GPU ends with shard k's
// result: bytes received down (step 3) + bytes of the channels it roots = block_k, likewise sent up.
void check_nvls_tree_bytes(const CollectiveSchedule& s, const ByteTally&, const Fail& fail) {
  const std::uint32_t n = s.ranks, ppn = local_ranks(s);
  const Bytes S = s.size;
  if (s.op != Op::AllReduce)
    fail(std::string("NVLS Tree schedule for ") + to_string(s.op) + ": only allreduce is modelled");
  const std::vector<Bytes> block = blocks(s, ppn);
  const std::uint32_t N = n / ppn;
  std::vector<Bytes> up_sw(n, 0), down_sw(n, 0), up_net(n, 0), down_net(n, 0), rooted(n, 0);
  std::vector<Bytes> ch_up(static_cast<std::size_t>(s.channels) * ppn, 0);
  std::vector<char> sends_up(static_cast<std::size_t>(s.channels) * n, 0);
  for (const Transfer& t : s.transfers) {
    if (t.dst == kSwitchRank)
      up_sw[t.src] += t.bytes;
    else if (t.src == kSwitchRank)
      down_sw[t.dst] += t.bytes;
    else if (t.step == 2) {
      up_net[t.src] += t.bytes;
      ch_up[static_cast<std::size_t>(t.channel) * ppn + t.src % ppn] += t.bytes;
      sends_up[static_cast<std::size_t>(t.channel) * n + t.src] = 1;
    } else
      down_net[t.dst] += t.bytes;
  }
  for (std::uint32_t c = 0; c < s.channels; ++c)
    for (std::uint32_t k = 0; k < ppn; ++k) {
      int roots = 0;
      for (std::uint32_t x = 0; x < N; ++x)
        if (!sends_up[static_cast<std::size_t>(c) * n + x * ppn + k]) {
          ++roots;
          rooted[x * ppn + k] += ch_up[static_cast<std::size_t>(c) * ppn + k] / (N - 1);
        }
      if (roots != 1)
        fail("NVLS Tree channel " + std::to_string(c) + " local " + std::to_string(k) + " has " +
             std::to_string(roots) + " roots");
    }
  for (std::uint32_t r = 0; r < n; ++r) {
    const Bytes want = S + block[r % ppn];
    if (up_sw[r] != want)
      fail("rank " + std::to_string(r) + " sends " + std::to_string(up_sw[r]) + " bytes up to the switch, expected " +
           std::to_string(want));
    if (down_sw[r] != want)
      fail("rank " + std::to_string(r) + " receives " + std::to_string(down_sw[r]) +
           " bytes down from the switch, expected " + std::to_string(want));
    if (down_net[r] + rooted[r] != block[r % ppn])
      fail("rank " + std::to_string(r) + " ends with " + std::to_string(down_net[r] + rooted[r]) +
           " bytes of its shard's result, expected " + std::to_string(block[r % ppn]));
    if (up_net[r] + rooted[r] != block[r % ppn])
      fail("rank " + std::to_string(r) + " contributes " + std::to_string(up_net[r] + rooted[r]) +
           " bytes of its node's partial shard, expected " + std::to_string(block[r % ppn]));
  }
}

// Switch legs at costs.intra (per-channel payload rate of a GPU's UP / DOWN), network legs at costs.inter
// (nvls_tree.cpp). Per channel and loop a GPU's UP and DOWN carry (n_l+1) x_l, P_l = s_i((n_l+1) x_l), and its
// network path at most deg x_l per direction (deg: most tree edges at one node, 1 for 2 nodes), Q_l = s_n(deg x_l).
// Loop 0's reduce-scatter (4a_i / 2 + P_0 as in NVLS) and its D tree levels up and down (2D (a_n + s_n(x_0)),
// D: the deepest node); then the legs stay busy: each later loop adds the slower pace, max(P_l, Q_l), and the last
// loop's allgather its P (the other 2a_i). One loop: 4a_i + 2 P_0 + 2D (a_n + s_n(x_0)). (Until 2026-11-29 the form
// added one more period for the first sharing, as NVLS's; the engine's fill at 128 and 512 KiB chunks on 2 x 8 H100,
// 3.95 P and 2.73 P, sits between the two forms at 128 KiB and close to this one at 512 KiB.)
Time nvls_tree_analytical(const AnalyticalCall& k, const PathCosts& costs) {
  const std::uint32_t ppn = k.ranks_per_node;
  const double eff = costs.payload_efficiency;
  const Partition part(k.size, k.chunk_bytes, static_cast<std::uint64_t>(k.channels) * ppn);
  auto xmax = [&](std::uint32_t l) { return part.piece(l, 0); };  // piece 0 is the largest of its loop
  const TreeShape ts = tree_shape(k.ranks / ppn, k.channels);
  const std::uint32_t depth = ts.depth, deg = ts.degree;
  const HopCost &hi = costs.intra, &hn = costs.inter;
  const Bytes n1 = static_cast<Bytes>(ppn + 1);
  auto pace = [&](Bytes x) { return std::max(send_time(hi, n1 * x, eff), send_time(hn, deg * x, eff)); };
  Time t = hi.latency * 4 + send_time(hi, n1 * xmax(0), eff) + (hn.latency + send_time(hn, xmax(0), eff)) * (2 * depth);
  for (std::uint32_t l = 1; l < part.loops; ++l) t += pace(xmax(l));
  return costs.base + t + send_time(hi, n1 * xmax(part.loops - 1), eff);
}

}  // namespace

AlgorithmInfo nvls_tree_algorithm() {
  AlgorithmInfo a;
  a.name = "nvlstree";
  a.nccl_name = "NVLSTree";
  a.title = "NVLS Tree";
  a.help = "nvlstree (allreduce across Hopper+ NVSwitch nodes)";
  a.ops = {Op::AllReduce};
  a.ops_error = "NCCL's NVLS Tree exists only for allreduce";
  a.since_minor = 18;
  a.simple_only = true;
  a.min_nodes = 2;
  // In NCCL's default choice since 2026-11-29 (issue 16 item 3). It was opt-in while the engine was slow on its
  // schedules (2026-11-25: the p5 sweep 8 B-1 GiB took 10.3 s instead of 0.11 s); deferred finish events, route
  // groups and the streamed NVLS Tree (sessions 30-33) brought it to seconds, and enqueue.cc's per-call chunk
  // (nvls_tree_call_chunk: 512 KiB steps instead of 128 KiB from 2 GiB on 2 x 8) cut the p5 table's fit from 151-193 s
  // to ~40 s (3.9 s without NVLS Tree; docs/BENCHMARKS.md, session 34). The measurements it is offered for say it runs
  // there: p5's 16 GiB allreduce reaches 487 GB/s bus bandwidth, above what a ring bounded by 3,200 Gb/s per node can
  // (400 GB/s), and with it in the choice the fitted physical parameters alone reach a median error of 4-5 % on p5
  // and 6-8 % on a3mega, against 21-24 % and 62-64 % without it.
  a.unavailable = nvls_tree_unavailable;
  a.requirement =
      "ring or tree here (NVLS Tree needs 2 or more nodes with the same rank count, each rank a Hopper or "
      "later GPU attached to its node's NVSwitch)";
  a.generate = generate_nvls_tree;
  a.geometry = [](Op, Proto) { return nvls_tree_geometry(); };
  a.call_chunk = nvls_tree_call_chunk;
  a.nvls_channels = true;
  a.even_channels = true;
  a.switch_legs = true;
  a.check_layout = check_nvls_tree_layout;
  a.check_gpu_transfer = check_nvls_tree_transfer;
  a.required_bytes = nvls_tree_required_bytes;
  a.check_bytes = check_nvls_tree_bytes;
  a.base_latency_us = [](const NcclTuning& t, Proto p) { return t.base_latency_us[kNvlsTreeRow][static_cast<int>(p)]; };
  a.hop_latency_us = nvls_tree_hop_us;
  a.latency_us = nvls_tree_latency_us;
  a.bandwidth_GBps = nvls_tree_bandwidth_GBps;
  // Switch legs at NCCL's NVLS efficiency, network legs at the protocol's.
  a.efficiency = [](const NcclTuning& t, const CommShape& c) {
    return LegEfficiency{1.0, t.nvls_efficiency[static_cast<int>(c.arch)]};
  };
  a.analytical = nvls_tree_analytical;
  return a;
}

}  // namespace vgsim::coll::detail
