// NCCL cost model spot checks computed by hand from docs/SOURCES.md#nccl-tuning tables (1.2-1.6, 2), selection,
// forcing, channel trimming, parameter registry and nccl-tests conventions.
#include <catch2/catch.hpp>
#include <set>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

using namespace vgsim;
using namespace vgsim::coll;
using Catch::Detail::Approx;

namespace {
CommShape hgx(std::uint32_t nodes) {
  CommShape c;
  c.nodes = nodes;
  c.ranks = 8 * nodes;
  c.intra = Link::NVLink;
  c.arch = GpuArch::Hopper;
  c.channels = 16;
  c.bw_intra_GBps = 20.0;  // per channel: assumption for the test (Hopper ladder value 20, section 1.5)
  c.bw_inter_GBps = 6.0;
  return c;
}
}  // namespace

TEST_CASE("latency formulas of section 1.4") {
  const NcclTuning t = NcclTuning::defaults();
  // 8-GPU NVLink ring allreduce LL: 6.6 + 14 x 0.6 = 15.0 us (section 1.4, derived there).
  CHECK(latency_us(t, Op::AllReduce, Algo::Ring, Proto::LL, hgx(1)) == Approx(15.0));
  // Same with Simple: 8.4 + 14 x 3.4 = 56.0 us.
  CHECK(latency_us(t, Op::AllReduce, Algo::Ring, Proto::Simple, hgx(1)) == Approx(56.0));
  // 2 nodes x 8, Simple, Intel: intra = max(3.4, 1.0 x 3) = 3.4; nsteps 30, nInter 2(N-1) = 2 at 14.0:
  // 8.4 + 28 x 3.4 + 2 x 14 = 131.6 us.
  CHECK(latency_us(t, Op::AllReduce, Algo::Ring, Proto::Simple, hgx(2)) == Approx(131.6));
  // Allgather, 2 nodes, LL: intra = max(0.6, 1.0) = 1.0 (net overhead); nsteps 15, nInter 1 at 2.7:
  // 6.6 + 14 x 1.0 + 2.7 = 23.3 us.
  CHECK(latency_us(t, Op::AllGather, Algo::Ring, Proto::LL, hgx(2)) == Approx(23.3));
  // Tree allreduce, 4 nodes x 8, LL: 6.8 + 2 x (7 x 0.6 + log2(4) x 5.0) = 35.2 us.
  CHECK(latency_us(t, Op::AllReduce, Algo::Tree, Proto::LL, hgx(4)) == Approx(35.2));
  // ppn = 1 rings use the NET/Tree value: 4 nodes x 1 GPU, LL: 6.6 + 2(N-1)=6 inter hops x 5.0 = 36.6 us.
  CommShape one = hgx(4);
  one.ranks = 4;
  CHECK(latency_us(t, Op::AllReduce, Algo::Ring, Proto::LL, one) == Approx(36.6));
  // Broadcast, same channels, one node: 6.6 + 0.6 = 7.2 us (SimAI's Ring/LL/NVLink send latency, section 4).
  CHECK(latency_us(t, Op::Broadcast, Algo::Ring, Proto::LL, hgx(1)) == Approx(7.2));
  // latencyInter is added per inter hop, twice for Simple: 2 nodes, +80 us: 131.6 + 2 x (2 x 80) = 451.6.
  NcclTuning tcpx = t;
  tcpx.set("nccl.latency_inter", 80.0);
  CHECK(latency_us(tcpx, Op::AllReduce, Algo::Ring, Proto::Simple, hgx(2)) == Approx(451.6));
}

TEST_CASE("per-hop step latencies for the engine") {
  NcclTuning t = NcclTuning::defaults();
  CHECK(hop_latency_us(t, Link::NVLink, Algo::Ring, Proto::LL) == 0.6);  // table 1.3
  CHECK(hop_latency_us(t, Link::PCIe, Algo::Ring, Proto::Simple) == 5.7);
  t.set("nccl.latency_inter", 80.0);
  CHECK(hop_latency_us(t, Link::Net, Algo::Ring, Proto::Simple) == Approx(14.0 + 2 * 80.0));  // + flush
  CHECK(hop_latency_us(t, Link::Net, Algo::Tree, Proto::LL) == Approx(5.0 + 80.0));
}

