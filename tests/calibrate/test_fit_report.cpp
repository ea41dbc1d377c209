// Tests of what a calibration fit reports about itself (issue 38 item 7, fit_report.hpp, size_holdout.hpp): the error
// decomposition and its shares, the auto hold-out rule, the held-out errors on a real nccl-tests table
// (data/measured, dgx-a100: 20 sizes, the cheapest table with enough of them), and the held-out warning on a
// constructed table whose largest fitted sizes deviate (fires) and on a clean one (does not).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "vgsim/calibrate/calibration_profile.hpp"
#include "vgsim/calibrate/fit_report.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/sim_fit.hpp"
#include "vgsim/calibrate/size_holdout.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/units.hpp"

using namespace vgsim;
using namespace vgsim::calibrate;
namespace fs = std::filesystem;

namespace {
const fs::path kDgxTable =
    fs::path(VGSIM_MEASURED_DIR) / "nccl-tests" / "gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt";

std::vector<Measurement> dgx_records() {
  ImportHints eight;
  eight.nranks = 8;
  return import_nccl_tests(kDgxTable.string(), eight);
}

// Mean |ln(simulated / measured)| of a validation report's rows (fit_report.hpp's E).
double mean_abs_log(const ValidationReport& rep) {
  double s = 0;
  for (const auto& r : rep.rows) s += std::abs(std::log(r.simulated_us / r.measured_us));
  return s / double(rep.rows.size());
}

// 32 KiB .. 16 GiB doubling: the dgx-a100 table's 20 sizes.
std::vector<std::int64_t> dgx_sizes() {
  std::vector<std::int64_t> s;
  for (std::int64_t b = 32 * KiB; b <= 16 * GiB; b *= 2) s.push_back(b);
  return s;
}
}  // namespace

TEST_CASE("error decomposition: E per stage and shares that sum to 100 %", "[calibrate][fitreport]") {
  // Two records, measured 100 and 200 us. E_X = mean |ln(s/m)|:
  //   catalog   150, 100: (ln 1.5 + ln 2) / 2         = (0.405465 + 0.693147) / 2 = 0.549306
  //   physical  110, 180: (ln 1.1 + |ln 0.9|) / 2     = (0.095310 + 0.105361) / 2 = 0.100335
  //   corrected 101, 198: (ln 1.01 + |ln 0.99|) / 2   = (0.009950 + 0.010050) / 2 = 0.010000
  // shares: physical (0.549306 - 0.100335) / 0.549306 = 0.817340, corrections (0.100335 - 0.010000) / 0.549306 =
  // 0.164455, left 0.010000 / 0.549306 = 0.018205; identity: their sum is 1.
  const ErrorDecomposition d = decompose_errors({100, 200}, {150, 100}, {110, 180}, {101, 198});
  CHECK(d.records == 2);
  CHECK(d.catalog.mean_abs_log == Approx(0.549306).epsilon(1e-5));
  CHECK(d.physical.mean_abs_log == Approx(0.100335).epsilon(1e-5));
  CHECK(d.corrected.mean_abs_log == Approx(0.0100003).epsilon(1e-4));
  CHECK(d.catalog.max_rel == Approx(0.5));      // |150/100 - 1| and |100/200 - 1| are both 0.5
  CHECK(d.catalog.median_rel == Approx(0.5));   // median of {0.5, 0.5}
  CHECK(d.physical.median_rel == Approx(0.1));  // median of {0.1, 0.1}
  CHECK(d.share_physical() == Approx(0.817340).epsilon(1e-5));
  CHECK(d.share_corrections() == Approx(0.164455).epsilon(1e-4));
  CHECK(d.share_left() == Approx(0.018205).epsilon(1e-3));
  CHECK(d.share_physical() + d.share_corrections() + d.share_left() == Approx(1.0).epsilon(1e-12));
  // A stage that raises E has a negative share: physical 300, 400 (E = ln 3 + ln 2 over 2 = 0.895880).
  const ErrorDecomposition worse = decompose_errors({100, 200}, {150, 100}, {300, 400}, {101, 198});
  CHECK(worse.share_physical() == Approx((0.549306 - 0.895880) / 0.549306).epsilon(1e-5));
  CHECK(worse.share_physical() + worse.share_corrections() + worse.share_left() == Approx(1.0).epsilon(1e-12));
  // No catalog error: no share to give (all 0), not a division by zero.
  const ErrorDecomposition exact = decompose_errors({100}, {100}, {100}, {100});
  CHECK(exact.share_physical() == 0.0);
  CHECK(exact.share_left() == 0.0);
}

