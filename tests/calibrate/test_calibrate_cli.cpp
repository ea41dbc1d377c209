// End-to-end tests of `vgsim calibrate` saying what it did (issue 38 item 7): fit prints the error decomposition
// and the held-out error by default on a real nccl-tests log (data/measured), warns on stderr and in the profile
// when calibrating made held-out sizes worse; fit-mpi --cross-validate --out writes its file; every calibrate
// subcommand with an --out it cannot write exits 2 naming the path, before any fitting, and writes nothing.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../cli/cli_run.hpp"
#include "vgsim/calibrate/jsonl.hpp"
#include "vgsim/calibrate/sim_fit.hpp"
#include "vgsim/kernel/units.hpp"

using namespace vgsim;
using namespace vgsim::calibrate;
using vgsim::test::run_vgsim;
namespace fs = std::filesystem;

namespace {
std::string tmp(const std::string& name) { return vgsim::test::temp_path("vgsim-calcli", name); }
const std::string kMeasured = VGSIM_MEASURED_DIR;
const std::string kDgx = kMeasured + "/nccl-tests/gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}
}  // namespace

TEST_CASE("calibrate fit reports the error decomposition and the held-out error by default", "[cli][calibrate]") {
  const std::string m = tmp("dgx.jsonl"), p = tmp("dgx-profile.json");
  REQUIRE(run_vgsim("calibrate import " + kDgx + " --nranks 8 --out " + m).status == 0);
  const auto r = run_vgsim("calibrate fit " + m + " --cluster dgx-a100 --out " + p);
  INFO(r.out);
  REQUIRE(r.status == 0);
  // The table of the three stages over the table's 20 records, the shares with their sum (the identity of
  // fit_report.hpp: 100.0 %), and, without any flag, the auto rule's two held-out groups (test_fit_report.cpp).
  CHECK_THAT(r.out, Catch::Contains("error decomposition over 20 records"));
  CHECK_THAT(r.out, Catch::Contains("catalog (uncalibrated)") && Catch::Contains("physical parameters") &&
                        Catch::Contains("+ per-size corrections"));
  CHECK_THAT(r.out, Catch::Contains("(sum 100.0 %)"));
  CHECK_THAT(r.out, Catch::Contains("held-out sizes (--holdout auto; fitted again on 13 records"));
  CHECK_THAT(r.out, Catch::Contains("interpolated") && Catch::Contains("128 KiB, 2 MiB, 32 MiB, 512 MiB"));
  CHECK_THAT(r.out, Catch::Contains("extrapolated") && Catch::Contains("4 GiB, 8 GiB, 16 GiB"));
  // The profile carries the same report.
  const auto j = read_json(p);
  REQUIRE(j.contains("fit_report"));
  CHECK(j["fit_report"]["in_sample"]["records"] == 20);
  CHECK(j["fit_report"]["held_out"].size() == 2);
  CHECK(j["fit_report"]["held_out_rule"] == "auto");
  // --holdout none: one fit, no held-out table; the decomposition stays.
  const auto once = run_vgsim("calibrate fit " + m + " --cluster dgx-a100 --holdout none --out " + p);
  CHECK(once.status == 0);
  CHECK_THAT(once.out, Catch::Contains("error decomposition over 20 records"));
  CHECK_THAT(once.out, !Catch::Contains("held-out sizes ("));
  // A rule that holds out nothing exits 2 naming --holdout, before fitting.
  const auto bad = run_vgsim("calibrate fit " + m + " --cluster dgx-a100 --holdout 'sizes>=64GiB' --out " +
                             p);  // quoted: >= is a shell redirection
  CHECK(bad.status == 2);
  CHECK_THAT(bad.out, Catch::Contains("--holdout") && Catch::Contains("leaves one side empty"));
}

