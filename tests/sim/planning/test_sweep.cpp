// Sweeps: the final CSV is byte-identical whatever the thread count; resume skips finished points (from the final
// CSV or from the journal) and still gives the same file; costs follow the price formula.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/sweep.hpp"

using namespace vgsim;
using namespace vgsim::sim::planning;

TEST_CASE("sweep CSV is deterministic and resume skips finished points", "[planning]") {
  const auto dir = test::scratch_dir("sweep");
  const SweepPlan plan = parse_plan(test::small_plan(), (dir / "plan.json").string());
  SweepOptions o;
  o.out = (dir / "a.csv").string();
  o.jobs = 1;
  const SweepResult a = run_sweep(plan, o);
  REQUIRE(a.ran == 8);
  for (const auto& r : a.results) CHECK(r.error.empty());
  const std::string csv = test::read_text(o.out);
  CHECK(csv == a.csv);
  CHECK(!std::filesystem::exists(o.out + ".journal"));  // removed once the final CSV is written
  // Header + 8 rows.
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 9);

  // Same plan on 2 threads: byte-identical file.
  o.out = (dir / "b.csv").string();
  o.jobs = 2;
  CHECK(run_sweep(plan, o).csv == csv);
  CHECK(test::read_text(o.out) == csv);

  // Resume over a complete file: nothing runs, same file.
  o.resume = true;
  const SweepResult c = run_sweep(plan, o);
  CHECK(c.ran == 0);
  CHECK(c.skipped == 8);
  CHECK(test::read_text(o.out) == csv);
  CHECK(c.results[3].throughput == Approx(a.results[3].throughput).epsilon(1e-6));

  // Interrupted run: only a journal with the header and rows 0, 5 and 6 (completion order) exists.
  std::filesystem::remove(o.out);
  std::istringstream lines(csv);
  std::string line, journal;
  for (int i = 0; std::getline(lines, line); ++i)
    if (i == 0 || i == 1 || i == 6 || i == 7) journal += line + "\n";
  std::ofstream(o.out + ".journal") << journal;
  const SweepResult d = run_sweep(plan, o);
  CHECK(d.skipped == 3);
  CHECK(d.ran == 5);
  CHECK(test::read_text(o.out) == csv);

  // A results file from a different plan (other columns) is refused on resume.
  std::ofstream(o.out) << "index,point_id,label,other\n";
  CHECK_THROWS_AS(run_sweep(plan, o), InputError);
}

TEST_CASE("cost = gpu x GPUs + host x hosts + (nic_port + switch_port) x cabled NIC ports", "[planning]") {
  const SweepPlan plan = parse_plan(test::small_plan(), "plan.json");
  SweepOptions o;
  o.jobs = 1;
  const SweepResult r = run_sweep(plan, o);
  // Point 2: 2 hosts x 1 GPU on r750xa-2x-25gbe; each host's dual-port NIC is cabled twice (presets README) = 4 ports:
  // 2 x 10000 + 2 x 15000 + 4 x (500 + 200) = 52800.
  const PointResult& p = r.results[2];
  CHECK(p.gpus == 2);
  CHECK(p.hosts == 2);
  CHECK(p.nic_ports == 4);
  CHECK(p.cost == Approx(52800));
  CHECK(p.cost_per_throughput == Approx(52800 / p.throughput));
  // The Pareto front never holds a point that another beats on both cost and throughput.
  for (std::size_t i = 0; i < r.results.size(); ++i)
    for (std::size_t k = 0; k < r.results.size(); ++k)
      if (r.pareto[i] && r.results[k].cost <= r.results[i].cost && r.results[k].throughput > r.results[i].throughput)
        FAIL("point " << i << " on the front is dominated by " << k);
}