TEST_CASE("the auto hold-out rule: every 4th inner size and the largest eighth", "[calibrate][fitreport]") {
  // n = 20 sizes (32 KiB .. 16 GiB): extrapolated = the largest ceil(20 / 8) = 3 (4, 8, 16 GiB); of the other 17
  // (indices 0..16), indices 2, 6, 10, 14 (i mod 4 = 2, i < 16): 128 KiB, 2 MiB, 32 MiB, 512 MiB.
  std::vector<std::int64_t> sizes = dgx_sizes();
  std::reverse(sizes.begin(), sizes.end());  // any order, repeats allowed
  sizes.push_back(sizes.front());
  const SizeSplit s = split_sizes(parse_size_holdout("auto"), sizes);
  REQUIRE(s.groups.size() == 2);
  CHECK(s.note.empty());
  CHECK(s.groups[0].first == "interpolated");
  CHECK(s.groups[0].second == std::vector<std::int64_t>{128 * KiB, 2 * MiB, 32 * MiB, 512 * MiB});
  CHECK(s.groups[1].first == "extrapolated");
  CHECK(s.groups[1].second == std::vector<std::int64_t>{4 * GiB, 8 * GiB, 16 * GiB});
  // Each interpolated size has fitted neighbours on both sides (its index +- 1 is neither held out nor the end).
  // Seven sizes: too few for the rule (kAutoHoldoutMinSizes = 8), a note instead of a figure.
  const SizeSplit few = split_sizes(parse_size_holdout("auto"), {1, 2, 4, 8, 16, 32, 64});
  CHECK(few.groups.empty());
  CHECK_THAT(few.note, Catch::Contains("only 7 distinct size(s)"));
  // sizes>=X: one group named by the rule; a rule that holds out nothing or everything is refused.
  const SizeSplit big = split_sizes(parse_size_holdout("sizes>=64MiB"), dgx_sizes());
  REQUIRE(big.groups.size() == 1);
  CHECK(big.groups[0].first == "sizes>=64MiB");
  CHECK(big.groups[0].second.front() == 64 * MiB);
  CHECK(big.groups[0].second.size() == 9);  // 64 MiB .. 16 GiB doubling
  CHECK_THROWS_WITH(split_sizes(parse_size_holdout("sizes>=32GiB"), dgx_sizes()),
                    Catch::Contains("--holdout") && Catch::Contains("leaves one side empty"));
  CHECK(split_sizes(parse_size_holdout("none"), dgx_sizes()).groups.empty());
  CHECK_THROWS_WITH(parse_size_holdout("sizes=1MiB"), Catch::Contains("--holdout") && Catch::Contains("bad hold-out"));
  CHECK_THROWS_AS(parse_size_holdout("every"), InputError);
}

