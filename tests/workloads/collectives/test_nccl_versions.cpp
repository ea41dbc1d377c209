// NCCL tuning tables by release (workloads/collectives/nccl_versions.cpp): a known release's constants are the
// reference's (each check cites docs/SOURCES.md#nccl-versions, "by-version", and the NCCL
// file:line it copies), an approximated release says so in one line, the availability rules (no LL128 in 2.4, no
// trees on one node in 2.4, no NVLS before 2.17) hold in the argmin, and versions before 2.4 are refused.
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

using namespace vgsim;
using namespace vgsim::coll;

namespace {
CommShape nodes_of(std::uint32_t nodes, std::uint32_t ppn, GpuArch arch) {
  CommShape c;  // per-channel bandwidths: assumptions of the test (section 1.5 ladder values)
  c.nodes = nodes;
  c.ranks = nodes * ppn;
  c.intra = Link::NVLink;
  c.arch = arch;
  c.channels = 8;
  c.bw_intra_GBps = 20.0;
  c.bw_inter_GBps = 12.0;
  return c;
}
std::string source_of(const NcclTuning& t, const std::string& name) {
  for (const auto& p : t.list())
    if (p.name == name) return p.source;
  return "";
}
}  // namespace

TEST_CASE("NCCL versions: the release spelling and the supported range") {
  CHECK(parse_nccl_minor("2.4") == 4);
  CHECK(parse_nccl_minor("2.18.3") == 18);
  CHECK(parse_nccl_minor("2.18.3-1") == 18);
  CHECK(parse_nccl_minor("2.30") == 30);
  for (const char* bad : {"2.3", "2.3.7", "1.3", "3.0", "2.31", "2", "2.", "abc", "2.18.x", ""})
    CHECK_THROWS_WITH(parse_nccl_minor(bad), Catch::Contains("2.4 .. 2.30"));
  CHECK_THROWS_AS(NcclTuning::defaults("2.3"), UnitError);
  for (int m = 4; m <= 30; ++m) CHECK_NOTHROW(NcclTuning::defaults("2." + std::to_string(m)));
}

TEST_CASE("NCCL versions: known releases carry the reference's constants") {
  const NcclTuning v26 = NcclTuning::defaults("2.6");
  CHECK(v26.get("nccl.base_latency.ring.ll128") == 3.6);      // by-version section 2: v2.6.4 tuning.cc:60
  CHECK(v26.get("nccl.hw_latency.net.tree.simple") == 50.0);  // section 3: v2.6.4 tuning.cc:67-74 NET Tree 5/7.5/50
  CHECK(v26.get("nccl.hw_latency.net.ring.simple") == 6.6);
  CHECK(v26.get("nccl.bw_factor.ring_ll") == 0.25);         // section 5: 2.6.4 tuning.cc:106-121 Ring LL x 1/4
  CHECK(v26.get("nccl.bw_factor.tree_ll_divisor") == 3.0);  // Tree LL x 1/3
  CHECK(v26.get("nccl.ring_plateau.ampere_plus") == 1.0);   // no plateau before 2.8.4
  CHECK(v26.get("nccl.tree_correction.simple.16") == 0.5);  // 2.6.4 treeCorrectionFactor Simple entry 16
  const NcclTuning v28 = NcclTuning::defaults("2.8");
  CHECK(v28.get("nccl.base_latency.ring.ll128") == 10.0);    // section 2: v2.8.4 tuning.cc:56 Ring 3.6/10.0/8.4
  CHECK(v28.get("nccl.hw_latency.net.ring.simple") == 9.6);  // section 3: v2.8.4 tuning.cc:63-70 NET Ring 2.7/4.0/9.6
  CHECK(v28.get("nccl.hw_latency.nvlink.tree.ll") == 0.52);
  CHECK(v28.get("nccl.per_ch_max_ring_ll128_bw.ampere") == 16.9);       // section 4: v2.8.4 tuning.cc:74 AllReduce 16.9
  CHECK(v28.get("nccl.per_ch_max_tree_bw.ampere.nodes3plus") == 16.0);  // tuning.cc:76 Ampere {24.0, 22.5, 16.0}
  CHECK(v28.get("nccl.net_overhead.intel") == 0.0);                     // NCCL_NET_OVERHEAD only from 2.18 (section 5)
  CHECK(source_of(v28, "nccl.hw_latency.net.ring.simple").find("v2.8.4-1 src/graph/tuning.cc:63-70") !=
        std::string::npos);
  const NcclTuning v212 = NcclTuning::defaults("2.12.12");
  CHECK(v212.get("nccl.hw_latency.net.ring.simple") == 28.0);  // section 3: v2.12.12 tuning.cc:63-70 NET Ring Simple 28
  CHECK(v212.get("nccl.per_ch_max_ring_ll128_bw.hopper") == 20.0);   // section 4: v2.12.12 tuning.cc:73 scalar 20.0
  CHECK(v212.get("nccl.per_ch_max_tree_bw.ampere.nodes2") == 23.6);  // tuning.cc:75
  const NcclTuning v218 = NcclTuning::defaults("2.18");
  CHECK(v218.get("nccl.hw_latency.pcie.tree.simple") == 6.0);  // section 3: v2.18.3 tuning.cc:65-78 PCI Tree 1.0/1.9/6
  CHECK(v218.get("nccl.base_latency.nvls.simple") == 23.0);    // section 2: v2.18.3 tuning.cc:56-59 NVLS 0/0/23.0
  CHECK(v218.get("nccl.hw_latency.net.nvlstree.simple") == 19.0);  // section 3: NET NVLSTree 0/0/19
  CHECK(v218.get("nccl.ll_max_bw.hopper.nodes1") == 87.7);         // section 4: v2.18.3 tuning.cc:86-90 Hopper-N1 87.7
  CHECK(v218.get("nccl.per_ch_max_tree_ll128_bw.hopper.nodes3plus") == 29.0);  // tuning.cc:97-101 {36.7, 36.7, 29.0}
  CHECK(v218.get("nccl.base_latency.tree.simple") == 0.0);
  // 2.30 (HEAD) keeps its own tables and states nothing.
  const NcclTuning head = NcclTuning::defaults("2.30");
  CHECK(head.approximation.empty());
  CHECK(head.get("nccl.hw_latency.pcie.tree.simple") == 4.0);  // docs/SOURCES.md#nccl-tuning (HEAD)
}