TEST_CASE("calibrate fit warns on stderr and in the profile when held-out sizes got worse than the catalog",
          "[cli][calibrate]") {
  // Constructed as in test_fit_report.cpp: dgx-a100's catalog simulation at 32 KiB .. 16 GiB, x 1.4 at 1 and 2 GiB
  // (the largest fitted sizes), exact elsewhere. The per-size corrections carry the 1.4 to the extrapolated sizes,
  // where the catalog is exact: the warning names them and recommends --no-size-corrections.
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog);
  SimTarget t;
  t.cluster = &cluster;
  t.nodes = 1, t.gpus_per_node = 8;
  std::vector<Measurement> recs;
  for (std::int64_t s = 32 * KiB; s <= 16 * GiB; s *= 2) {
    CollectiveMeasurement c;
    c.op = "allreduce", c.algo = "default", c.proto = "default", c.dtype = "float", c.redop = "sum";
    c.size_bytes = s, c.count = s / 4, c.nnodes = 1, c.gpus_per_node = 8, c.nranks = 8;
    c.time_us = 1.0, c.library = "nccl", c.source = "synthetic";
    recs.emplace_back(c);
  }
  const auto rep = validate_measurements(recs, &t, nullptr);
  REQUIRE(rep.rows.size() == recs.size());
  for (std::size_t i = 0; i < recs.size(); ++i) {
    auto& c = std::get<CollectiveMeasurement>(recs[i]);
    c.time_us = rep.rows[i].simulated_us * (c.size_bytes == GiB || c.size_bytes == 2 * GiB ? 1.4 : 1.0);
  }
  const std::string m = tmp("overfit.jsonl"), p = tmp("overfit-profile.json"), err = tmp("overfit.err");
  write_jsonl(m, recs);
  const auto r = vgsim::test::run_command(std::string(VGSIM_EXE) + " calibrate fit " + m +
                                          " --cluster dgx-a100 --out " + p + " 2>" + err);
  REQUIRE(r.status == 0);
  std::ifstream e(err);
  const std::string stderr_text((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  CHECK_THAT(stderr_text, Catch::Contains("WARNING: calibration made held-out sizes worse than the catalog: "
                                          "extrapolated: 4 GiB, 8 GiB, 16 GiB; 3 records"));
  CHECK_THAT(stderr_text, Catch::Contains("--no-size-corrections"));
  const auto j = read_json(p);
  REQUIRE(j["fit_report"]["warnings"].size() >= 1);
  bool named = false;
  for (const auto& w : j["fit_report"]["warnings"])
    named |= w.get<std::string>().find("extrapolated") != std::string::npos;
  CHECK(named);
  // The recommended refit: no corrections, no warning, no residual factors in the profile.
  const auto plain = vgsim::test::run_command(std::string(VGSIM_EXE) + " calibrate fit " + m +
                                              " --cluster dgx-a100 --no-size-corrections --out " + p + " 2>" + err);
  REQUIRE(plain.status == 0);
  std::ifstream e2(err);
  const std::string stderr2((std::istreambuf_iterator<char>(e2)), std::istreambuf_iterator<char>());
  CHECK_THAT(stderr2, !Catch::Contains("extrapolated:"));
  CHECK(read_json(p)["residuals"].empty());
  CHECK(read_json(p)["fit_report"]["size_corrections"] == false);
}

TEST_CASE("calibrate fit-mpi --cross-validate --out writes the profile fitted on the small runs", "[cli][calibrate]") {
  const std::string osu = kMeasured + "/osu-openmpi/";
  const std::string p = tmp("cv.json");
  fs::remove(p);
  const auto r = run_vgsim("calibrate fit-mpi " + osu + "allreduce-100g-2cpu-algo4-step1k.txt " + osu +
                           "allreduce-100g-4cpu-algo4-step1k.txt --cross-validate --points-per-file 16 --out " + p);
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("wrote " + p));
  const auto j = read_json(p);
  // The parameters fitted on the 2-node file (what --mpi-profile reads) and the figures of predicting 4 nodes.
  CHECK(j["network"] == "100g");
  CHECK(j["nodes"] == nlohmann::json::array({2}));
  CHECK(j["parameters"].contains("mpi.latency"));
  CHECK(j["cross_validation"]["fit_nodes"] == 2);
  CHECK(j["cross_validation"]["predict_nodes"] == 4);
  CHECK(j["cross_validation"]["files"].size() == 1);
  // It is a profile the Open MPI model applies (no error; a warning for the node count it was not fitted on).
  const auto use = run_vgsim(
      "collective --library mpi --cluster osu-ompi-4x-100g --nodes 4 -b 4000 -e 4000 "
      "--mpi-profile " +
      p);
  CHECK(use.status == 0);
  CHECK_THAT(use.out, Catch::Contains("node count 4 outside"));
}

TEST_CASE("every calibrate --out that cannot be written exits 2 naming it, before fitting, writing nothing",
          "[cli][calibrate]") {
  const std::string dir = tmp("no-such-folder");
  fs::remove_all(dir);
  const std::string out = dir + "/out.json", osu = kMeasured + "/osu-openmpi/";
  const std::string m = tmp("dgx-for-out.jsonl");
  REQUIRE(run_vgsim("calibrate import " + kDgx + " --nranks 8 --out " + m).status == 0);
  for (const std::string& args :
       {"calibrate import " + kDgx + " --nranks 8 --out " + out,
        "calibrate fit " + m + " --cluster dgx-a100 --out " + out,
        "calibrate fit-training " + std::string(VGSIM_DATA_DIR) + "/data/training/hvd17-tcp-rdma.csv --out " + out,
        "calibrate fit-mpi " + osu + "allreduce-100g-2cpu-algo4-step1k.txt --out " + out,
        "calibrate fit-mpi " + osu + "allreduce-100g-2cpu-algo4-step1k.txt " + osu +
            "allreduce-100g-4cpu-algo4-step1k.txt --cross-validate --out " + out,
        "calibrate import-megatron " + std::string(VGSIM_DATA_DIR) +
            "/tests/calibrate/data/megatron-sc21-1.7b.log --cluster selene-a100-384 --nodes 4 --gpus-per-node 8 "
            "--out " +
            out}) {
    INFO(args);
    const auto r = run_vgsim(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains(out) && Catch::Contains("cannot create output file"));
    CHECK_THAT(r.out, !Catch::Contains("error decomposition"));  // refused before the fit
    CHECK_FALSE(fs::exists(dir));
  }
}