TEST_CASE("fit on a real nccl-tests table: decomposition as replayed, held-out errors of a fit without them",
          "[calibrate][fitreport][data]") {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog);
  SimTarget target;
  target.cluster = &cluster;
  target.nodes = 1, target.gpus_per_node = 8;
  const auto records = dgx_records();
  CalibrationFitOptions auto_rule;
  auto_rule.holdout = parse_size_holdout("auto");
  const CalibrationProfile prof = fit_calibration(records, &target, CalibrationProvenance{}, auto_rule);
  const FitReport& r = prof.report;
  // In sample: the three E figures are those of replaying the records uncalibrated, with the profile's parameters
  // and plan choice only (residual factors removed), and with the whole profile (validate_measurements).
  REQUIRE(r.in_sample.records == 20);
  const auto cat = validate_measurements(records, &target, nullptr);
  CalibrationProfile physical_only = prof;
  physical_only.residuals.clear();
  const auto phys = validate_measurements(records, &target, &physical_only);
  const auto full = validate_measurements(records, &target, &prof);
  CHECK(r.in_sample.catalog.mean_abs_log == Approx(mean_abs_log(cat)).epsilon(1e-9));
  CHECK(r.in_sample.physical.mean_abs_log == Approx(mean_abs_log(phys)).epsilon(1e-9));
  CHECK(r.in_sample.corrected.mean_abs_log == Approx(mean_abs_log(full)).epsilon(1e-9));
  CHECK(r.in_sample.corrected.median_rel == Approx(full.quality.median_rel_error).epsilon(1e-9));
  const double sum = r.in_sample.share_physical() + r.in_sample.share_corrections() + r.in_sample.share_left();
  CHECK(sum == Approx(1.0).epsilon(1e-12));
  std::printf(
      "  dgx-a100 in sample: E catalog %.1f %%, physical %.1f %%, corrected %.1f %%; shares %.1f / %.1f / %.1f %%\n",
      100 * r.in_sample.catalog.mean_abs_log, 100 * r.in_sample.physical.mean_abs_log,
      100 * r.in_sample.corrected.mean_abs_log, 100 * r.in_sample.share_physical(),
      100 * r.in_sample.share_corrections(), 100 * r.in_sample.share_left());
  // Held out: the auto rule's groups (the rule test above) and their records (one per size in this table).
  CHECK(r.held_out_rule == "auto");
  CHECK(r.held_out_train_records == 13);  // 20 - 4 - 3
  REQUIRE(r.held_out.size() == 2);
  CHECK(r.held_out[0].errors.records == 4);
  CHECK(r.held_out[1].errors.records == 3);
  // The held-out figures are those of a profile fitted on the other 13 records, replayed on the 7 held out.
  std::vector<Measurement> train, test;
  for (const auto& m : records) {
    const auto s = std::get<CollectiveMeasurement>(m).size_bytes;
    const bool held = std::any_of(r.held_out.begin(), r.held_out.end(), [&](const HeldOutGroup& g) {
      return std::binary_search(g.sizes_bytes.begin(), g.sizes_bytes.end(), s);
    });
    (held ? test : train).push_back(m);
  }
  const CalibrationProfile without = fit_calibration(train, &target, CalibrationProvenance{});
  const auto test_cat = validate_measurements(test, &target, nullptr);
  const auto test_cal = validate_measurements(test, &target, &without);
  const double e_cat =
      (4 * r.held_out[0].errors.catalog.mean_abs_log + 3 * r.held_out[1].errors.catalog.mean_abs_log) / 7;
  const double e_cal =
      (4 * r.held_out[0].errors.corrected.mean_abs_log + 3 * r.held_out[1].errors.corrected.mean_abs_log) / 7;
  CHECK(e_cat == Approx(mean_abs_log(test_cat)).epsilon(1e-9));
  CHECK(e_cal == Approx(mean_abs_log(test_cal)).epsilon(1e-9));
  for (const auto& g : r.held_out)
    std::printf("  dgx-a100 held out %s (%s): E catalog %.1f %%, physical %.1f %%, corrected %.1f %%\n", g.name.c_str(),
                format_sizes(g.sizes_bytes).c_str(), 100 * g.errors.catalog.mean_abs_log,
                100 * g.errors.physical.mean_abs_log, 100 * g.errors.corrected.mean_abs_log);
  // A warning exactly where the calibrated held-out E is above the catalog's.
  std::size_t worse = 0;
  for (const auto& g : r.held_out) worse += worse_than(g.errors.corrected.mean_abs_log, g.errors.catalog.mean_abs_log);
  CHECK(r.warnings.size() == worse);
  // The report survives the profile's JSON round trip.
  const CalibrationProfile back =
      calibration_profile_from_json(nlohmann::json::parse(dump_calibration_profile(prof)), "p");
  CHECK(back.report == prof.report);
}

namespace {
// "Measurements" of dgx-a100 (1 x 8, the table's 20 sizes): the catalog simulation times ratio(size).
std::vector<Measurement> synthetic(const SimTarget& t, double (*ratio)(std::int64_t)) {
  std::vector<Measurement> probe;
  for (const auto s : dgx_sizes()) {
    CollectiveMeasurement c;
    c.op = "allreduce", c.algo = "default", c.proto = "default", c.dtype = "float", c.redop = "sum";
    c.size_bytes = s, c.count = s / 4, c.nnodes = 1, c.gpus_per_node = 8, c.nranks = 8;
    c.time_us = 1.0, c.library = "nccl", c.source = "synthetic";
    probe.emplace_back(c);
  }
  const auto rep = validate_measurements(probe, &t, nullptr);
  REQUIRE(rep.rows.size() == probe.size());
  for (std::size_t i = 0; i < probe.size(); ++i) {
    auto& c = std::get<CollectiveMeasurement>(probe[i]);
    c.time_us = ratio(c.size_bytes) * rep.rows[i].simulated_us;
  }
  return probe;
}
}  // namespace

