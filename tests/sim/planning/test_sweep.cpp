// Sweeps: the final CSV is byte-identical whatever the thread count; resume skips finished points (from the final
// CSV or from the journal) and still gives the same file; costs follow the price formula.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/journal.hpp"
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

  // Interrupted run: only a journal with the records of points 0, 5 and 6 (completion order) exists.
  std::filesystem::remove(o.out);
  std::ofstream(o.out + ".journal") << journal_text(csv.substr(0, csv.find('\n') + 1), "fidelity step",
                                                    {a.results[0], a.results[5], a.results[6]});
  const SweepResult d = run_sweep(plan, o);
  CHECK(d.skipped == 3);
  CHECK(d.ran == 5);
  CHECK(test::read_text(o.out) == csv);

  // A results file from a different plan (other columns) is refused on resume.
  std::ofstream(o.out) << "index,point_id,label,other\n";
  CHECK_THROWS_AS(run_sweep(plan, o), InputError);

  // Issue 40: a results file or journal of another fidelity is refused, not mixed in ("0 run now, 8 resumed" with
  // every row analytical was the finding). The run key (fidelity; SweepOptions::run_key) is in the journal's K record.
  std::ofstream(o.out) << csv;
  o.fidelity = Fidelity::Analytical;
  CHECK_THROWS_WITH(run_sweep(plan, o), Catch::Contains("column fidelity") && Catch::Contains("--fidelity step"));
  std::filesystem::remove(o.out);
  std::ofstream(o.out + ".journal") << journal_text(csv.substr(0, csv.find('\n') + 1), "fidelity step", {a.results[0]});
  CHECK_THROWS_WITH(run_sweep(plan, o), Catch::Contains("another run") && Catch::Contains("fidelity step"));
  o.fidelity.reset();
  o.run_key = "vgsim 9.9; data 0123456789abcdef";  // the CLI's: another version or other data files
  CHECK_THROWS_WITH(run_sweep(plan, o), Catch::Contains("another run"));
  o.run_key.clear();
  // A journal of an older format (no run key) is refused with what to do.
  std::ofstream(o.out + ".journal") << "vgsim-sweep-journal 1\n";
  CHECK_THROWS_WITH(run_sweep(plan, o), Catch::Contains("older vgsim") && Catch::Contains("without --resume"));
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

TEST_CASE("the sweep journal is a checksummed write-ahead log: damaged records are dropped and re-run", "[planning]") {
  // CRC-32 check value of the IEEE 802.3 polynomial (as zlib's crc32): crc32("123456789") = 0xcbf43926.
  CHECK(crc32("123456789") == 0xcbf43926u);
  const auto dir = test::scratch_dir("journal");
  const SweepPlan plan = parse_plan(test::small_plan(), (dir / "plan.json").string());
  SweepOptions o;
  o.out = (dir / "full.csv").string();
  o.jobs = 1;
  const SweepResult full = run_sweep(plan, o);
  std::ostringstream full_summary;
  write_sweep_summary(full_summary, plan, full);
  const std::string header = full.csv.substr(0, full.csv.find('\n') + 1);
  // The journal of points 0..5 in completion order; each damage below hits one record (or the tail).
  const std::string intact = journal_text(
      header, "fidelity step",
      {full.results[0], full.results[1], full.results[2], full.results[3], full.results[4], full.results[5]});
  auto line_start = [&](int k) {  // byte offset of line k (0 = magic, 1 = header, 2 = run key, 3.. = records)
    std::size_t at = 0;
    for (int i = 0; i < k; ++i) at = intact.find('\n', at) + 1;
    return at;
  };
  struct Damage {
    const char* what;
    std::string journal;
    std::size_t dropped;  // damaged lines the reader must skip
  };
  std::string flipped = intact, short_len = intact;
  flipped[line_start(5) + 40] ^= 0x01;       // one bit of record 2's payload
  short_len.insert(line_start(4) + 2, "1");  // record 1's length off by 10^k
  const std::vector<Damage> cases = {
      {"torn tail (cut inside the last record)", intact.substr(0, intact.size() - 25), 1},
      {"one flipped bit inside a record", flipped, 1},
      {"a wrong payload length", short_len, 1},
      {"intact", intact, 0},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    std::ofstream((dir / "j").string(), std::ios::binary) << c.journal;
    const JournalContents jc = read_journal((dir / "j").string(), header, "fidelity step");
    CHECK(jc.dropped == c.dropped);
    CHECK(jc.results.size() == 6 - c.dropped);
    o.out = (dir / "resumed.csv").string();
    o.resume = true;
    std::filesystem::remove(o.out);
    std::ofstream(o.out + ".journal", std::ios::binary) << c.journal;
    const SweepResult r = run_sweep(plan, o);
    CHECK(r.ran == 8 - (6 - c.dropped));  // dropped records' points run again
    CHECK(test::read_text(o.out) == full.csv);
    std::ostringstream summary;
    write_sweep_summary(summary, plan, r);
    CHECK(summary.str() == full_summary.str());  // full-precision values, whichever path they came by
    // The resumed values are bit-identical to the uninterrupted run's, not just equal when printed.
    for (std::size_t i = 0; i < r.results.size(); ++i) CHECK(r.results[i].throughput == full.results[i].throughput);
  }
  // Not a journal, or a journal of another plan: refused (a resume must not mix plans).
  std::ofstream(o.out + ".journal") << "index,point_id,label\n0,abc,x\n";
  CHECK_THROWS_WITH(run_sweep(plan, o), Catch::Contains("not a vgsim sweep journal"));
  std::ofstream(o.out + ".journal") << journal_text("index,point_id,label,other\n", "fidelity step", {});
  CHECK_THROWS_WITH(run_sweep(plan, o), Catch::Contains("different plan"));
}