TEST_CASE("bandwidth refinements of section 1.5") {
  const NcclTuning t = NcclTuning::defaults();
  const CommShape c = hgx(1);
  // busBw = 16 ch x 20 = 320 GB/s; ring Simple algBw = 320 x 8 / 14.
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::Ring, Proto::Simple, c) == Approx(320.0 * 8 / 14));
  // Ring LL: min(llMaxBw Hopper 1 node = 141, 320 x 0.5 = 160) = 141, x 8/14.
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::Ring, Proto::LL, c) == Approx(141.0 * 8 / 14));
  // Ring LL128: min(320 x 0.92 = 294.4, 16 x 36.7 = 587.2) = 294.4, x 8/14.
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::Ring, Proto::LL128, c) == Approx(294.4 * 8 / 14));
  // Allgather ring: x n/(n-1) = 8/7.
  CHECK(bandwidth_GBps(t, Op::AllGather, Algo::Ring, Proto::Simple, c) == Approx(320.0 * 8 / 7));
  // Tree Simple, 4 nodes: busBw from bwInter 16 x 6 = 96; min(96 x 0.92, 16 x 36.0) = 88.32; algBw x 0.5 = 44.16.
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::Tree, Proto::Simple, hgx(4)) == Approx(44.16));
  // Tree LL, 4 nodes, Intel: min(96 / 3.8, llMaxBw Intel row >2 nodes 20.4) = 20.4; x 0.5 = 10.2.
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::Tree, Proto::LL, hgx(4)) == Approx(10.2));
  CHECK(bandwidth_GBps(t, Op::Broadcast, Algo::Tree, Proto::Simple, c) == 0.0);
}

TEST_CASE("time = lat + bytes / (1000 bw), with ring plateau and tree correction") {
  const NcclTuning t = NcclTuning::defaults();
  const Bytes S = 1 << 20;
  const AlgoTime a = algo_time(t, Op::AllReduce, Algo::Ring, Proto::Simple, S, hgx(1));
  CHECK(a.time_us == Approx(56.0 + S / (1000.0 * 320.0 * 8 / 14)));
  // multi-node ring Simple allreduce: S/(16 ch x 16 ranks) = 4096 >= 64 -> latency x 1.4 (Hopper).
  const AlgoTime m = algo_time(t, Op::AllReduce, Algo::Ring, Proto::Simple, S, hgx(2));
  CHECK(m.latency_us == Approx(131.6 * 1.4));
  // tree correction at 1 MiB: log2(2^20 / 64) = 14 -> Simple factor 0.5.
  const AlgoTime tr = algo_time(t, Op::AllReduce, Algo::Tree, Proto::Simple, S, hgx(4));
  CHECK(tr.bandwidth_GBps == Approx(44.16 * 0.5));
}

TEST_CASE("selection: LL for tiny, Simple for large; forcing honoured") {
  const NcclTuning t = NcclTuning::defaults();
  const CommShape c = hgx(1);
  CHECK(select(t, Op::AllReduce, 8, c).proto == Proto::LL);
  const Selection big = select(t, Op::AllReduce, Bytes{1} << 30, c);
  CHECK(big.proto == Proto::Simple);
  CHECK(big.algo == Algo::Ring);  // one node: tree busBw x0.92 x0.5 loses to ring x8/14
  const Selection forced = select(t, Op::AllReduce, Bytes{1} << 30, c, parse_allowed("Tree", "LL128"));
  CHECK(forced.algo == Algo::Tree);
  CHECK(forced.proto == Proto::LL128);
  const Selection no_ll = select(t, Op::AllReduce, 8, c, parse_allowed("", "^LL"));
  CHECK(no_ll.proto != Proto::LL);
  CommShape no128 = c;
  no128.ll128_enabled = false;
  for (Bytes b = 8; b <= (Bytes{1} << 32); b *= 4) CHECK(select(t, Op::AllReduce, b, no128).proto != Proto::LL128);
  // Tree only implements allreduce: forcing it for allgather leaves nothing to choose.
  CHECK_THROWS_WITH(select(t, Op::AllGather, 8, c, parse_allowed("tree", "")), Catch::Contains("no allowed"));
  CHECK(parse_allowed("ring,nvls", "").allows(Algo::NVLS));
  CHECK_FALSE(parse_allowed("ring,nvls", "").allows(Algo::Tree));
  // The default set holds every algorithm no record marks opt-in (NVLS Tree among them since 2026-11-29); an
  // exclusion list starts from the default set.
  CHECK(Allowed{}.allows(Algo::NVLSTree));
  CHECK(parse_allowed("nvlstree", "").forces_algo());
  CHECK(parse_allowed("^ring", "").allows(Algo::Tree));
  CHECK_FALSE(parse_allowed("^ring", "").allows(Algo::Ring));
  CHECK(parse_allowed("^ring", "").allows(Algo::NVLSTree));
  CHECK_FALSE(parse_allowed("^nvlstree", "").allows(Algo::NVLSTree));
  CHECK_THROWS_WITH(parse_allowed("ring,pat", ""), Catch::Contains("Ring, Tree, NVLS"));
}

