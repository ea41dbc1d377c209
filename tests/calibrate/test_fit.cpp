// Tests of the alpha-beta fits: exact recovery on synthetic piecewise-linear data, constraints, prediction, the
// quality table on every data/measured table (median relative error <= 8 % each; printed), fit-profile JSON round
// trip, cross-validation by size range and by scale.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/calibrate/cross_validation.hpp"
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/fit_profile.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/osu_import.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim::calibrate;
namespace fs = std::filesystem;

namespace {
const fs::path kData = fs::path(VGSIM_MEASURED_DIR);

SeriesKey synthetic_key(std::int64_t nranks = 8) {
  SeriesKey k;
  k.op = "allreduce", k.algo = "ring", k.proto = "simple", k.dtype = "float";
  k.nranks = nranks, k.nnodes = 1, k.gpus_per_node = nranks, k.library = "nccl", k.source = "synthetic";
  return k;
}

// t = 5 us + S / (1 GB/s) below 64 KiB, 20 us + S / (10 GB/s) from 64 KiB (1 GB/s = 1e3 B/us).
Series two_piece() {
  Series s{synthetic_key(), {}};
  for (std::int64_t S = 8; S <= (std::int64_t(1) << 30); S *= 2)
    s.points.push_back({S, S < 65536 ? 5.0 + double(S) / 1e3 : 20.0 + double(S) / 1e4});
  return s;
}

std::vector<std::pair<std::string, std::vector<Series>>> all_tables() {
  std::vector<std::pair<std::string, std::vector<Series>>> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kData / "nccl-tests")) files.push_back(e.path());
  for (const auto& e : fs::directory_iterator(kData / "osu-openmpi"))
    if (e.path().extension() == ".txt") files.push_back(e.path());  // not the folder's README.md
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    const std::string name = p.filename().string();
    std::vector<Measurement> recs;
    if (p.parent_path().filename() == "osu-openmpi") {
      recs = import_osu(p.string());
    } else {
      ImportHints h;
      if (name.find("nccl-1161") != std::string::npos) h.nranks = 2;
      recs = import_nccl_tests(p.string(), h);
    }
    out.emplace_back(name, group_series(recs));
  }
  return out;
}
}  // namespace

TEST_CASE("segmented fit recovers an exact two-piece alpha-beta law", "[calibrate][fit]") {
  const auto f = fit_segmented(two_piece());
  REQUIRE(f.segments.size() == 2);
  CHECK(f.breakpoints() == std::vector<std::int64_t>{65536});
  CHECK(f.segments[0].alpha_us == Approx(5.0).epsilon(1e-9));
  CHECK(*f.segments[0].bandwidth_GBps() == Approx(1.0).epsilon(1e-9));
  CHECK(f.segments[1].alpha_us == Approx(20.0).epsilon(1e-9));
  CHECK(*f.segments[1].bandwidth_GBps() == Approx(10.0).epsilon(1e-9));
  CHECK(f.quality.max_rel_error < 1e-9);
  CHECK(f.excluded_points == 0);
  // predict: 1 MiB is in segment 2: 20 + 1048576 / 1e4 = 124.8576 us; 1 KiB in segment 1: 5 + 1.024 us.
  CHECK(f.predict_us(1048576) == Approx(124.8576).epsilon(1e-9));
  CHECK(f.predict_us(1024) == Approx(6.024).epsilon(1e-9));
  // Hockney (one line) cannot follow the kink: its worst error is large.
  const auto h = fit_hockney(two_piece());
  CHECK(h.segments.size() == 1);
  CHECK(h.quality.max_rel_error > 0.2);
}

TEST_CASE("fit constraints: alpha, beta >= 0; a flat series has no bandwidth term", "[calibrate][fit]") {
  Series s{synthetic_key(), {{8, 12.0}, {16, 11.9}, {32, 11.8}, {64, 11.7}}};
  const auto f = fit_hockney(s, FitOptions{1, 3, 0.01, 0});
  // Decreasing times: unconstrained beta < 0; the constrained fit sets beta = 0 and alpha minimises the relative
  // error: alpha = sum(1/t) / sum(1/t^2).
  CHECK(f.segments[0].beta_us_per_byte == 0.0);
  CHECK_FALSE(f.segments[0].bandwidth_GBps().has_value());
  double su = 0, suu = 0;
  for (const auto& p : s.points) su += 1 / p.time_us, suu += 1 / (p.time_us * p.time_us);
  CHECK(f.segments[0].alpha_us == Approx(su / suu).epsilon(1e-12));
  CHECK_THROWS_AS(fit_segmented(Series{synthetic_key(), {{8, 0.0}}}), std::invalid_argument);
}

TEST_CASE("segmented fit: median relative error <= 8 % on every data/measured table", "[calibrate][fit][data]") {
  // Acceptance bound of the brief; docs/SOURCES.md#cost-models reports 0.6-8 % median for 3 fixed segments on these
  // tables. Printed: per series, segmented vs Hockney median / max relative error.
  std::printf("\n%-82s %-14s %4s %3s %3s %8s %8s | %8s %8s\n", "file", "series", "pts", "seg", "out", "med%", "max%",
              "hock.med", "hock.max");
  double worst = 0;
  std::size_t series_count = 0;
  for (const auto& [name, series] : all_tables()) {
    for (const auto& s : series) {
      const auto f = fit_segmented(s);
      const auto h = fit_hockney(s);
      std::printf("%-82s %-14s %4zu %3zu %3lld %8.2f %8.2f | %8.2f %8.2f\n", name.c_str(),
                  (s.key.op + (s.key.in_place ? " in" : " out")).c_str(), s.points.size(), f.segments.size(),
                  static_cast<long long>(f.excluded_points), 100 * f.quality.median_rel_error,
                  100 * f.quality.max_rel_error, 100 * h.quality.median_rel_error, 100 * h.quality.max_rel_error);
      INFO(name << " " << s.key.label());
      CHECK(f.quality.median_rel_error <= 0.08);
      CHECK(f.quality.points == static_cast<std::int64_t>(s.points.size()));
      CHECK(f.segments.size() <= 4);
      worst = std::max(worst, f.quality.median_rel_error);
      ++series_count;
    }
  }
  std::printf("worst median relative error: %.2f %% over %zu series\n", 100 * worst, series_count);
  // 7 nccl-tests files: 2080Ti 3 ops x 2 groups, stas00 1, others 2 each -> 6 + 1 + 5 x 2 = 17; 48 OSU files.
  CHECK(series_count == 17 + 48);
}

