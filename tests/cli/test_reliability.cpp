// Reliability regressions (issue "Reliability"): each case failed before its fix.
//  1. A sweep killed with SIGKILL at random points resumes to a CSV and summary byte-identical to an uninterrupted
//     run's (the journal is a checksummed write-ahead log; damaged records: tests/sim/planning/test_sweep.cpp).
//  2. The OSU importer refuses a row cut inside a number.
//  3. A sweep whose points fail exits 2 (the CSV is still written); --keep-going exits 0.
//  7. `train --json r --trace <bad>` leaves no r behind; one path for both outputs is refused.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "cli_run.hpp"

namespace {

using Run = vgsim::test::CliRun;
using vgsim::test::run_vgsim;

std::string tmp_path(const std::string& name) { return vgsim::test::temp_path("vgsim-rel", name); }

std::string read(const std::string& p) { return vgsim::test::read_file(p); }

void write(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

const std::string kPlan = std::string(VGSIM_DATA_DIR) + "/workloads/plans/seed-whatif.json";

}  // namespace

TEST_CASE("a sweep killed with SIGKILL at random points resumes to the uninterrupted CSV and summary, byte for byte",
          "[cli][reliability][nosan]") {
  // A plan long enough to be killed mid-run: the seed what-if's 12 designs x nodes {1, 2, 4} x 24 batch sizes.
  const std::string dir = tmp_path("kill");
  std::filesystem::create_directories(dir);
  std::string batches;
  for (int b = 64; b <= 64 * 24; b += 64) batches += (batches.empty() ? "" : ", ") + std::to_string(b);
  std::string plan = read(kPlan);
  const std::size_t grid = plan.find("\"grid\"");
  REQUIRE(grid != std::string::npos);
  plan.insert(plan.find('{', grid) + 1, "\"batch_per_gpu\": [" + batches + "], ");
  write(dir + "/plan.json", plan);
  // stdout (the summary and "results: r.csv") is compared; notes about resuming go to stderr.
  auto sweep = [&](const std::string& sub, bool resume) {
    std::filesystem::create_directories(dir + "/" + sub);
    return "cd " + dir + "/" + sub + " && exec " + VGSIM_EXE + " sweep ../plan.json --out r.csv --jobs 2 --quiet" +
           (resume ? " --resume" : "") + " >>stdout.txt 2>>stderr.txt";
  };
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(std::system(sweep("full", false).c_str()) == 0);
  const double full_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string csv = read(dir + "/full/r.csv"), summary = read(dir + "/full/stdout.txt");
  REQUIRE(std::count(csv.begin(), csv.end(), '\n') == 1 + 12 * 3 * 24);
  // Kill points drawn from a fixed seed (reproducible), spread over the whole run, the final writes included; each
  // interrupted run is killed again while resuming before a last resume runs to the end.
  // The first kill of a trial lands in the first 60 % of an uninterrupted run's time, so it interrupts the run even
  // when the machine is slower than during the timed run; the second (a resume, with fewer points left) anywhere up
  // to a whole run's time, so it also lands in the final writes or after the end.
  std::mt19937 rng(20261125);
  std::uniform_real_distribution<double> first_kill(0.05, 0.6), second_kill(0.05, 1.0);
  int killed = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const std::string sub = "kill" + std::to_string(trial);
    std::filesystem::remove_all(dir + "/" + sub);
    for (int kill = 0; kill < 2; ++kill) {
      const double at_s = (kill == 0 ? first_kill(rng) : second_kill(rng)) * full_s;
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", sweep(sub, kill > 0).c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(at_s));
      ::kill(pid, SIGKILL);
      int st = 0;
      ::waitpid(pid, &st, 0);
      INFO("trial " << trial << ", kill " << kill << " after " << at_s << " s of " << full_s << " s");
      // Either it was killed, or it had already finished (exit 0): both must resume to the same result.
      CHECK((WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 0)));
      killed += WIFSIGNALED(st);
      if (WIFSIGNALED(st)) std::filesystem::remove(dir + "/" + sub + "/stdout.txt");  // a killed run's partial output
    }
    std::filesystem::remove(dir + "/" + sub + "/stdout.txt");
    INFO("trial " << trial);
    REQUIRE(std::system(sweep(sub, true).c_str()) == 0);
    CHECK(read(dir + "/" + sub + "/r.csv") == csv);
    CHECK(read(dir + "/" + sub + "/stdout.txt") == summary);
    CHECK(!std::filesystem::exists(dir + "/" + sub + "/r.csv.journal"));
  }
  WARN(killed << " of 8 runs were killed mid-run; an uninterrupted run took " << full_s << " s");
  CHECK(killed >= 4);  // the test exercised interruptions, not only finished runs
  std::filesystem::remove_all(dir);
}

