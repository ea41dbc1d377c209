// `vgsim sweep` under `mpiexec -np 2` (label "mpi", registered only when vgsim is built with MPI and mpiexec is
// found): the CSV and stdout are byte-identical to one process; points really run on rank 1; --resume under MPI runs
// only the unfinished points and gives the same file; a bad plan is reported once, by rank 0, and the job exits with
// status 2 (the ctest TIMEOUT turns a hang into a failure).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../run_command.hpp"
#include "common.hpp"
#include "vgsim/sim/planning/journal.hpp"
#include "vgsim/sim/planning/run_key.hpp"
#include "vgsim/sim/planning/sweep.hpp"

namespace {

struct Run {
  int status;
  std::string out, err;  // stdout, stderr
};

Run run(const std::string& args, const std::filesystem::path& dir) {
  const std::string err_file = (dir / "stderr.txt").string();
  const auto r = vgsim::test::run_command(args + " 2>" + err_file);
  return {r.status, r.out, vgsim::test::read_text(err_file)};
}

const std::string kVgsim = VGSIM_EXE;
const std::string kMpi = std::string(VGSIM_MPIEXEC) + " --oversubscribe --allow-run-as-root -np 2 " + kVgsim;

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("mpiexec -np 2 vgsim sweep writes the single-process CSV byte for byte", "[planning][mpi]") {
  const auto dir = vgsim::test::scratch_dir("sweep-mpi");
  const std::string plan = vgsim::test::write_json(dir / "plan.json", vgsim::test::small_plan());
  const std::string csv = (dir / "r.csv").string();
  const std::string args = " sweep " + plan + " --out " + csv + " --jobs 1";

  const Run one = run(kVgsim + args + " --quiet", dir);
  REQUIRE(one.status == 0);
  const std::string expected = vgsim::test::read_text(csv);
  // Header + the 8 points of small_plan (2 x 2 x 2 grid).
  REQUIRE(std::count(expected.begin(), expected.end(), '\n') == 9);

  SECTION("rank 0 only coordinates: rank 1 runs all 8 points, results travel back exactly") {
    std::filesystem::remove(csv);
    const Run mpi = run(kMpi + args + " --rank0-jobs 0 --progress", dir);
    INFO(mpi.err);
    REQUIRE(mpi.status == 0);
    CHECK(vgsim::test::read_text(csv) == expected);
    CHECK(mpi.out == one.out);  // the ranked summary too (it reads the full-precision results)
    CHECK(mpi.err.find("points run per rank: 0:0 1:8") != std::string::npos);
    CHECK(!std::filesystem::exists(csv + ".journal"));
  }

  SECTION("both ranks run points") {
    std::filesystem::remove(csv);
    const Run mpi = run(kMpi + args + " --quiet", dir);
    INFO(mpi.err);
    REQUIRE(mpi.status == 0);
    CHECK(vgsim::test::read_text(csv) == expected);
    CHECK(mpi.out == one.out);
  }

  SECTION("--resume under MPI runs only the points missing from the journal") {
    // Interrupted run: the journal holds the records of points 0, 5 and 6 (completion order), as one process
    // would have written them (the same plan run as a library sweep).
    std::filesystem::remove(csv);
    using namespace vgsim::sim::planning;
    SweepOptions o;
    o.jobs = 1;
    const SweepResult lib = run_sweep(load_plan(plan), o);
    REQUIRE(lib.csv == expected);
    std::ofstream(csv + ".journal") << journal_text(expected.substr(0, expected.find('\n') + 1),
                                                    "fidelity step; " + sweep_run_key(),
                                                    {lib.results[0], lib.results[5], lib.results[6]});
    const Run mpi = run(kMpi + args + " --resume --rank0-jobs 0 --progress", dir);
    INFO(mpi.err);
    REQUIRE(mpi.status == 0);
    CHECK(vgsim::test::read_text(csv) == expected);
    // 8 points - 3 journaled = 5 run, all by rank 1.
    CHECK(mpi.out.find("8 point(s), 0 with errors") != std::string::npos);
    CHECK(mpi.err.find("5 point(s) run now, 3 resumed") != std::string::npos);
    CHECK(mpi.err.find("points run per rank: 0:0 1:5") != std::string::npos);
  }

  SECTION("a bad plan is reported once by rank 0 and every rank exits nonzero") {
    std::ofstream(dir / "bad.json") << R"({"name": "bad", "base": {"workload": "resnet50"}, "gird": {}})";
    const Run mpi = run(kMpi + " sweep " + (dir / "bad.json").string() + " --out " + csv, dir);
    INFO(mpi.out << mpi.err);
    CHECK(mpi.status != 0);
    CHECK(count(mpi.err, "vgsim: error:") == 1);
    CHECK(mpi.err.find("gird") != std::string::npos);
  }

  SECTION("a results file of another plan is refused on resume, once, without a hang") {
    std::ofstream(csv) << "index,point_id,label,other\n";
    const Run mpi = run(kMpi + args + " --resume", dir);
    INFO(mpi.out << mpi.err);
    CHECK(mpi.status != 0);
    CHECK(count(mpi.err, "vgsim: error:") == 1);
    CHECK(mpi.err.find("different plan") != std::string::npos);
  }
}
