// Cluster validation: one test per kind of error. Each error must name the file, the JSON path, the bad value and
// what was expected, and must be an InputError (never a crash).
#include <catch2/catch.hpp>

#include "default_catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

using namespace vgsim;
using namespace vgsim::topo;

using vgsim::topo::test::cat;

namespace {

// A valid two-host cluster; each test breaks one thing in it.
Json base() {
  return Json::parse(R"({
    "name": "t", "host_templates": {"h": {
      "cpu": "xeon-gold-6338", "sockets": 2,
      "pcie_switches": [{"name": "sw0", "gen": "gen4", "lanes": 16, "attach": "socket0"}],
      "gpus": [{"name": "gpu0", "model": "a100-pcie-40gb", "attach": "sw0"},
               {"name": "gpu1", "model": "a100-pcie-40gb", "attach": "sw0"},
               {"name": "gpu2", "model": "a100-pcie-40gb", "attach": "socket1"}],
      "nvlink_bridges": [["gpu0", "gpu1"]],
      "nics": [{"name": "nic0", "model": "connectx-6-dx-100g", "ports": 2, "attach": "sw0"}]}},
    "hosts": [{"template": "h", "count": 2}],
    "fabric": {"type": "switch", "link_latency": "20ns", "switch_latency": "0.5us"}})");
}

// Loads `j` and returns the error message; fails the test if it loads.
std::string error_of(const Json& j) {
  try {
    Cluster::from_json(j, "bad.json", cat());
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}
}  // namespace

TEST_CASE("the base cluster is valid", "[validation]") {
  const Cluster c = Cluster::from_json(base(), "ok.json", cat());
  CHECK(c.gpus().size() == 6);
  CHECK(c.nics().size() == 4);
}