TEST_CASE("channel trimming (enqueue.cc)") {
  const NcclTuning t = NcclTuning::defaults();
  // 1 KiB Simple ring on 16 channels: 1024 < nc x 512 x 64 for every nc -> 1 channel; then threads halve while
  // 1024 < nt x 64 and nt % 128 == 0: 512 -> 256 -> 128 -> 64 (64 % 128 != 0 stops); + 32 sync warp = 96.
  const Trimmed a = trim_channels(t, Algo::Ring, Proto::Simple, 1024, 16, 8);
  CHECK(a.channels == 1u);
  CHECK(a.threads == 96u);
  // 1 GiB keeps all 16 channels and 512 + 32 threads.
  const Trimmed b = trim_channels(t, Algo::Ring, Proto::Simple, Bytes{1} << 30, 16, 8);
  CHECK(b.channels == 16u);
  CHECK(b.threads == 544u);
  // Ring LL threshold is 8 x nranks = 64 B/thread: 1 MiB / (512 x 64) = 32 -> 16 channels stay (1 MiB >= 16x512x64).
  CHECK(trim_channels(t, Algo::Ring, Proto::LL, 1 << 20, 16, 8).channels == 16u);
  // 64 KiB: largest nc with 65536 >= nc x 32768 is 2.
  CHECK(trim_channels(t, Algo::Ring, Proto::LL, 1 << 16, 16, 8).channels == 2u);
}

TEST_CASE("parameter registry: names, get/set, versions") {
  NcclTuning t = NcclTuning::defaults("2.30");
  CHECK(t.get("nccl.hw_latency.net.ring.simple") == 14.0);
  CHECK(t.get("nccl.base_latency.tree.simple") == 8.4);
  CHECK(NcclTuning::defaults("2.18").get("nccl.base_latency.tree.simple") == 0.0);  // 1.3 drift note
  t.set("nccl.hw_latency.net.ring.simple", 20.0);
  CHECK(t.hw_latency_us[2][0][2] == 20.0);
  CHECK_THROWS_WITH(t.get("nccl.hw_latency.net.ring.simpel"),
                    Catch::Contains("did you mean 'nccl.hw_latency.net.ring.simple'"));
  CHECK_THROWS_AS(t.set("nccl.proto_efficiency.ll", -1.0), UnitError);
  CHECK_THROWS_WITH(NcclTuning::defaults("2.3"), Catch::Contains("2.4 .. 2.30"));  // test_nccl_versions.cpp
  const auto all = t.list();
  std::set<std::string> names;
  for (const auto& p : all) {
    names.insert(p.name);
    CHECK_FALSE(p.source.empty());
  }
  CHECK(names.size() == all.size());  // unique
  // 6 base + 18 hw + 3 eff + 12 ll + 12 tree + 4 ring ll128 + 12 tree ll128 + 3 ovh + 1 + 1 + 69 corr + 2 plateau
  // + 7 bw factors + 3 thresholds + 3 threads = 156, + NVLS: base, hw NVLink, 2 efficiencies, channels = 161,
  // + NVLS Tree: base, hw NVLink, hw NET, ratio coefficient = 165, + p2p: channels per net peer, min, max, batch,
  // 3 chunks, 4 NVLink rates per link = 176
  CHECK(all.size() == 176u);
  CHECK(parse_link("PCI") == Link::PCIe);
  CHECK_THROWS_WITH(parse_link("ib"), Catch::Contains("nvlink, pcie, net"));
}

TEST_CASE("nccl-tests conventions (section 2)") {
  CHECK(busbw_factor(Op::AllReduce, 8) == Approx(14.0 / 8));
  CHECK(busbw_factor(Op::AllGather, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(Op::ReduceScatter, 4) == Approx(3.0 / 4));
  CHECK(busbw_factor(Op::Broadcast, 8) == 1.0);
  CHECK(busbw_factor(Op::SendRecv, 8) == 1.0);
  CHECK(nccl_tests_size(Op::AllGather, 1024, 8) == 8192);
  CHECK(nccl_tests_size(Op::AllReduce, 1024, 8) == 1024);
  CHECK(algbw_GBps(1000000000, 1e6) == Approx(1.0));  // 1e9 B in 1 s = 1 GB/s
}
