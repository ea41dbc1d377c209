// Reliability regressions (issue "Reliability"): each case failed before its fix.
//  1. `sweep --resume` with a journal whose last row is torn re-runs that point instead of copying the fragment;
//     the resumed CSV and summary are byte-identical to an uninterrupted run's.
//  2. The OSU importer refuses a row cut inside a number.
//  3. A sweep whose points fail exits 2 (the CSV is still written); --keep-going exits 0.
//  7. `train --json r --trace <bad>` leaves no r behind; one path for both outputs is refused.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../run_command.hpp"

namespace {

struct Run {
  int status;
  std::string out;
};

Run run_vgsim(const std::string& args) {
  const auto r = vgsim::test::run_command(std::string(VGSIM_EXE) + " " + args + " 2>&1");
  return {r.status, r.out};
}

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("vgsim-rel-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::string read(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

const std::string kPlan = std::string(VGSIM_DATA_DIR) + "/workloads/plans/seed-whatif.json";

}  // namespace

TEST_CASE("sweep --resume re-runs a torn journal row and matches an uninterrupted run byte for byte",
          "[cli][reliability]") {
  const std::string full = tmp_path("full.csv"), part = tmp_path("part.csv");
  const Run a = run_vgsim("sweep " + kPlan + " --out " + full + " --jobs 1");
  REQUIRE(a.status == 0);
  const std::string csv = read(full);
  // The journal of an interrupted run: the header and the first ~70 % of the bytes, cut inside a row.
  const std::size_t cut = csv.size() * 7 / 10;
  REQUIRE(csv[cut - 1] != '\n');
  write(part + ".journal", csv.substr(0, cut));
  const Run b = run_vgsim("sweep " + kPlan + " --out " + part + " --jobs 1 --resume");
  REQUIRE(b.status == 0);
  CHECK(b.out.find("incomplete row(s) dropped") != std::string::npos);
  CHECK(read(part) == csv);
  // The summary (everything but the "N run, M resumed" count line and the results path) is the same too.
  auto summary = [](const std::string& out, const std::string& path) {
    std::istringstream in(out);
    std::string line, s;
    while (std::getline(in, line))
      if (line.find(" resumed, ") == std::string::npos && line.find("results: ") == std::string::npos &&
          line.find("dropped") == std::string::npos && line.find(path) == std::string::npos)
        s += line + "\n";
    return s;
  };
  CHECK(summary(b.out, part) == summary(a.out, full));
  std::filesystem::remove(full);
  std::filesystem::remove(part);
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
  for (const auto& [args, words] : std::vector<std::pair<std::string, std::string>>{
           {c + "--op broadcast -r 99", "-r/--root"},
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