TEST_CASE("the OSU importer refuses a row cut inside a number", "[cli][reliability]") {
  // OSU prints latencies with two decimals; "504000  84" is what is left of "504000  847.93" after a cut.
  const std::string in = std::string(VGSIM_MEASURED_DIR) + "/osu-openmpi/allreduce-10g-2cpu-algo4-step1k.txt";
  const std::string text = read(in);
  const std::string dir = tmp_path("osu");
  std::filesystem::create_directories(dir);
  const std::string cut = dir + "/allreduce-10g-2cpu-algo4-step1k.txt";  // the importer reads the layout from the name
  write(cut, text.substr(0, text.rfind('.') - 1));  // ends inside the last latency, before its decimals
  const Run r = run_vgsim("calibrate import " + cut + " --out " + tmp_path("m.jsonl"));
  CHECK(r.status == 2);
  CHECK(r.out.find(cut) != std::string::npos);
  CHECK(r.out.find("two-decimal format (a cut-off row?)") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a sweep with failed points exits 2 and still writes its CSV; --keep-going exits 0", "[cli][reliability]") {
  const std::string plan = tmp_path("bad-plan.json"), out = tmp_path("bad.csv");
  write(plan, R"({"name": "bad", "base": {"cluster": "r750xa-2x-25gbe", "workload": "resnet50", "gpus_per_node": 1},
                  "grid": {"nodes": [1, 7]}})");
  const Run r = run_vgsim("sweep " + plan + " --out " + out + " --jobs 1");
  CHECK(r.status == 2);
  CHECK(r.out.find("1 of 2 point(s) failed") != std::string::npos);
  CHECK(std::filesystem::exists(out));
  const Run k = run_vgsim("sweep " + plan + " --out " + out + " --jobs 1 --keep-going");
  CHECK(k.status == 0);
  std::filesystem::remove(plan);
  std::filesystem::remove(out);
}

