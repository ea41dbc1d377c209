// Outputs that cannot destroy (issue 40): no output replaces a non-regular file (a FIFO stands in for a device node,
// which needs root to create) and no output overwrites an input of the same command, whatever spelling the path has.
// Each case exits 2 naming the path, and the target is left as it was.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"

namespace {

std::string tmp(const std::string& name) { return vgsim::test::temp_path("vgsim-out", name); }

std::string read(const std::string& p) { return vgsim::test::read_file(p); }

}  // namespace

TEST_CASE("an output path that is a FIFO is refused and stays a FIFO", "[cli][reliability]") {
  // Before: the JSON went to a temporary file renamed over the FIFO (as root, /dev/full became a JSON file).
  // Expectation: exit 2, the message names the path and "not a regular file", the FIFO is still a FIFO.
  const std::string fifo = tmp("fifo");
  std::filesystem::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string opt : {"--json", "--dump-schedule"}) {
    const auto r = vgsim::test::run_vgsim("collective --cluster r750xa-2x-25gbe -b 1K -e 1K " + opt + " " + fifo);
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(fifo) != std::string::npos);
    CHECK(r.out.find("not a regular file") != std::string::npos);
    CHECK(std::filesystem::is_fifo(fifo));
  }
  std::filesystem::remove(fifo);
}

TEST_CASE("an output path that is an input of the same command is refused and the input kept", "[cli][reliability]") {
  // Before: `collective --cluster c.json --json c.json` and `sweep plan.json --out plan.json` overwrote their input and
  // exited 0. Expectation: exit 2 naming the path and "input of this command"; the input's bytes unchanged, also when
  // the output spells the path differently (./dir/../c.json) or is a hard link to it.
  const std::string dir = tmp("dir");
  std::filesystem::create_directories(dir);
  const std::string cluster = dir + "/c.json";
  std::filesystem::copy_file(std::string(VGSIM_SOURCE_DIR) + "/topologies/presets/r750xa-2x-25gbe.json", cluster,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string before = read(cluster);
  const std::string link = dir + "/hard.json";
  std::filesystem::remove(link);
  std::filesystem::create_hard_link(cluster, link);
  for (const std::string& out :
       {cluster, dir + "/../" + std::filesystem::path(dir).filename().string() + "/c.json", link}) {
    const auto r = vgsim::test::run_vgsim("collective --cluster " + cluster + " -b 1K -e 1K --json " + out);
    INFO(out << ": " << r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find("input of this command") != std::string::npos);
    CHECK(read(cluster) == before);
  }
  const std::string plan = dir + "/plan.json";
  std::filesystem::copy_file(std::string(VGSIM_SOURCE_DIR) + "/workloads/plans/seed-whatif.json", plan,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string plan_before = read(plan);
  const auto r = vgsim::test::run_vgsim("sweep " + plan + " --out " + plan);
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(r.out.find("input of this command") != std::string::npos);
  CHECK(read(plan) == plan_before);
  std::filesystem::remove_all(dir);
}