TEST_CASE("NCCL versions: an approximated release says what it borrows") {
  const NcclTuning v27 = NcclTuning::defaults("2.7");
  CHECK(v27.approximation.find("NCCL 2.7: tuning constants of 2.8.4 (2.7's are not in the reference)") == 0);
  CHECK(v27.get("nccl.hw_latency.net.ring.simple") == 9.6);  // 2.8.4's
  CHECK(NcclTuning::defaults("2.14").approximation.find("tuning constants of 2.12.12 (2.14's") != std::string::npos);
  CHECK(NcclTuning::defaults("2.16").approximation.find("tuning constants of 2.18.3 (2.16's") != std::string::npos);
  CHECK(NcclTuning::defaults("2.16").approximation.find("no NVLS") != std::string::npos);
  CHECK(NcclTuning::defaults("2.26").approximation.find("tuning constants of 2.30 HEAD (2.26's") != std::string::npos);
  CHECK(NcclTuning::defaults("2.26").get("nccl.base_latency.tree.simple") == 0.0);
  const NcclTuning v24 = NcclTuning::defaults("2.4");
  CHECK(v24.approximation.find("2.4.8 has no tuning model") != std::string::npos);
  CHECK(v24.approximation.find("no LL128") != std::string::npos);
  CHECK(v24.approximation.find("trees only across nodes") != std::string::npos);
  // Every release below 2.30 says something (at least where its formula differs from vgsim's 2.18+ form).
  for (int m = 4; m < 30; ++m)
    CHECK(NcclTuning::defaults("2." + std::to_string(m)).approximation.find("NCCL 2." + std::to_string(m) + ": ") == 0);
}

TEST_CASE("NCCL versions: availability in the argmin") {
  // 2.4: no LL128, and no tree on one node unless forced (2.4.8 computes a tree threshold of 0 there).
  const NcclTuning v24 = NcclTuning::defaults("2.4");
  const CommShape one = nodes_of(1, 8, GpuArch::Volta), two = nodes_of(2, 8, GpuArch::Volta);
  for (Bytes b : {Bytes{8}, Bytes{1} << 16, Bytes{1} << 24, Bytes{1} << 30}) {
    const Selection s1 = select(v24, Op::AllReduce, b, one);
    CHECK(s1.proto != Proto::LL128);
    CHECK(s1.algo == Algo::Ring);
    CHECK(select(v24, Op::AllReduce, b, two).proto != Proto::LL128);
  }
  CHECK(select(v24, Op::AllReduce, 1 << 20, one, parse_allowed("Tree", "")).algo == Algo::Tree);  // forced
  CHECK_THROWS(select(v24, Op::AllReduce, 1 << 20, one, parse_allowed("", "LL128")));             // no LL128 at all
  // 2.6: LL128 on by default on Volta only (2.6.4 tuning.cc:163-166); forcing enables it elsewhere.
  const NcclTuning v26 = NcclTuning::defaults("2.6");
  const CommShape amp = nodes_of(1, 8, GpuArch::Ampere);
  for (Bytes b = 8; b <= (Bytes{1} << 30); b *= 8) CHECK(select(v26, Op::AllReduce, b, amp).proto != Proto::LL128);
  CHECK(select(v26, Op::AllReduce, 1 << 20, amp, parse_allowed("", "LL128")).proto == Proto::LL128);
  // NVLS: none before 2.17, even where the communicator supports it.
  CommShape hop = nodes_of(1, 8, GpuArch::Hopper);
  hop.nvlink_p2p = hop.on_nvswitch = true;
  CHECK(select(NcclTuning::defaults("2.18"), Op::AllReduce, Bytes{1} << 30, hop).algo == Algo::NVLS);
  for (const char* v : {"2.12", "2.16"})
    for (Bytes b = 8; b <= (Bytes{1} << 30); b *= 8)
      CHECK(select(NcclTuning::defaults(v), Op::AllReduce, b, hop).algo != Algo::NVLS);
}
