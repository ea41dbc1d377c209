// Replays every measured nccl-tests table in data/measured that has a preset, with catalog defaults (no fitting), and
// prints the error per size. Expectation (issue "collective simulation"): the median relative error of the
// simulated time per table stays within 35 %; the per-size table is printed so regressions are visible.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>

#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/sim/communicator.hpp"

using namespace vgsim;

namespace {

struct Case {
  const char* file;
  const char* preset;
  std::uint32_t nodes, gpus_per_node;
  topo::PathOptions path;
};

topo::PathOptions no_gdr() {
  topo::PathOptions p;
  p.gdr_disable = true;
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Replays one table and returns the median relative error of the simulated time (prints every row).
double replay_median(const Case& c) {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const std::string dir = std::string(VGSIM_MEASURED_DIR) + "/nccl-tests/";
  const topo::Cluster cluster = topo::Cluster::resolve(c.preset, catalog);
  sim::CommOptions opt;
  opt.path = c.path;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, c.nodes, c.gpus_per_node), opt);
  calibrate::ImportHints hints;
  hints.nranks = comm.ranks();  // one file (nccl#1161) does not state its rank count
  const auto records = calibrate::import_nccl_tests(dir + c.file, hints);
  std::printf("\n%s (preset %s)\n%-10s %14s %12s %12s %8s %s\n", c.file, c.preset, "op", "size(B)", "measured us",
              "simulated us", "error", "algo/proto");
  std::vector<double> errors;
  for (const auto& rec : records) {
    const auto* m = std::get_if<calibrate::CollectiveMeasurement>(&rec);
    if (!m || m->in_place || m->size_bytes <= 0) continue;
    REQUIRE(m->nranks == static_cast<std::int64_t>(comm.ranks()));
    const auto r = sim::simulate_collective(comm, coll::parse_op(m->op), m->size_bytes);
    const double sim_us = r.time.us();
    const double err = std::abs(sim_us - m->time_us) / m->time_us;
    errors.push_back(err);
    std::printf("%-10s %14lld %12.2f %12.2f %7.1f%% %s/%s\n", m->op.c_str(), static_cast<long long>(m->size_bytes),
                m->time_us, sim_us, 100 * err, coll::to_string(r.plan.algo), coll::to_string(r.plan.proto));
  }
  REQUIRE(!errors.empty());
  const double med = median(errors);
  std::printf("median error %.1f%%\n", 100 * med);
  return med;
}

}  // namespace

// Expectation: with catalog defaults the median error of each table is at most 35 %.
TEST_CASE("replay: 2 x RTX 2080 Ti over host memory (SHM)") {
  // SHM is store-and-forward through host memory (each 1 MiB slice is written by one GPU before the other reads
  // it, Path::staged_s_per_byte): rows >= 1 MiB went from 36-39 % fast to 7-9 %; median 22.7 -> 17.7 %.
  CHECK(replay_median({"gh-Anthony-Hoo_autodl_2x2080Ti_pcie-gen3_noP2P.txt", "autodl-2x2080ti-pcie3", 1, 2, {}}) <=
        0.35);
}

TEST_CASE("replay: 2 x 8 H100 AWS p5 (EFA, GPUDirect)") {
  // Each GPU has its four 100 Gb/s EFA devices as one 400 Gb/s group (catalog aws-efa-p5-4x100g; 32 x 100 Gb/s =
  // 3200 Gb/s per node, AWS p5 page; 32 channels, one per device). Before that, each GPU used one 100G device and
  // rows >= 64 MiB were 1.3-3.9x too slow; now rows >= 256 MiB are within 1-22 % (ring). Measured algbw 260 GB/s at
  // 16 GiB is above the ring bound 400 GB/s x 16/30 = 213 GB/s (a ring sends 2(n-1)/n x S through each node's NICs),
  // so NCCL runs a tree-like algorithm there: NVLS Tree, in vgsim's default choice since 2026-11-29 (from 4 MiB
  // on), took that row from 21.8 % (ring) to 6.3 % and 1 GiB from 9.7 to 9.1 %, median unchanged. Rows <= 64 MiB
  // stay 19-56 % fast: the per-call floor (65-75 us measured) is not modelled (note below). Median 33.6 -> 31.4 %.
  CHECK(replay_median({"gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt",
                       "aws-p5-2x8xh100",
                       2,
                       8,
                       {}}) <= 0.35);
}

TEST_CASE("replay: 1 x 8 A100 SXM NVLink (DGX A100)") {
  // NVLink resources run at NCCL's own per-link rate (topo.h SM80 20 GB/s x 12 = 240 GB/s, catalog nccl_per_link),
  // which is what ring busbw reaches (234.9 GB/s at 16 GiB here, 229-235 in docs/SOURCES.md#measured-bandwidths). Rows
  // >= 4 MiB are within 0-30 %; rows <= 2 MiB stay 40-65 % low: the 44 us floor of this single-process -g 8 run (eight
  // kernel launches from one thread per iteration, no CUDA graphs) is not modelled (see the per-call floor note below).
  CHECK(replay_median({"gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt", "dgx-a100", 1, 8, {}}) <= 0.35);
}

