// The vgsim command line end to end: the nccl-tests table, JSON output, determinism, and bad input (exit status 2
// with a message naming the option or file, the value and the expectation; no output file left behind).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace {

using Run = vgsim::test::CliRun;
using vgsim::test::run_vgsim;

std::string tmp_path(const std::string& name) { return vgsim::test::temp_path("vgsim-test", name); }

}  // namespace

TEST_CASE("collective prints an nccl-tests table and writes the same rows as JSON") {
  const std::string json = tmp_path("rows.json");
  const Run r =
      run_vgsim("collective --cluster r750xa-2x-100gbe --nodes 2 --gpus-per-node 1 -b 8 -e 1M -f 4 --json " + json);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("#       size         count      type   redop    root     time   algbw   busbw #wrong") !=
        std::string::npos);
  CHECK(r.out.find("# Avg bus bandwidth") != std::string::npos);
  const vgsim::Json j = vgsim::load_json_file(json);
  // Sizes 8, 32, ..., 2^20 with factor 4: 8 * 4^k <= 2^20 -> k = 0..8, nine rows.
  REQUIRE(j["rows"].size() == 9);
  CHECK(j["rows"][0]["size_bytes"] == 8);
  CHECK(j["rows"][8]["size_bytes"] == 524288);  // 8 * 4^8 = 2^19
  // busbw = algbw x 2(n-1)/n = algbw for n = 2 ranks (nccl-tests allreduce factor).
  for (const auto& row : j["rows"]) CHECK(row["busbw_GBps"].get<double>() == Approx(row["algbw_GBps"].get<double>()));
  std::filesystem::remove(json);
}

TEST_CASE("--dump-schedule writes the largest size's step schedule, a streamed ring stored in full") {
  // 4 ranks (4 hosts x 1 GPU), ring allreduce, Simple, 2 channels, 16 MiB: 2 MiB chunks, 2 x 4 pieces per loop ->
  // one loop of 2(n-1) = 6 steps of 2 slices: 6 x 2 x 2 x 4 = 96 transfers, each depending on at most 3 earlier
  // ones.
  const std::string dump = tmp_path("schedule.json");
  const Run r = run_vgsim(
      "collective --cluster r750xa-4x-100gbe --nodes 4 --gpus-per-node 1 --algo ring --proto simple "
      "--channels 2 -b 1M -e 16M -f 16 --dump-schedule " +
      dump);
  REQUIRE(r.status == 0);
  const vgsim::Json j = vgsim::load_json_file(dump);
  CHECK(j["algo"] == "ring");
  CHECK(j["size_bytes"] == 16 * 1024 * 1024);
  CHECK(j["transfers_total"] == 96);
  REQUIRE(j["transfers"].size() == 96);
  for (const auto& t : j["transfers"]) CHECK(t["deps"].size() <= 3);
  std::filesystem::remove(dump);
}

TEST_CASE("--algo auto and --proto auto leave the choice to NCCL's model, as leaving them out does") {
  // nccl.algo and nccl.proto declare "auto" as a choice (vgsim params): the table must equal the default one.
  const std::string base = "collective --cluster r750xa-2x-25gbe -b 1K -e 64M -f 8";
  const Run a = run_vgsim(base + " --algo auto --proto AUTO"), d = run_vgsim(base);
  REQUIRE(a.status == 0);
  CHECK(a.out == d.out);
}

TEST_CASE("same inputs give byte-identical output") {
  const std::string args = "collective --cluster dgx-a100 -b 1K -e 64M -f 8";
  const Run a = run_vgsim(args), b = run_vgsim(args);
  REQUIRE(a.status == 0);
  CHECK(a.out == b.out);
}

TEST_CASE("bad input exits with status 2 and names what is wrong") {
  SECTION("unknown preset, with a did-you-mean") {
    const Run r = run_vgsim("collective --cluster r750xa-4x-100gbee");
    CHECK(r.status == 2);
    CHECK(r.out.find("r750xa-4x-100gbe") != std::string::npos);
  }
  SECTION("bad byte size") {
    const Run r = run_vgsim("collective --cluster dgx-a100 -b 8 -e 12parrots");
    CHECK(r.status == 2);
    CHECK(r.out.find("-e") != std::string::npos);
    CHECK(r.out.find("12parrots") != std::string::npos);
  }
  SECTION("unknown op") {
    const Run r = run_vgsim("collective --cluster dgx-a100 --op allreduse");
    CHECK(r.status == 2);
    CHECK(r.out.find("--op") != std::string::npos);
  }
  SECTION("too many nodes") {
    const Run r = run_vgsim("collective --cluster r750xa-2x-100gbe --nodes 3");
    CHECK(r.status == 2);
    CHECK(r.out.find("--nodes") != std::string::npos);
  }
  SECTION("tree for allgather") {
    const Run r = run_vgsim("collective --cluster dgx-a100 --op allgather --algo tree");
    CHECK(r.status == 2);
  }
  SECTION("unknown NCCL parameter in --set") {
    const Run r = run_vgsim("collective --cluster dgx-a100 --set nccl.base_latncy.ring.simple=3");
    CHECK(r.status == 2);
    CHECK(r.out.find("did you mean") != std::string::npos);
  }
  SECTION("a malformed cluster file names the file and the JSON path; no JSON output is left behind") {
    const std::string bad = tmp_path("bad-cluster.json"), out = tmp_path("never.json");
    std::ofstream(bad) << R"({"name": "x", "host_templates": {"h": {"cpu": "xeon-gold-6338", "sockets": 1,
      "gpus": [{"name": "gpu0", "model": "a100-pcie-40gb", "attach": "socket7"}]}},
      "hosts": [{"template": "h", "count": 1}], "fabric": {"type": "switch"}})";
    const Run r = run_vgsim("collective --cluster " + bad + " --json " + out);
    CHECK(r.status == 2);
    CHECK(r.out.find(bad) != std::string::npos);
    CHECK(r.out.find("socket7") != std::string::npos);
    CHECK(!std::filesystem::exists(out));
    std::filesystem::remove(bad);
  }
}

// `vgsim params` without a job lists NCCL's model constants (tests/cli/test_params.cpp covers jobs).
TEST_CASE("vgsim params lists NCCL's model constants") {
  // Without a job: NCCL's model constants only (156 ring/tree ones + 5 NVLS ones + 4 NVLS Tree ones + 11 p2p ones of
  // alltoall = 176, each with a unit and source).
  const Run n = run_vgsim("params");
  REQUIRE(n.status == 0);
  CHECK(std::count(n.out.begin(), n.out.end(), '\n') == 176);
  CHECK(n.out.find("nccl.hw_latency.nvlink.nvls.simple = 25") != std::string::npos);
  CHECK(n.out.find("nccl.hw_latency.net.nvlstree.simple = 20.9") != std::string::npos);
  CHECK(n.out.find("batch_per_gpu") == std::string::npos);
}