TEST_CASE("train writes its --json and --trace together or not at all", "[cli][reliability]") {
  const std::string json = tmp_path("r.json");
  std::filesystem::remove(json);
  const Run r = run_vgsim("train --scenario seed-rn50-2x1-25gbe --json " + json + " --trace " +
                          tmp_path("no-such-dir") + "/t.json");
  CHECK(r.status == 2);
  CHECK_FALSE(std::filesystem::exists(json));
  const Run same = run_vgsim("train --scenario seed-rn50-2x1-25gbe --json " + json + " --trace " + json);
  CHECK(same.status == 2);
  CHECK(same.out.find("two outputs name the same file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(json));
}

TEST_CASE("bad collective and params options exit 2 with the option named, not 1", "[cli][reliability]") {
  // 5. root outside the communicator, channels beyond NCCL's MAXCHANNELS (64), an unknown tuning version.
  const std::string c = "collective --cluster r750xa-2x-25gbe -b 1K -e 1K ";
  for (const auto& [args, words] :
       std::vector<std::pair<std::string, std::string>>{{c + "--op broadcast -r 99", "-r/--root"},
                                                        {c + "--op reduce -r 8", "expected 0..7"},
                                                        {c + "--channels 100000", "1..64"},
                                                        {"params --nccl-version 9.99", "--nccl-version"}}) {
    const Run r = run_vgsim(args);
    INFO(args << " -> " << r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(words) != std::string::npos);
  }
}

TEST_CASE("--version names the program and its version", "[cli]") {
  const Run r = run_vgsim("--version");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("vgsim ", 0) == 0);
}

TEST_CASE("oversized requests are refused up front with the estimate and the option that raises the limit",
          "[cli][reliability]") {
  // 6. A 16 TiB allreduce on 2 ranks needs ~470 M step transfers (~28 GiB before the engine's state): refused before
  //    anything is allocated (it used to grow until std::bad_alloc). A size factor of 1.0000001 between 1 KiB and
  //    1 MiB would visit log(1024) / log(1.0000001) ~ 69 M sizes: refused too.
  const Run big = run_vgsim("collective --cluster r750xa-2x-25gbe -b 16T -e 16T");
  CHECK(big.status == 2);
  CHECK(big.out.find("--max-transfers") != std::string::npos);
  const Run fine = run_vgsim("collective --cluster r750xa-2x-25gbe -b 1K -e 1M -f 1.0000001");
  CHECK(fine.status == 2);
  CHECK(fine.out.find("-f") != std::string::npos);
  // Sizes that round to the same element count are simulated once: 8 x 1.1^k <= 16 for k = 0..7 (15.59 B), and
  // rounded down to whole floats those eight sizes are 8, 8, 8, 8, 8, 12, 12, 12: two rows, 8 and 12.
  const Run rounded = run_vgsim("collective --cluster r750xa-2x-25gbe -b 8 -e 16 -f 1.1");
  REQUIRE(rounded.status == 0);
  int rows = 0;
  std::istringstream in(rounded.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#' && line.find("float") != std::string::npos) ++rows;
  CHECK(rows == 2);
}

TEST_CASE("a cluster whose hosts have no NIC but must talk is an input error naming the file and JSON path",
          "[cli][reliability]") {
  // 5. "nics": [] in a template used by two hosts: the path between them cannot exist.
  std::string preset = read(std::string(VGSIM_DATA_DIR) + "/topologies/presets/r750xa-2x-25gbe.json");
  const auto at = preset.find("\"nics\"");
  REQUIRE(at != std::string::npos);
  const auto open = preset.find('[', at);
  int depth = 0;
  std::size_t close = open;
  for (; close < preset.size(); ++close) {
    if (preset[close] == '[') ++depth;
    if (preset[close] == ']' && --depth == 0) break;
  }
  preset.replace(open, close - open + 1, "[]");
  const std::string file = tmp_path("nonics.json");
  write(file, preset);
  const Run r = run_vgsim("collective --cluster " + file + " --nodes 2 --gpus-per-node 1 -b 1K -e 1K");
  CHECK(r.status == 2);
  CHECK(r.out.find(file) != std::string::npos);
  CHECK(r.out.find(".nics") != std::string::npos);
  std::filesystem::remove(file);
}

TEST_CASE("nccl-tests command lines from the data files' headers run unchanged", "[cli][nccl-tests]") {
  // data/measured/nccl-tests/gh-CCI-MOC-...: "all_reduce_perf -b 1G -e 26656M -i 2048M -g 1" (linear step): sizes
  // 1 GiB + k x 2 GiB <= 26,656 MiB for k = 0..12 -> 13 rows, the file's own 13 rows; -g 1 = one GPU per node.
  const Run moc = run_vgsim("collective --cluster roce400g-2x1xh100 -b 1G -e 26656M -i 2048M -g 1");
  REQUIRE(moc.status == 0);
  int rows = 0;
  std::istringstream in(moc.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#' && line.find(" float ") != std::string::npos) ++rows;
  CHECK(rows == 13);
  CHECK(moc.out.find("= 2 ranks") != std::string::npos);
  // nccl-tests' preamble, marked as simulated.
  CHECK(moc.out.find("# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 27950841856 step: 2147483648(bytes)") !=
        std::string::npos);
  CHECK(moc.out.find("# Using devices (simulated") != std::string::npos);
  // stas00 DGX A100 header: "all_reduce_perf -b 32k -e 16G -f 2 -g 8 -n 50" (single process, 8 GPUs).
  const Run dgx = run_vgsim("collective --cluster dgx-a100 -b 32k -e 1M -f 2 -g 8 -n 50");
  CHECK(dgx.status == 0);
  CHECK(dgx.out.find("= 8 ranks") != std::string::npos);
  // -o is nccl-tests' reduction: an allreduce with max.
  const Run mx = run_vgsim("collective --cluster r750xa-2x-25gbe -o max -b 1K -e 1K");
  CHECK(mx.status == 0);
  CHECK(mx.out.find(" float     max ") != std::string::npos);
}

TEST_CASE("calibrate import refuses a table vgsim simulated unless told", "[cli][nccl-tests]") {
  const std::string table = tmp_path("sim.txt"), jsonl = tmp_path("sim.jsonl");
  const Run sim = run_vgsim("collective --cluster r750xa-2x-25gbe -b 1K -e 4K > " + table);
  REQUIRE(sim.status == 0);
  const Run refused = run_vgsim("calibrate import " + table + " --out " + jsonl);
  CHECK(refused.status == 2);
  CHECK(refused.out.find("simulated by vgsim, not measured") != std::string::npos);
  // With --allow-simulated the layout comes from vgsim's own title ("2 node(s) x 4 GPU(s)").
  const Run ok = run_vgsim("calibrate import " + table + " --allow-simulated --out " + jsonl);
  CHECK(ok.status == 0);
  CHECK(read(jsonl).find("\"nnodes\":2,\"gpus_per_node\":4") != std::string::npos);
  std::filesystem::remove(table);
  std::filesystem::remove(jsonl);
}

TEST_CASE("resource guards refuse before any output: a collective's largest size, a sweep's point count",
          "[cli][reliability]") {
  // The largest size of -b 8 -e 1G on 1,024 ranks needs 3.8 million step transfers (tree allreduce): with 100,000
  // allowed it is refused before the first row, so stdout holds no half table.
  const auto r = vgsim::test::run_command(
      std::string(VGSIM_EXE) + " collective --cluster dgx-a100-128 -b 8 -e 1G --max-transfers 100000 2>/dev/null");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  // A plan of 600 x 1,000 = 600,000 points (about 2.2 GiB of points and results at 3.9 kB each) is refused with the
  // option that allows it; nothing is expanded or run.
  const std::string plan = tmp_path("huge-plan.json");
  std::string nodes, batches;
  for (int k = 1; k <= 600; ++k) nodes += (k > 1 ? "," : "") + std::to_string(k);
  for (int k = 1; k <= 1000; ++k) batches += (k > 1 ? "," : "") + std::to_string(k);
  write(plan,
        R"({"name": "huge", "base": {"cluster": "r750xa-2x-25gbe", "workload": "resnet50"}, "grid": {"nodes": [)" +
            nodes + R"(], "batch_per_gpu": [)" + batches + "]}}");
  const Run s = run_vgsim("sweep " + plan + " --out " + tmp_path("huge.csv"));
  CHECK(s.status == 2);
  CHECK(s.out.find("the plan has 600000 points (about 2232 MiB") != std::string::npos);
  CHECK(s.out.find("--max-points 600000 to run it") != std::string::npos);
  CHECK(!std::filesystem::exists(tmp_path("huge.csv")));
  std::filesystem::remove(plan);
}