// Known gaps, reported and tracked but not yet within 35 % with catalog defaults ([!mayfail]: the table is printed
// and a failure is shown, without failing the run). Each says what the model lacks, measured with the catalog as it
// is; calibration (issue 5) fits them.
//
// Per-call floor: the engine charges NCCL's base latency (and StepCosts::launch_overhead, CommOptions::launch_overhead)
// once per call; per-step latencies now overlap on a connection (a send waits only for the previous send's bytes),
// so they cost only along the data chain, as in NCCL's lat + S/bw. The 65-160 us per-call floors of the cloud
// tables (plugin progress, launch without CUDA graphs) would be a launch_overhead, but no cited per-call figure
// exists, so it stays 0 with catalog defaults (never fitted to these tables; calibration may set it).
TEST_CASE("replay: 2 x 1 H100, 400G RoCE without GPUDirect (host-staged)", "[!mayfail][known-gap]") {
  // Measured: 15.0 GB/s busbw at every size (1-25 GiB). Mechanisms, none fitted to this table: (1) the preset's HGX
  // layout puts the GPU and its ConnectX-7 under one PCIe Gen5 switch (the HGX H100 design), so host staging crosses
  // the switch's uplink twice per direction (GPU writes + NIC writes up, NIC reads + GPU reads down): <= 55.4 / 2 =
  // 27.7 GB/s; (2) each 1 MiB slice is store-and-forward through the host buffer (Path::staged_s_per_byte), which
  // NCCL's slices (SlicePerChunk 2) hide behind the next slice. Simulated 27.7 GB/s, the uplink bound (median about
  // 46 %; 26.6 % while whole 2 MiB chunks were the ring's step, a stall NCCL does not have). The rest is consistent
  // with the testbed's own host-to-host ib_write_bw (26.9 GB/s one way, 23.1 GB/s per direction both ways, header)
  // and below it; what holds NCCL at 15 GB/s is not in the cited sources (candidates: the GPU's loads from pinned
  // host memory, the proxy thread's progress on 2 channels). Calibration (capacity_scale) fits it.
  CHECK(replay_median({"gh-CCI-MOC-roce-testing_allreduce_2x1xH100_roce400G_noGDR.txt", "roce400g-2x1xh100", 2, 1,
                       no_gdr()}) <= 0.35);
}

TEST_CASE("replay: 2 x 8 A100 AWS p4de (EFA)", "[!mayfail][known-gap]") {
  // Rows >= 128 MiB: 0-12 % (consecutive chunks overlap their latencies), 1-64 MiB: 3-34 %. Rows <= 512 KiB: floor
  // 161 us against 36 us simulated (tree/LL): the EFA per-call software floor (see the note above). aws-ofi-nccl
  // reports 75 us to NCCL as the network latency on p4d/p4de/p5 (recalled, [verify]); as a per-step latency it would
  // starve every large row, and the p5 table (same plugin) has a 65-70 us floor, so it is not a physical constant.
  CHECK(replay_median({"gh-aws-samples-awsome-distributed-training_allreduce_2x8xA100_p4de_EFA400G.txt",
                       "aws-p4de-2x8xa100",
                       2,
                       8,
                       {}}) <= 0.35);
}

TEST_CASE("replay: 2 x 8 H100 GCP a3-mega (GPUDirect-TCPXO)", "[!mayfail][known-gap]") {
  // Rows <= 1 MiB: measured floor 123 us against 36 us simulated (TCPXO plugin floor, see the note above). Rows
  // >= 1 GiB: 9-17 % fast (were 40-56 % slow while each 512 KiB step waited for the previous one's hop latency;
  // NCCL keeps NCCL_STEPS = 8 slots in flight). 16-512 MiB: 23-67 % fast, the floor again. Median 58.7 -> 60.6 %.
  // With NVLS Tree in the default choice (2026-11-29, from 4 MiB on) 69.0 %: it is faster still at 4-128 MiB, where
  // the TCPXO network model already is (16 MiB: measured 977.6 us, tree 324.7, NVLS Tree 187.5); >= 512 MiB alike.
  CHECK(replay_median({"gh-lessizzmore-create-a3mega-ztan-fork_allreduce_2x8xH100_gcp-a3mega.txt",
                       "gcp-a3mega-2x8xh100",
                       2,
                       8,
                       {}}) <= 0.35);
}

TEST_CASE("replay: 2 x H100 PCIe with an NVLink bridge", "[!mayfail][known-gap]") {
  // Measured 116 GB/s busbw. Simulated ~227 GB/s: the bridge at NCCL's SM90 rate, 12 x 20.6 = 247 GB/s per direction
  // (catalog nccl_per_link). The gap is what nccl#1161 reports; no cited figure explains it (a 6-link bridge would
  // give 124 GB/s, but the datasheet says 600 GB/s bidirectional = 12 links).
  CHECK(replay_median({"gh-issue-NVIDIA-nccl-1161_allreduce_2xH100PCIe_nvlink-bridge.txt",
                       "h100pcie-nvlink-bridge-2x",
                       1,
                       2,
                       {}}) <= 0.35);
}
