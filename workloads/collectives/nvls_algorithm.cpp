// The NVLS (NVLink SHARP) algorithm's record (algorithm_registry.hpp): allreduce on the ranks of one node behind
// its NVSwitch, Hopper or later, NCCL >= 2.17, Simple only (generator and physics in nvls.cpp). Its NCCL cost terms
// (docs/SOURCES.md#nccl-tuning: lat = base + intraLat, once per call; 1.5: busBw = intra bw x NVLS efficiency x
// (nvlsCh - 1) / nvlsCh x 2), its availability rule, its validation (switch legs: each GPU S + its shard up and
// down) and its analytical form.
#include "builtin_algorithms.hpp"
#include "nccl_model.hpp"

namespace vgsim::coll::detail {

std::string nvls_node_missing(const CommShape& c) {
  if (c.ranks / c.nodes < 2) return "a node with a single rank has nothing to reduce over its NVSwitch";
  if (!c.nvlink_p2p) return "the GPUs of a node do not talk over NVLink P2P";
  if (c.arch != GpuArch::Hopper && c.arch != GpuArch::Blackwell)
    return std::string("GPU architecture ") + to_string(c.arch) + " is older than Hopper";
  if (!c.on_nvswitch)
    return (c.off_nvswitch.empty() ? std::string("a rank") : c.off_nvswitch) + " is not a whole GPU on an NVSwitch";
  return "";
}

namespace {

CollectiveSchedule generate_nvls(Op op, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes size,
                                 const GenOptions& o) {
  // NCCL 2.19+ also runs allgather / reducescatter with NVLS; vgsim models only NVLS allreduce.
  if (op != Op::AllReduce)
    throw std::invalid_argument(std::string("nvls ") + to_string(op) +
                                ": vgsim models NVLS only for allreduce; use ring");
  return nvls_allreduce(n, ppn, size, proto, o);
}

std::string nvls_unavailable(const CommShape& c) {
  if (c.nodes != 1) return "the ranks span " + std::to_string(c.nodes) + " nodes (NVLS runs on one node; use nvlstree)";
  return nvls_node_missing(c);
}

// NCCL charges intraLat once per call (1.4); the engine's chunk chain crosses the switch kNvlsChainLegs = 4 times
// (generators.hpp), so each leg carries hw_latency / 4 and the chain costs NCCL's intraLat.
double nvls_hop_us(const NcclTuning& t, Link link, Proto proto, const CommShape&) {
  return table_hop_us(t, link, kNvlsRow, proto) / kNvlsChainLegs;
}

double nvls_latency_us(const NcclTuning& t, Op op, Proto proto, const CommShape& c) {
  if (op != Op::AllReduce)
    throw std::invalid_argument(std::string("NCCL model: NVLS is modelled only for allreduce, not ") + to_string(op));
  if (c.nodes > 1)
    throw std::invalid_argument("NCCL model: NVLS runs on one node; across nodes it is NVLS Tree (nvlstree)");
  const TableLatency l = table_latency(t, kNvlsRow, kNvlsRow, proto, c);
  return l.base + l.intra;
}

double nvls_bandwidth_GBps(const NcclTuning& t, Op, Proto proto, const CommShape& c) {
  if (proto != Proto::Simple || c.nodes > 1 || c.ranks <= 1) return 0.0;
  return nvls_alg_GBps(t, c, c.bw_intra_GBps, c.ranks);
}

// Shard r's bytes from the documented split (loopSize = channels * n * chunk, piece c*n + r is shard r's chunk):
// every GPU sends S up (its part of every reduction) plus its own reduced shard, and receives its reduced shard plus
// every multicast shard: up = down = S + block_r.
void check_nvls_bytes(const CollectiveSchedule& s, const ByteTally& b, const Fail& fail) {
  const std::uint32_t n = s.ranks;
  const Bytes S = s.size;
  if (s.op != Op::AllReduce) fail(std::string("NVLS schedule for ") + to_string(s.op) + ": only allreduce is modelled");
  const std::vector<Bytes> block = blocks(s, n);
  for (std::uint32_t r = 0; r < n; ++r) {
    if (b.sent[r] != S + block[r])
      fail("rank " + std::to_string(r) + " sends " + std::to_string(b.sent[r]) + " bytes up to the switch, expected " +
           std::to_string(S + block[r]));
    if (b.recv[r] != S + block[r])
      fail("rank " + std::to_string(r) + " receives " + std::to_string(b.recv[r]) +
           " bytes down from the switch, expected " + std::to_string(S + block[r]));
  }
}

// Switch legs only (nvls.cpp), all at the leg's per-channel rate and latency (costs.intra). Per channel and loop
// every GPU's UP and DOWN each carry (n+1) x_l: one period P_l = s((n+1) x_l). Loop 0's chain is 4 legs, 4a: its n
// reads and reduced delivery run alone (n s + s); with one loop its store and multicast run alone too (s + n s), so
// T = 4a + 2 P_0. With more loops they share UP / DOWN with loop 1's n reads / n deliveries at 1/(n+1) each and take
// a period each (2 P_0); the later loops follow at the UP / DOWN pace, one P_l each.
Time nvls_analytical(const AnalyticalCall& k, const PathCosts& costs) {
  const std::uint32_t n = k.ranks;
  const double eff = costs.payload_efficiency;
  const Partition part(k.size, k.chunk_bytes, static_cast<std::uint64_t>(k.channels) * n);
  auto xmax = [&](std::uint32_t l) { return part.piece(l, 0); };  // piece 0 is the largest of its loop
  const HopCost& h = costs.intra;
  const Bytes n1 = static_cast<Bytes>(n + 1);
  Time t = h.latency * 4 + send_time(h, n1 * xmax(0), eff) * 2;
  if (part.loops > 1) t += send_time(h, n1 * xmax(0), eff);
  for (std::uint32_t l = 1; l < part.loops; ++l) t += send_time(h, n1 * xmax(l), eff);
  return costs.base + t;
}

}  // namespace

AlgorithmInfo nvls_algorithm() {
  AlgorithmInfo a;
  a.name = "nvls";
  a.nccl_name = "NVLS";
  a.title = "NVLS";
  a.help = "nvls (allreduce on one NVSwitch node, Hopper+)";
  a.ops = {Op::AllReduce};
  a.ops_error =
      "vgsim models NVLS only for allreduce (NCCL 2.19+ also runs allgather and reducescatter with it; not "
      "modelled)";
  a.since_minor = 17;
  a.simple_only = true;
  a.max_nodes = 1;
  a.unavailable = nvls_unavailable;
  a.requirement =
      "ring or tree here (NVLS needs every rank on one node, on Hopper or later GPUs attached to that "
      "node's NVSwitch)";
  a.generate = generate_nvls;
  a.geometry = [](Op, Proto) { return nvls_geometry(); };
  a.nvls_channels = true;
  a.switch_legs = true;
  a.check_gpu_transfer = [](const CollectiveSchedule&, const Transfer&, std::size_t i) {
    return "NVLS transfer " + std::to_string(i) + " goes GPU to GPU; every NVLS transfer has the switch on one side";
  };
  a.required_bytes = [](Op, std::uint32_t n, Bytes S, std::uint32_t) {
    return 2 * static_cast<Bytes>(n + 1) * S;  // up and down legs, each (n+1)S in all
  };
  a.check_bytes = check_nvls_bytes;
  a.base_latency_us = [](const NcclTuning& t, Proto p) { return t.base_latency_us[kNvlsRow][static_cast<int>(p)]; };
  a.hop_latency_us = nvls_hop_us;
  a.latency_us = nvls_latency_us;
  a.bandwidth_GBps = nvls_bandwidth_GBps;
  // Every leg is a switch leg: NCCL's NVLS efficiency is the payload efficiency of all its flows.
  a.efficiency = [](const NcclTuning& t, const CommShape& c) {
    return LegEfficiency{t.nvls_efficiency[static_cast<int>(c.arch)], 1.0};
  };
  a.analytical = nvls_analytical;
  return a;
}

}  // namespace vgsim::coll::detail