TEST_CASE("unknown keys are rejected with a did-you-mean", "[validation]") {
  Json j = base();
  j["host_templates"]["h"]["nvlink_bridge"] = j["host_templates"]["h"]["nvlink_bridges"];  // typo of an optional key
  const std::string e = error_of(j);
  CHECK_THAT(e, Catch::Contains("bad.json"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h"));
  CHECK_THAT(e, Catch::Contains("nvlink_bridge"));
  CHECK_THAT(e, Catch::Contains("did you mean 'nvlink_bridges'"));
  Json g = base();
  g["host_templates"]["h"]["gpus"][0]["modle"] = "x";  // an extra key next to the real one
  CHECK_THAT(error_of(g), Catch::Contains("$.host_templates.h.gpus[0].modle"));
  CHECK_THAT(error_of(g), Catch::Contains("did you mean 'model'"));
  Json k = base();
  k["fabrik"] = Json::object();
  CHECK_THAT(error_of(k), Catch::Contains("fabric"));
}

TEST_CASE("bad units name the value and the accepted units", "[validation]") {
  Json j = base();
  j["fabric"]["link_latency"] = "20 parsecs";
  const std::string e = error_of(j);
  CHECK_THAT(e, Catch::Contains("$.fabric.link_latency"));
  CHECK_THAT(e, Catch::Contains("20 parsecs"));
  Json k = base();
  k["fabric"]["switch_latency"] = 5;  // a bare number has no unit
  CHECK_THAT(error_of(k), Catch::Contains("unit"));
  Json m = base();
  m["host_templates"]["h"]["memory_bandwidth"] = "200 furlongs";
  CHECK_THAT(error_of(m), Catch::Contains("$.host_templates.h.memory_bandwidth"));
}

TEST_CASE("dangling references: unknown switch, unknown model, unknown template", "[validation]") {
  Json j = base();
  j["host_templates"]["h"]["gpus"][1]["attach"] = "sw1";
  std::string e = error_of(j);
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.gpus[1].attach"));
  CHECK_THAT(e, Catch::Contains("sw1"));
  CHECK_THAT(e, Catch::Contains("did you mean 'sw0'"));

  Json k = base();
  k["host_templates"]["h"]["gpus"][0]["model"] = "a100-pcie-40";
  e = error_of(k);
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.gpus[0].model"));
  CHECK_THAT(e, Catch::Contains("did you mean 'a100-pcie-40gb'"));

  Json m = base();
  m["host_templates"]["h"]["nics"][0]["model"] = "connectx-6-dx-100";
  CHECK_THAT(error_of(m), Catch::Contains("did you mean 'connectx-6-dx-100g'"));

  Json n = base();
  n["hosts"][0]["template"] = "hh";
  CHECK_THAT(error_of(n), Catch::Contains("$.hosts[0].template"));

  Json b = base();
  b["host_templates"]["h"]["nvlink_bridges"] = Json::parse(R"([["gpu0", "gpu9"]])");
  CHECK_THAT(error_of(b), Catch::Contains("gpu9"));
}

TEST_CASE("impossible wiring", "[validation]") {
  SECTION("a GPU on two PCIe switches") {
    Json j = base();
    j["host_templates"]["h"]["gpus"][0]["attach"] = Json::parse(R"(["sw0", "socket1"])");
    const std::string e = error_of(j);
    CHECK_THAT(e, Catch::Contains("$.host_templates.h.gpus[0].attach"));
    CHECK_THAT(e, Catch::Contains("exactly one"));
  }
  SECTION("an NVLink bridge joining three GPUs") {
    Json j = base();
    j["host_templates"]["h"]["nvlink_bridges"] = Json::parse(R"([["gpu0", "gpu1", "gpu2"]])");
    const std::string e = error_of(j);
    CHECK_THAT(e, Catch::Contains("$.host_templates.h.nvlink_bridges[0]"));
    CHECK_THAT(e, Catch::Contains("exactly two GPUs"));
  }
  SECTION("a bridge listing a GPU twice") {
    Json j = base();
    j["host_templates"]["h"]["nvlink_bridges"] = Json::parse(R"([["gpu0", "gpu0"]])");
    CHECK_THAT(error_of(j), Catch::Contains("same GPU twice"));
  }
  SECTION("a GPU in two bridges with more links than it has") {
    // Each bridge takes the model's whole link count by default, so gpu1 would have twice its links.
    Json j = base();
    j["host_templates"]["h"]["nvlink_bridges"] = Json::parse(R"([["gpu0", "gpu1"], ["gpu1", "gpu2"]])");
    CHECK_THAT(error_of(j), Catch::Contains("NVLink links in all its bridges"));
  }
  SECTION("one GPU pair bridged twice") {
    Json j = base();
    j["host_templates"]["h"]["nvlink_bridges"] = Json::parse(R"([["gpu0", "gpu1"], ["gpu1", "gpu0"]])");
    CHECK_THAT(error_of(j), Catch::Contains("already bridged"));
  }
  SECTION("more bridge links than the GPU has") {
    Json j = base();
    j["host_templates"]["h"]["nvlink_bridges"] = Json::parse(R"([{"gpus": ["gpu0", "gpu1"], "links": 13}])");
    const std::string e = error_of(j);
    CHECK_THAT(e, Catch::Contains("links"));
    CHECK_THAT(e, Catch::Contains("at most 12"));
  }
  SECTION("a NIC port count exceeding the model") {
    Json j = base();
    j["host_templates"]["h"]["nics"][0]["ports"] = 3;
    const std::string e = error_of(j);
    CHECK_THAT(e, Catch::Contains("$.host_templates.h.nics[0].ports"));
    CHECK_THAT(e, Catch::Contains("at most 2"));
  }
  SECTION("a socket index beyond the CPU count") {
    Json j = base();
    j["host_templates"]["h"]["sockets"] = 1;
    CHECK_THAT(error_of(j), Catch::Contains("socket1"));
  }
  SECTION("several hosts without a fabric") {
    Json j = base();
    j.erase("fabric");
    CHECK_THAT(error_of(j), Catch::Contains("$.fabric"));
  }
}

TEST_CASE("duplicated names", "[validation]") {
  Json j = base();
  j["host_templates"]["h"]["gpus"][1]["name"] = "gpu0";
  std::string e = error_of(j);
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.gpus[1].name"));
  CHECK_THAT(e, Catch::Contains("duplicated"));

  Json k = base();
  k["host_templates"]["h"]["nics"][0]["name"] = "sw0";  // one namespace for switches, GPUs and NICs
  CHECK_THAT(error_of(k), Catch::Contains("duplicated"));

  Json m = base();
  m["hosts"] = Json::parse(R"([{"template": "h", "name": "a"}, {"template": "h", "name": "a"}])");
  e = error_of(m);
  CHECK_THAT(e, Catch::Contains("$.hosts[1].name"));
  CHECK_THAT(e, Catch::Contains("duplicated host name"));
}

TEST_CASE("malformed JSON files report line and column, missing files their path", "[validation]") {
  CHECK_THROWS_AS(Cluster::load("/nonexistent/cluster.json", cat()), InputError);
  CHECK_THROWS_AS(Cluster::from_json(Json::array(), "arr.json", cat()), InputError);
}