TEST_CASE("fit profile JSON round trip is exact and validated", "[calibrate][fit][profile]") {
  FitProfile p;
  p.provenance.sources = {"synthetic", "gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt"};
  p.provenance.date = "2026-07-01";
  p.provenance.note = "test";
  p.fits.push_back(fit_segmented(two_piece()));
  const auto p5 = group_series(import_nccl_tests(
      (kData / "nccl-tests" / "gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt")
          .string()));
  for (const auto& s : p5) p.fits.push_back(fit_segmented(s));
  p.fits.push_back(fit_hockney(Series{synthetic_key(), {{8, 12.0}, {16, 11.9}, {32, 11.8}}}));  // beta = 0 -> null
  const std::string text = dump_fit_profile(p);
  const FitProfile back = fit_profile_from_json(nlohmann::json::parse(text), "p.json");
  CHECK(back == p);
  CHECK(dump_fit_profile(back) == text);
  CHECK(text.find("\"bandwidth_GBps\": null") != std::string::npos);
  REQUIRE(back.find(p5[0].key) != nullptr);
  CHECK(back.find(p5[0].key)->predict_us(1 << 20) == p.fits[1].predict_us(1 << 20));
  // File round trip.
  const fs::path out = fs::path(VGSIM_BINARY_DIR) / "test_calibrate_profile.json";
  write_fit_profile(out.string(), p);
  CHECK(read_fit_profile(out.string()) == p);
  fs::remove(out);
  // A hand-edited bandwidth that no longer matches beta is rejected with its JSON path.
  auto j = nlohmann::json::parse(text);
  j["fits"][0]["segments"][1]["bandwidth_GBps"] = 11.0;
  CHECK_THROWS_WITH(fit_profile_from_json(j, "p.json"),
                    Catch::Contains("p.json") && Catch::Contains("$.fits[0].segments[1].bandwidth_GBps"));
  auto k = nlohmann::json::parse(text);
  k["fits"][0]["modle"] = "segmented";
  CHECK_THROWS_WITH(fit_profile_from_json(k, "p.json"), Catch::Contains("modle"));
}

TEST_CASE("cross-validation by size range and by scale", "[calibrate][fit][cv]") {
  // Synthetic: fitting the exact law on sizes <= 256 MiB predicts 512 MiB and 1 GiB exactly.
  const auto cv = cross_validate_sizes(two_piece(), 0, 256 << 20);
  CHECK(cv.test.points == 2);
  CHECK(cv.test.max_rel_error < 1e-9);
  // Synthetic ring law t = 2(n-1) a + 2(n-1)/n S b: a fit at n = 2 rescaled to n = 8 is exact.
  const double a = 3.0, b = 1.0 / 5e3;  // 3 us per step, 5 GB/s
  auto ring = [&](std::int64_t n) {
    Series s{synthetic_key(n), {}};
    for (std::int64_t S = 1024; S <= (1 << 28); S *= 4)
      s.points.push_back({S, 2.0 * double(n - 1) * a + busbw_factor("allreduce", n) * double(S) * b});
    return s;
  };
  const auto scv = cross_validate_scale(ring(2), ring(8));
  CHECK(scv.test.max_rel_error < 1e-9);

  // Real data, reported: p5 (2x8 H100) fitted on <= 1 GiB, tested on 2..16 GiB.
  const auto p5 = group_series(import_nccl_tests(
      (kData / "nccl-tests" / "gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt")
          .string()));
  const auto big = cross_validate_sizes(p5[0], 0, std::int64_t(1) << 30);
  std::printf("CV p5 out-of-place, fit <= 1 GiB, test 2-16 GiB: test median %.2f %%, max %.2f %%\n",
              100 * big.test.median_rel_error, 100 * big.test.max_rel_error);
  CHECK(big.test.points == 4);
  // Above 1 GiB busbw still rises 444 -> 487 GB/s (file), so a line fitted below over-predicts by at most
  // 1 - 443.7/487.1 = 9 % plus the segment's own error; bound 15 %.
  CHECK(big.test.max_rel_error < 0.15);
  // Real data, reported: Open MPI ring allreduce (algo4), 100 Gb, 2 nodes -> 4 nodes, 4 KB..1 MB.
  const auto two = group_series(import_osu((kData / "osu-openmpi" / "allreduce-100g-2cpu-algo4-step1k.txt").string()));
  const auto four = group_series(import_osu((kData / "osu-openmpi" / "allreduce-100g-4cpu-algo4-step1k.txt").string()));
  const auto sc = cross_validate_scale(two[0], four[0]);
  std::printf("CV Open MPI ring 100g, fit 2 nodes, predict 4 nodes: median %.2f %%, max %.2f %%\n",
              100 * sc.test.median_rel_error, 100 * sc.test.max_rel_error);
  CHECK(sc.test.points == 256);
}