TEST_CASE("held-out warning: fires when per-size corrections overfit deviating large sizes, not on a clean table",
          "[calibrate][fitreport]") {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog);
  SimTarget target;
  target.cluster = &cluster;
  target.nodes = 1, target.gpus_per_node = 8;
  CalibrationFitOptions auto_rule;
  auto_rule.holdout = parse_size_holdout("auto");
  SECTION("the two largest fitted sizes deviate") {
    // Measured = catalog x 1.4 at 1 and 2 GiB (the largest sizes the auto rule fits), catalog x 1 elsewhere. The
    // catalog is exact on every held-out size (E = 0). The physical stage minimizes the median relative error, which
    // the catalog already holds at 0 over the 13 fitted records (11 exact), so it keeps the catalog values; the
    // corrections follow the rise to 1.4 at 1 and 2 GiB and hold the factor flat above, so the extrapolated sizes
    // (4, 8, 16 GiB) come out off by about ln 1.4 = 33.6 % (38.5 % when written: the segment's slope lifts the factor
    // at 2 GiB a little above 1.4): worse than the catalog, caused by the corrections. Bound: > 10 %.
    const auto recs = synthetic(target, [](std::int64_t s) { return s == GiB || s == 2 * GiB ? 1.4 : 1.0; });
    const CalibrationProfile p = fit_calibration(recs, &target, CalibrationProvenance{}, auto_rule);
    REQUIRE(p.report.held_out.size() == 2);
    const HeldOutGroup& x = p.report.held_out[1];
    CHECK(x.name == "extrapolated");
    CHECK(x.errors.catalog.mean_abs_log < 1e-9);
    CHECK(x.errors.physical.mean_abs_log < 0.01);
    CHECK(x.errors.corrected.mean_abs_log > 0.1);
    CHECK(x.worse_bytes == std::vector<std::int64_t>{4 * GiB, 8 * GiB, 16 * GiB});
    std::printf("  overfit case, extrapolated: E catalog %.1f %%, physical %.1f %%, corrected %.1f %%\n",
                100 * x.errors.catalog.mean_abs_log, 100 * x.errors.physical.mean_abs_log,
                100 * x.errors.corrected.mean_abs_log);
    const auto w = std::find_if(p.report.warnings.begin(), p.report.warnings.end(),
                                [](const std::string& s) { return s.find("extrapolated") != std::string::npos; });
    REQUIRE(w != p.report.warnings.end());
    CHECK_THAT(*w, Catch::Contains("worse than the catalog") && Catch::Contains("4 GiB, 8 GiB, 16 GiB") &&
                       Catch::Contains("--no-size-corrections"));
    // What it recommends works: without per-size corrections the extrapolated sizes are as good as the catalog.
    CalibrationFitOptions plain = auto_rule;
    plain.size_corrections = false;
    const CalibrationProfile q = fit_calibration(recs, &target, CalibrationProvenance{}, plain);
    CHECK(q.residuals.empty());
    CHECK_FALSE(q.report.size_corrections);
    REQUIRE(q.report.held_out.size() == 2);
    CHECK(q.report.held_out[1].errors.corrected.mean_abs_log < 0.01);
    CHECK(q.report.in_sample.corrected == q.report.in_sample.physical);
  }
  SECTION("a clean table: every size 1.3 x the catalog") {
    // Uncalibrated every held-out record is off by ln 1.3 = 26.2 %; the calibration fitted on the others must
    // predict them better, and no warning is given.
    const auto recs = synthetic(target, [](std::int64_t) { return 1.3; });
    const CalibrationProfile p = fit_calibration(recs, &target, CalibrationProvenance{}, auto_rule);
    REQUIRE(p.report.held_out.size() == 2);
    for (const auto& g : p.report.held_out) {
      INFO(g.name);
      CHECK(g.errors.catalog.mean_abs_log == Approx(std::log(1.3)).epsilon(1e-6));
      CHECK(g.errors.corrected.mean_abs_log < g.errors.catalog.mean_abs_log);
      INFO("worse at " << format_sizes(g.worse_bytes));
      CHECK(g.worse_bytes.empty());
    }
    CHECK(p.report.warnings.empty());
  }
}
