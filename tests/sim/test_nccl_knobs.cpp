// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL as NCCL reads them (sim::parse_path_level, include/vgsim/sim/nccl_knobs.hpp):
// names, NCCL's legacy integers by version (2.5+: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS; 2.4.8: the bound of
// `distance >= level` over its enum PIX 0 .. SYS 4), out-of-range integers refused naming the option, the value and
// the range; and a forced algorithm / protocol the release lacks is an InputError.
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/nccl_knobs.hpp"

using namespace vgsim;
using topo::PathType;

TEST_CASE("path levels: names and NCCL's legacy integers by version") {
  for (const char* v : {"2.30", "2.18", "2.12", "2.8", "2.6", "2.5"}) {
    CHECK(sim::parse_path_level("0", v) == PathType::LOC);
    CHECK(sim::parse_path_level("1", v) == PathType::PIX);
    CHECK(sim::parse_path_level("2", v) == PathType::PXB);
    CHECK(sim::parse_path_level("3", v) == PathType::PHB);
    CHECK(sim::parse_path_level("4", v) == PathType::SYS);
    CHECK_THROWS_WITH(sim::parse_path_level("5", v), Catch::Contains("0..4"));
    CHECK(sim::parse_path_level("PXB", v) == PathType::PXB);
    CHECK(sim::parse_path_level("NVL", v) == PathType::NVL);
  }
  // 2.4.8: GDR off when distance >= level, enum PIX 0, PXB 1, PHB 2, NODE 3, SYS 4 (docs/SOURCES.md#nccl-versions):
  // level 2 (its default PATH_PHB) allows PIX and PXB; 4 allows up to NODE (vgsim's PHB); 5 everything.
  CHECK(sim::parse_path_level("0", "2.4") == PathType::LOC);
  CHECK(sim::parse_path_level("2", "2.4") == PathType::PXB);
  CHECK(sim::parse_path_level("4", "2.4") == PathType::PHB);
  CHECK(sim::parse_path_level("5", "2.4") == PathType::SYS);
  CHECK_THROWS_WITH(sim::parse_path_level("6", "2.4.8"), Catch::Contains("0..5"));
  for (const char* bad : {"-1", "2.5", "1e3", "+2", "pxb"})
    CHECK_THROWS_AS(sim::parse_path_level(bad, "2.18"), UnitError);
}

TEST_CASE("NcclKnobs: numeric levels reach the path options; errors name the option, value and range") {
  sim::NcclKnobs k;
  k.gdr_level = "3";
  k.p2p_level = "4";
  k.version = "2.8";
  sim::CommOptions opt;
  k.apply(opt);
  CHECK(opt.path.gdr_level == PathType::PHB);
  CHECK(opt.path.p2p_level == PathType::SYS);
  k.gdr_level = "7";
  try {
    k.apply(opt, "plan.json");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("--gdr-level") != std::string::npos);
    CHECK(m.find("7") != std::string::npos);
    CHECK(m.find("0..4") != std::string::npos);
    CHECK(m.find("plan.json") != std::string::npos);
  }
  // A bad version is named as the version, not as the level.
  k.gdr_level = "2";
  k.version = "2.3";
  CHECK_THROWS_WITH(k.apply(opt), Catch::Contains("--nccl-version"));
}

TEST_CASE("NcclKnobs: a forced algorithm or protocol the release lacks") {
  sim::CommOptions opt;
  sim::NcclKnobs k;
  k.algo = "nvls";
  k.version = "2.12";
  CHECK_THROWS_WITH(k.apply(opt), Catch::Contains("--algo") && Catch::Contains("2.17"));
  k.version = "2.17";
  CHECK_NOTHROW(k.apply(opt));
  k.algo = "nvlstree";
  CHECK_THROWS_WITH(k.apply(opt), Catch::Contains("2.18"));
  k.algo = "";
  k.proto = "ll128";
  k.version = "2.4";
  CHECK_THROWS_WITH(k.apply(opt), Catch::Contains("--proto") && Catch::Contains("2.5"));
}
