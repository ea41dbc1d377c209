// Catalog: every file loads, every entry carries a source, datasheet numbers land in the right units, and bad
// catalog lookups fail with a did-you-mean.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vgsim/topologies/catalog.hpp"

using namespace vgsim;
using namespace vgsim::topo;

namespace {
const Catalog& cat() {
  static const Catalog c = Catalog::load(std::string(VGSIM_DATA_DIR) + "/topologies/catalog");
  return c;
}
}  // namespace

TEST_CASE("catalog loads and every entry has a source", "[catalog]") {
  const Catalog& c = cat();
  // The brief's required models are present.
  for (const char* k : {"a100-pcie-40gb", "a100-pcie-80gb", "a100-sxm-40gb", "a100-sxm-80gb", "h100-pcie", "h100-sxm",
                        "h200-sxm", "v100-sxm2-16gb", "v100-sxm2-32gb", "rtx-2080-ti", "p100-pcie-16gb"})
    CHECK(c.gpus().count(k) == 1);
  for (const char* k : {"connectx-4-100g", "connectx-5-100g", "connectx-6-dx-25g", "connectx-6-dx-100g",
                        "connectx-6-200g", "connectx-7-400g", "aws-efa-100g", "gcp-tcpxo-200g"})
    CHECK(c.nics().count(k) == 1);
  for (const char* k : {"xeon-gold-6338", "xeon-gold-6148", "epyc-7742", "xeon-platinum-8480p"})
    CHECK(c.cpus().count(k) == 1);
  CHECK(c.pcie_gens().size() == 3);
  for (const auto& [k, g] : c.gpus()) CHECK_FALSE(g.source.empty());
  for (const auto& [k, n] : c.nics()) CHECK_FALSE(n.source.empty());
  for (const auto& [k, p] : c.pcie_gens()) CHECK_FALSE(p.source.empty());
  for (const auto& [k, p] : c.cpus()) CHECK_FALSE(p.source.empty());
}

TEST_CASE("catalog numbers are the datasheet values in SI units", "[catalog]") {
  const GpuModel& a = cat().gpu("a100-pcie-40gb");
  // A100 datasheet: 108 SMs, 1555 GB/s, TF32 156 TFLOP/s dense, 12 NVLinks x 25 GB/s per direction.
  CHECK(a.sms == 108);
  CHECK(a.memory_bandwidth.bytes_per_s == Approx(1555e9));
  CHECK(a.peak_flops.at("tf32") == Approx(156e12));
  CHECK(a.nvlink_links == 12);
  CHECK(a.nvlink_per_link.bytes_per_s == Approx(25e9));
  CHECK(a.sm_version == 80);
  // Volta has no TF32/BF16 tensor path.
  CHECK(cat().gpu("v100-sxm2-16gb").peak_flops.count("tf32") == 0);
  // PCIe Gen4 lane: 16 GT/s x 128/130 / 8 bits = 1.9692 GB/s.
  CHECK(cat().pcie("gen4").per_lane.bytes_per_s == Approx(16e9 * 128.0 / 130.0 / 8.0).epsilon(1e-6));
  // 100 GbE line rate = 100e9 / 8 = 12.5e9 B/s.
  CHECK(cat().nic("connectx-6-dx-100g").port_speed.bytes_per_s == Approx(12.5e9));
  CHECK(cat().nic("connectx-6-dx-100g").ports == 2);
}

TEST_CASE("MIG tables: A100-40GB geometry from docs/SOURCES.md#mig-vgpu", "[catalog][mig]") {
  const auto& m = cat().gpu("a100-pcie-40gb").mig_profiles;
  REQUIRE(m.size() == 6);
  // 1g.5gb: 14 SMs, 1/8 of memory, up to 7 instances; 7g.40gb: 98 SMs.
  CHECK(m.front().name == "1g.5gb");
  CHECK(m.front().sms == 14);
  CHECK(m.front().max_instances == 7);
  CHECK(m.back().name == "7g.40gb");
  CHECK(m.back().sms == 98);
  CHECK(m.back().memory == static_cast<Bytes>(39.5 * GiB));
  CHECK(cat().gpu("a100-sxm-80gb").mig_profiles.back().name == "7g.80gb");
  CHECK(cat().gpu("h200-sxm").mig_profiles.front().name == "1g.18gb");
  CHECK(cat().gpu("v100-sxm2-16gb").mig_profiles.empty());
  for (const auto& [k, g] : cat().gpus())
    for (const auto& p : g.mig_profiles) CHECK(p.placements.size() >= p.max_instances);
}

TEST_CASE("unknown catalog keys suggest the closest", "[catalog]") {
  try {
    cat().gpu("a100-pcie-40g");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("a100-pcie-40gb"));
  }
  CHECK_THROWS_AS(Catalog::load("/nonexistent/dir"), InputError);
}

TEST_CASE("NVLink: the per-link rate NCCL assumes is recorded beside the datasheet rate", "[catalog]") {
  // NCCL topo.h (docs/SOURCES.md#nccl-tuning): SM80_NVLINK_BW 20 GB/s, SM90_NVLINK_BW 20.6 GB/s per link and direction;
  // datasheets: 25 GB/s per link and direction.
  CHECK(cat().gpu("a100-sxm-80gb").nvlink_nccl_per_link.bytes_per_s == Approx(20e9));
  CHECK(cat().gpu("a100-sxm-80gb").nvlink_per_link.bytes_per_s == Approx(25e9));
  CHECK(cat().gpu("h100-sxm").nvlink_nccl_per_link.bytes_per_s == Approx(20.6e9));
  // An entry without nccl_per_link (RTX 2080 Ti bridge) keeps the datasheet rate.
  CHECK(cat().gpu("rtx-2080-ti").nvlink_nccl_per_link.bytes_per_s == Approx(25e9));
}

TEST_CASE("NVLink: nccl_per_link above the datasheet rate is an InputError naming the entry", "[catalog]") {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(VGSIM_DATA_DIR) / "topologies" / "catalog";
  const fs::path dir = fs::temp_directory_path() / "vgsim-test-catalog-nccl-per-link";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(src)) fs::copy_file(e.path(), dir / e.path().filename());
  std::stringstream ss;
  ss << std::ifstream(dir / "gpus.json").rdbuf();
  std::string text = ss.str();
  const std::string from = "\"nccl_per_link\": \"20.6GB/s\"";
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  text.replace(pos, from.size(), "\"nccl_per_link\": \"30GB/s\"");
  std::ofstream(dir / "gpus.json", std::ios::trunc) << text;
  try {
    Catalog::load(dir.string());
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("gpus.json"));
    CHECK_THAT(e.what(), Catch::Contains("nccl_per_link"));
    CHECK_THAT(e.what(), Catch::Contains("at most per_link"));
  }
  fs::remove_all(dir);
}
