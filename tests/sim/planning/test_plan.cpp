// Sweep plans: validation errors name the file, the JSON path and the value; expansion counts and order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "common.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/plan.hpp"

using namespace vgsim;
using namespace vgsim::sim::planning;

namespace {
std::string error_of(const Json& j) {
  try {
    parse_plan(j, "plan.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("plan validation errors name file, JSON path and value", "[planning]") {
  Json j = test::small_plan();
  j["grid"]["batch_per_gpux"] = {64};
  std::string e = error_of(j);
  CHECK(e.find("plan.json") != std::string::npos);
  CHECK(e.find("grid.batch_per_gpux") != std::string::npos);
  CHECK(e.find("batch_per_gpu") != std::string::npos);  // did you mean

  j = test::small_plan();
  j["grid"]["nodes"] = Json::array();
  e = error_of(j);
  CHECK(e.find("grid.nodes") != std::string::npos);
  CHECK(e.find("non-empty array") != std::string::npos);

  j = test::small_plan();
  j["base"]["precision"] = {{"x", 1}};
  e = error_of(j);
  CHECK(e.find("base.precision") != std::string::npos);
  CHECK(e.find("scalar") != std::string::npos);

  j = test::small_plan();
  j["base"]["cluster"] = "r750xa-{nodes}x-{var.nick}";
  e = error_of(j);
  CHECK(e.find("{var.nick}") != std::string::npos);
  CHECK(e.find("var.nic") != std::string::npos);

  j = test::small_plan();
  j["fidelty"] = "analytical";  // unknown top-level key
  e = error_of(j);
  CHECK(e.find("fidelty") != std::string::npos);

  j = test::small_plan();
  j["base"].erase("cluster");
  e = error_of(j);
  CHECK(e.find("cluster") != std::string::npos);

  CHECK(error_of(test::small_plan()).empty());
}

TEST_CASE("grid x list expansion count and order", "[planning]") {
  Json j = test::small_plan();
  SweepPlan p = parse_plan(j, "plan.json");
  // grid: 2 nodes x 2 nics x 2 gdr = 8 points.
  REQUIRE(point_count(p) == 8);
  auto pts = expand(p);
  REQUIRE(pts.size() == 8);
  // Axes in sorted name order (gdr_disable, nodes, var.nic), the last fastest: point 1 = gdr off, nodes 1, 100gbe?
  // sorted: "gdr_disable" < "nodes" < "var.nic"; point 1 changes var.nic only: 25gbe -> 100gbe.
  CHECK(pts[0].params.at("cluster") == "r750xa-1x-25gbe");
  CHECK(pts[1].params.at("cluster") == "r750xa-1x-100gbe");
  CHECK(pts[2].params.at("cluster") == "r750xa-2x-25gbe");
  CHECK(pts[4].params.at("gdr_disable") == true);

  // A list of 3 entries times the grid: 3 x 8 = 24 points; list entries are the outer loop.
  j["list"] = Json::parse(R"([{"label": "a"}, {"label": "b", "precision": "fp32"}, {"label": "c"}])");
  p = parse_plan(j, "plan.json");
  CHECK(point_count(p) == 24);
  pts = expand(p);
  CHECK(pts[8].label == "b");
  CHECK(pts[8].params.at("precision") == "fp32");
  CHECK(pts[16].label == "c");

  // Ids: stable (same plan, same ids) and distinct for distinct parameters.
  const auto again = expand(parse_plan(j, "other.json"));
  std::set<std::string> ids;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    CHECK(pts[i].id == again[i].id);
    ids.insert(pts[i].id);
  }
  CHECK(ids.size() == 24);
}

TEST_CASE("a point becomes a JobSpec: job fields direct, parameters as name=value pairs", "[planning]") {
  const SweepPlan p = parse_plan(test::small_plan(), "plan.json");
  const auto pts = expand(p);
  const auto spec = to_job_spec(p, pts[7]);  // nodes 2, 100gbe, gdr off
  CHECK(spec.cluster == "r750xa-2x-100gbe");
  CHECK(spec.nodes == 2);
  CHECK(spec.gpus_per_node == 1);
  // batch_per_gpu, framework, precision and the NCCL knobs gdr_disable, gdr_level (the plan aliases of
  // nccl.gdr_disable, nccl.gdr_level) -> five name=value pairs for the job's parameter registry (var.* and job fields
  // are not passed on).
  CHECK(spec.sets.size() == 5);
  for (const char* kv : {"batch_per_gpu=256", "gdr_disable=true", "gdr_level=SYS"})
    CHECK(std::find(spec.sets.begin(), spec.sets.end(), kv) != spec.sets.end());
}
