// vgsim compare: two plan points that differ only in GPUDirect; the comparison names the differing parameter.
#include <catch2/catch.hpp>
#include <sstream>

#include "common.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/compare.hpp"

using namespace vgsim;
using namespace vgsim::sim::planning;

TEST_CASE("compare names the parameter that differs", "[planning]") {
  const auto dir = test::scratch_dir("compare");
  const std::string plan = test::write_json(dir / "plan.json", test::small_plan());
  // Points 2 and 6: nodes 2, 25gbe; gdr_disable false vs true (gdr_disable is the first, slowest axis: 4 points).
  const Json a = load_design(plan + "#2"), b = load_design(plan + "#6");
  const Json c = compare_designs(a, "A", b, "B");
  bool named = false;
  for (const auto& d : c["differences"]) {
    const std::string n = d["name"].get<std::string>();
    CHECK(n.find("nodes") == std::string::npos);  // same nodes on both sides
    named = named || n == "plan.gdr_disable";
  }
  CHECK(named);
  std::ostringstream md;
  write_compare_markdown(md, c);
  CHECK(md.str().find("plan.gdr_disable") != std::string::npos);
  CHECK(md.str().find("| limited by | ") != std::string::npos);
  CHECK(md.str().find("busiest link while communicating") != std::string::npos);
  // The same design twice: nothing differs, throughput ratio 1.
  const Json same = compare_designs(a, "A", a, "A");
  CHECK(same["differences"].empty());
  CHECK(same["ratio_throughput"].get<double>() == Approx(1.0));
  // Bad inputs: an out-of-range point, a JSON file that is not a train report.
  CHECK_THROWS_AS(load_design(plan + "#99"), InputError);
  CHECK_THROWS_AS(compare_designs(Json{{"tool", "other"}}, "x.json", a, "A"), InputError);
}
