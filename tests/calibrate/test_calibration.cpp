// Tests of the calibration profile: Open MPI allreduce schedules (structure and alpha-beta-gamma closed forms),
// the alpha-beta-gamma fit on the 2-node OSU tables predicting 4 nodes, the simulator-parameter fit with residual
// factors on every nccl-tests table (median error <= 8 % after calibration; before/after table printed), and the
// profile JSON round trip. Data through VGSIM_MEASURED_DIR (data/measured).
#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "vgsim/calibrate/alpha_beta_replay.hpp"
#include "vgsim/calibrate/calibration_profile.hpp"
#include "vgsim/calibrate/cross_validation.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/osu_import.hpp"
#include "vgsim/calibrate/sim_fit.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim;
using namespace vgsim::calibrate;
namespace fs = std::filesystem;

namespace {
const fs::path kData = fs::path(VGSIM_MEASURED_DIR);

AlphaBetaGamma abg(double alpha, double beta, double gamma) {
  AlphaBetaGamma m;
  m.segments = {AlphaBetaSegment{0, alpha, beta}};
  m.gamma_us_per_byte = gamma;
  return m;
}
double run(coll::OmpiAllreduce a, std::uint32_t p, Bytes n, const AlphaBetaGamma& m) {
  return replay_ompi_us(coll::ompi_allreduce(a, p, n, 4), m);
}
}  // namespace

TEST_CASE("Open MPI allreduce schedules: message structure", "[calibrate][ompi]") {
  using A = coll::OmpiAllreduce;
  const Bytes n = 1 << 20;
  auto total = [](const coll::OmpiSchedule& s) {
    Bytes b = 0;
    for (const auto& t : s.schedule.transfers) b += t.bytes;
    return b;
  };
  // ring, p = 4: 2 (p-1) steps of p messages of n/p bytes: 24 messages, 2 (p-1) n bytes in all.
  const auto ring = coll::ompi_allreduce(A::Ring, 4, n, 4);
  CHECK(ring.schedule.transfers.size() == 24);
  CHECK(total(ring) == 2 * 3 * n);
  // recursive doubling, p = 4: log2 4 = 2 exchanges of the whole vector by every rank: 8 messages of n.
  const auto rd = coll::ompi_allreduce(A::RecursiveDoubling, 4, n, 4);
  CHECK(rd.schedule.transfers.size() == 8);
  CHECK(total(rd) == 8 * n);
  // rabenseifner, p = 4: halving n/2, n/4 then doubling n/4, n/2 per rank: 4 x (n/2 + n/4) x 2 = 6n.
  const auto rab = coll::ompi_allreduce(A::Rabenseifner, 4, n, 4);
  CHECK(rab.schedule.transfers.size() == 16);
  CHECK(total(rab) == 6 * n);
  // basic linear, p = 4: 3 messages to the root, 3 from it.
  CHECK(coll::ompi_allreduce(A::BasicLinear, 4, n, 4).schedule.transfers.size() == 6);
  // recursive doubling, p = 3 (not a power of two): fold 1 + exchange 2 + unfold 1 messages.
  CHECK(coll::ompi_allreduce(A::RecursiveDoubling, 3, n, 4).schedule.transfers.size() == 4);
  // Ring with fewer elements than ranks falls back to recursive doubling (coll_base): 1 float on 4 ranks.
  CHECK(coll::ompi_allreduce(A::Ring, 4, 4, 4).schedule.transfers.size() == 8);
  // Segmented ring with 64 KiB segments on 1 MiB / 4 ranks: 256 KiB blocks -> 4 phases of (p-1) p RS messages, then
  // (p-1) p allgather messages: 4 x 12 + 12 = 60; with segment 0 (Open MPI's default) it is the plain ring.
  CHECK(coll::ompi_allreduce(A::SegmentedRing, 4, n, 4, 65536).schedule.transfers.size() == 60);
  CHECK(coll::ompi_allreduce(A::SegmentedRing, 4, n, 4, 0).schedule.transfers.size() == 24);
  CHECK(coll::parse_ompi_allreduce("4") == A::Ring);
  CHECK_THROWS_AS(coll::parse_ompi_allreduce("butterfly"), UnitError);
}

TEST_CASE("Open MPI schedules replayed on alpha-beta-gamma match Thakur et al. closed forms", "[calibrate][ompi]") {
  using A = coll::OmpiAllreduce;
  const double a = 10, b = 1e-3, g = 5e-4;  // us, us/B, us/B
  const Bytes n = 1000000;
  const auto m = abg(a, b, g);
  // p = 2. recursive doubling: one full exchange, both directions at once (full duplex): a + n b + n g.
  CHECK(run(A::RecursiveDoubling, 2, n, m) == Approx(a + n * b + n * g).epsilon(1e-6));
  // ring / rabenseifner: 2 (p-1) a + 2 (p-1)/p n b + (p-1)/p n g = 2a + n b + n g / 2.
  CHECK(run(A::Ring, 2, n, m) == Approx(2 * a + n * b + n * g / 2).epsilon(1e-6));
  CHECK(run(A::Rabenseifner, 2, n, m) == Approx(2 * a + n * b + n * g / 2).epsilon(1e-6));
  // p = 4 ring: 6a + 1.5 n b + 0.75 n g.
  CHECK(run(A::Ring, 4, n, m) == Approx(6 * a + 1.5 * n * b + 0.75 * n * g).epsilon(1e-6));
  // p = 4 rabenseifner: 2 log2 p a + 2 (p-1)/p n b + (p-1)/p n g = 4a + 1.5 n b + 0.75 n g.
  CHECK(run(A::Rabenseifner, 4, n, m) == Approx(4 * a + 1.5 * n * b + 0.75 * n * g).epsilon(1e-6));
  // p = 4 basic linear: the root receives and reduces 3 times in turn, then sends 3 copies that share its NIC:
  // 3 (a + n b + n g) + a + 3 n b.
  CHECK(run(A::BasicLinear, 4, n, m) == Approx(3 * (a + n * b + n * g) + a + 3 * n * b).epsilon(1e-6));
  // p = 4 nonoverlapping (binomial reduce + bcast): 2 (a + n b + n g) + 2 (a + n b).
  CHECK(run(A::Nonoverlapping, 4, n, m) == Approx(2 * (a + n * b + n * g) + 2 * (a + n * b)).epsilon(1e-6));
}

TEST_CASE("alpha-beta-gamma fit recovers synthetic parameters", "[calibrate][ompi]") {
  // Data generated by the model itself (two message-size segments, break at 16 KiB) must be fitted exactly.
  AlphaBetaGamma truth;
  truth.segments = {AlphaBetaSegment{0, 40, 1e-3}, AlphaBetaSegment{16384, 150, 8e-4}};
  truth.gamma_us_per_byte = 2e-4;
  std::vector<Series> series;
  for (const char* algo : {"ring", "recursive_doubling", "basic_linear"}) {
    Series s;
    s.key.op = "allreduce", s.key.algo = algo, s.key.nranks = 2, s.key.nnodes = 2, s.key.gpus_per_node = 1;
    for (std::int64_t S = 4000; S <= 2000000; S = S * 3 / 2)
      s.points.push_back({S, predict_ompi_us(truth, algo, 2, S)});
    series.push_back(s);
  }
  const auto fit = fit_alpha_beta_gamma(series);
  CHECK(fit.quality.max_rel_error < 1e-4);  // NNLS tolerance and picosecond rounding
  REQUIRE(fit.model.segments.size() == 2);
  CHECK(fit.model.segments[1].start_bytes == 16384);
  CHECK(fit.model.gamma_us_per_byte == Approx(2e-4).epsilon(1e-4));
}

TEST_CASE("Open MPI: fit on 2 nodes, predict 4 nodes with the algorithm schedules", "[calibrate][ompi][data]") {
  std::printf("\n%-6s %-20s %10s %10s | %10s %10s\n", "net", "algo", "fit med%", "fit max%", "4n med%", "4n max%");
  std::vector<double> medians;
  for (const char* net : {"10g", "100g"}) {
    for (int k = 1; k <= 6; ++k) {
      std::vector<Measurement> two, four;
      for (const auto& e : fs::directory_iterator(kData / "osu-openmpi")) {
        const std::string f = e.path().filename().string();
        const std::string tag = std::string("allreduce-") + net + "-";
        if (f.rfind(tag, 0) != 0 || f.find("-algo" + std::to_string(k) + "-") == std::string::npos) continue;
        auto r = import_osu(e.path().string());
        auto& dst = f.find("-2cpu-") != std::string::npos ? two : four;
        dst.insert(dst.end(), r.begin(), r.end());
      }
      REQUIRE(!two.empty());
      REQUIRE(!four.empty());
      CalibrationProvenance prov;
      prov.date = "2026-07-01";
      const CalibrationProfile prof = fit_calibration(two, nullptr, prov);
      REQUIRE(prof.mpi_models.size() == 1);
      CHECK(prof.mpi_models[0].network == net);
      const auto fit_rep = validate_measurements(two, nullptr, &prof);
      const auto rep = validate_measurements(four, nullptr, &prof);
      CHECK(rep.skipped == 0);
      std::printf("%-6s %-20s %10.2f %10.2f | %10.2f %10.2f\n", net, coll::to_string(coll::OmpiAllreduce(k)),
                  100 * fit_rep.quality.median_rel_error, 100 * fit_rep.quality.max_rel_error,
                  100 * rep.quality.median_rel_error, 100 * rep.quality.max_rel_error);
      medians.push_back(rep.quality.median_rel_error);
      // The fit itself (2 nodes, 3 message-size segments + gamma) follows its training data: median <= 10 %
      // (docs/SOURCES.md#cost-models: segmented fits reach 0.6-8 % median on such tables).
      CHECK(fit_rep.quality.median_rel_error <= 0.10);
      // Ring is the schedule whose 2 -> 4 node scaling is textbook (Thakur et al.: 2(p-1) latencies, 2(p-1)/p n
      // bytes, (p-1)/p n reductions); measured within 12 % median on both networks.
      if (k == 4) CHECK(rep.quality.median_rel_error <= 0.15);
    }
  }
  // Across the 12 (network, algorithm) pairs the 4-node prediction is worse than the fit: the 2-node data cannot
  // show what appears with 4 nodes (switch contention, the algorithm-specific message sizes crossing the eager
  // limit), and the files of different algorithms agree within a few per cent where their schedules predict
  // factors of 2 apart (e.g. basic_linear vs recursive_doubling at 1 MB), a sign that the forced algorithm was not
  // always the one that ran. Bound: the median of the 12 per-series medians stays <= 25 % (measured ~20 %).
  std::sort(medians.begin(), medians.end());
  const double mid = 0.5 * (medians[5] + medians[6]);
  std::printf("median over the 12 series of the 4-node median error: %.1f %%\n", 100 * mid);
  CHECK(mid <= 0.25);
}

TEST_CASE(
    "calibrate validate: Open MPI records on the physical model of a GPU-less cluster without a profile (issue 15)",
    "[calibrate][ompi][data]") {
  const auto recs = import_osu((kData / "osu-openmpi" / "allreduce-10g-2cpu-algo4-step1k.txt").string());
  REQUIRE(recs.size() == 256);  // 4000 .. 1024000 B in 4000 B steps
  // Without a cluster and without a profile: every point skipped, with a reason naming --cluster (no silent guess).
  const auto none = validate_measurements(recs, nullptr, nullptr);
  CHECK(none.rows.empty());
  CHECK(none.skipped == 256);
  REQUIRE(none.skip_reasons.size() == 1);
  CHECK_THAT(none.skip_reasons[0], Catch::Contains("--cluster") && Catch::Contains("osu-ompi-4x-10g"));
  // On the GPU-less preset the records ran on, catalog physics (no NCCL layout: nodes 0).
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cl = topo::Cluster::resolve("osu-ompi-4x-10g", catalog);
  SimTarget t;
  t.cluster = &cl;
  t.mpi = sim::mpi_config_from(cl, catalog);
  const auto rep = validate_measurements(recs, &t, nullptr);
  CHECK(rep.skipped == 0);
  CHECK(rep.quality.points == 256);
  std::printf("validate, osu-ompi-4x-10g, catalog physics, 2-node 10g algo4 step1k: median %.1f %%, max %.1f %%\n",
              100 * rep.quality.median_rel_error, 100 * rep.quality.max_rel_error);
  // Bound: 25 % median, the uncalibrated figure test_mpi_model.cpp ("uncalibrated catalog physics on the 2-node
  // ring files") accepts for the pooled 10g algo4 2-node files, this one among them.
  CHECK(rep.quality.median_rel_error <= 0.25);
  // What ran is Open MPI's choice: dynamic rules off (the file's run), so the request ("ring", algo4) is ignored
  // and the v3.1/4.0 fixed rule runs recursive doubling below 10000 B (workloads/collectives/ompi_decision.cpp).
  CHECK(rep.rows.front().chosen == "recursive_doubling");
  // With dynamic rules on the requested algorithm runs.
  auto forced = recs;
  for (auto& r : forced) std::get<CollectiveMeasurement>(r).mpi_dynamic_rules = true;
  CHECK(validate_measurements(forced, &t, nullptr).rows.front().chosen == "ring");
}

namespace {
struct Table {
  const char* file;
  const char* preset;
  std::uint32_t nodes, gpus_per_node;
  bool gdr_disable;
};
// The presets the sim tests replay these tables on (tests/sim/test_replay.cpp).
const Table kTables[] = {
    {"gh-Anthony-Hoo_autodl_2x2080Ti_pcie-gen3_noP2P.txt", "autodl-2x2080ti-pcie3", 1, 2, false},
    {"gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt", "aws-p5-2x8xh100", 2, 8, false},
    {"gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt", "dgx-a100", 1, 8, false},
    {"gh-CCI-MOC-roce-testing_allreduce_2x1xH100_roce400G_noGDR.txt", "roce400g-2x1xh100", 2, 1, true},
    {"gh-aws-samples-awsome-distributed-training_allreduce_2x8xA100_p4de_EFA400G.txt", "aws-p4de-2x8xa100", 2, 8,
     false},
    {"gh-lessizzmore-create-a3mega-ztan-fork_allreduce_2x8xH100_gcp-a3mega.txt", "gcp-a3mega-2x8xh100", 2, 8, false},
    {"gh-issue-NVIDIA-nccl-1161_allreduce_2xH100PCIe_nvlink-bridge.txt", "h100pcie-nvlink-bridge-2x", 1, 2, false},
};
}  // namespace

namespace {
// Issue 15: the calibrated curve must not fall as the size grows. Scans 1 KiB .. 1 GiB at 3 sizes per octave (the
// measured sizes and 2 in between) with the profile, and the uncalibrated replay for comparison (on p5 NCCL's own
// switch from tree/LL to tree/LL128 makes it fall from 143 us at 128 KiB to 69 us at 256 KiB). Bound: no fall over
// 1 % between neighbours; the fixed-plan simulation itself moves by up to ~1 % where NCCL trims channels by size
// (measured on p5: 0.99 % at 21.8 -> 23.7 MB, ring/LL128), which is the simulator's, not the calibration's.
void check_monotone_scan(const std::vector<Measurement>& records, const SimTarget& target,
                         const CalibrationProfile& prof) {
  CollectiveMeasurement probe = std::get<CollectiveMeasurement>(records.front());
  probe.in_place = false;
  // The invariant holds over the measured range of the first record's series (1 KiB .. 1 GiB of it).
  std::int64_t lo = INT64_MAX, hi = 0;
  for (const auto& r : records) {
    const auto& m = std::get<CollectiveMeasurement>(r);
    if (m.op == probe.op && m.algo == probe.algo && m.proto == probe.proto)
      lo = std::min(lo, m.size_bytes), hi = std::max(hi, m.size_bytes);
  }
  std::vector<Measurement> scan;
  for (double s = 1024; s <= double(1 << 30) * 1.0001; s *= std::cbrt(2.0)) {
    if (s < double(lo) * 0.9999 || s > double(hi) * 1.0001) continue;
    probe.size_bytes = static_cast<std::int64_t>(s) / 16 * 16, probe.count = probe.size_bytes / 4;
    probe.time_us = 1.0;
    scan.emplace_back(probe);
  }
  for (const CalibrationProfile* p : {static_cast<const CalibrationProfile*>(nullptr), &prof}) {
    const auto rep = validate_measurements(scan, &target, p);
    REQUIRE(rep.rows.size() == scan.size());
    double worst = 0;
    std::int64_t at = 0;
    for (std::size_t i = 1; i < rep.rows.size(); ++i)
      if (1 - rep.rows[i].simulated_us / rep.rows[i - 1].simulated_us > worst)
        worst = 1 - rep.rows[i].simulated_us / rep.rows[i - 1].simulated_us, at = rep.rows[i].size_bytes;
    std::printf("  %s: largest fall between neighbouring sizes %.1f %% (at %lld B)\n",
                p ? "calibrated" : "uncalibrated", 100 * worst, static_cast<long long>(at));
    if (p) CHECK(worst <= 0.01);
  }
}
}  // namespace

TEST_CASE("simulator fit + residual factors: median error <= 8 % on every nccl-tests table",
          "[calibrate][simfit][data][nosan]") {
  // Acceptance bound of the brief (8 %), the same as the closed-form segmented fits (test_fit.cpp). Printed per
  // series: median / max relative error of the simulated time before calibration (catalog defaults), with the fitted
  // parameters, and with parameters and residual factors; then the fitted scalars.
  const topo::Catalog catalog = topo::Catalog::load_default();
  std::printf("\n%-70s %4s | %7s %7s | %7s %7s | %7s %7s\n", "series", "pts", "bef.med", "bef.max", "par.med",
              "par.max", "aft.med", "aft.max");
  for (const Table& t : kTables) {
    const topo::Cluster cluster = topo::Cluster::resolve(t.preset, catalog);
    ImportHints h;
    h.nranks = t.nodes * t.gpus_per_node;
    const auto records = import_nccl_tests((kData / "nccl-tests" / t.file).string(), h);
    SimTarget target;
    target.cluster = &cluster;
    target.nodes = t.nodes, target.gpus_per_node = t.gpus_per_node;
    target.options.path.gdr_disable = t.gdr_disable;
    CalibrationProvenance prov;
    prov.sources = {t.file};
    prov.hardware = t.preset;
    prov.date = "2026-07-01";
    const CalibrationProfile prof = fit_calibration(records, &target, prov);
    REQUIRE(!prof.quality.empty());
    for (const auto& q : prof.quality) {
      std::printf("%-70.70s %4lld | %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f\n", q.series.c_str(),
                  static_cast<long long>(q.points), 100 * q.median_before, 100 * q.max_before, 100 * q.median_params,
                  100 * q.max_params, 100 * q.median_after, 100 * q.max_after);
      INFO(q.series);
      CHECK(q.median_after <= 0.08);
    }
    std::printf("  fitted: hop latency x%.3f, bandwidth efficiency %.3f on", prof.fitted.hop_latency_scale,
                prof.fitted.bandwidth_efficiency);
    for (const auto& k : prof.fitted.bottleneck_kinds) std::printf(" %s", k.c_str());
    std::printf("; base latency");
    for (const auto& [k, v] : prof.fitted.base_latency_us)
      std::printf(" %s %.2f us (catalog %.2f)", k.c_str(), v, target.options.nccl.get("nccl.base_latency." + k));
    for (const auto& [k, v] : prof.fitted.flow_cap_efficiency) std::printf("; %s ceiling x%.3f", k.c_str(), v);
    std::printf("\n");
    // Physical bounds (sim_fit.hpp): efficiencies in (0, 1] (at most the catalog link rate / NCCL's protocol
    // ceiling), latencies and the hop scale >= 0; the same bounds hold for every value folded into the profile.
    CHECK(prof.fitted.bandwidth_efficiency > 0.0);
    CHECK(prof.fitted.bandwidth_efficiency <= 1.0);
    CHECK(prof.fitted.hop_latency_scale >= 0.0);
    for (const auto& [k, v] : prof.fitted.base_latency_us) CHECK(v >= 0.0);
    for (const auto& [k, v] : prof.fitted.flow_cap_efficiency) {
      CHECK(v > 0.0);
      CHECK(v <= 1.0);
    }
    for (const auto& [k, v] : prof.capacity_scale) {
      CHECK(v > 0.0);
      CHECK(v <= 1.0);  // the presets carry no capacity scale of their own: scale = bandwidth efficiency
    }
    for (const auto& [k, v] : prof.nccl_parameters) CHECK(v >= 0.0);
    // The parameter stage alone: the catalog values are the fit's first candidate and a candidate replaces them only
    // with a lower median relative error over the table's points, so over the table the median error with the
    // fitted parameters is at most the catalog replay's (the points are the union of the series printed above).
    {
      const auto rep0 = validate_measurements(records, &target, nullptr);
      CalibrationProfile params_only = prof;
      params_only.residuals.clear();
      params_only.plans.clear();  // the plan choice is part of the calibrated shape, not of the parameter stage
      const auto rep1 = validate_measurements(records, &target, &params_only);
      REQUIRE(rep0.rows.size() == rep1.rows.size());
      std::printf("  table median error: catalog %.1f %%, parameters alone %.1f %%\n",
                  100 * rep0.quality.median_rel_error, 100 * rep1.quality.median_rel_error);
      CHECK(rep1.quality.median_rel_error <= rep0.quality.median_rel_error + 1e-9);
    }
    // The profile replays the same way through validate_measurements (apply_profile + residual factors): same
    // median as the fit's own "after" figure over all series of the table.
    const auto rep = validate_measurements(records, &target, &prof);
    CHECK(rep.skipped == 0);
    CHECK(rep.quality.median_rel_error <= 0.08);
    // Issue 15: a series' calibrated maximum error above its uncalibrated one is said, with the reason, in
    // fit_note; on the p5 table it must not happen (uncalibrated max 53.3 / 55.6 %, issue 15's measurement).
    for (const auto& q : prof.quality)
      if (q.max_after > q.max_before + 1e-9) {
        INFO(q.series);
        CHECK_FALSE(prof.fit_note.empty());
      }
    if (std::string(t.preset) == "aws-p5-2x8xh100") {
      const auto rep0 = validate_measurements(records, &target, nullptr);
      std::printf("  p5 maximum error: uncalibrated %.1f %%, calibrated %.1f %% (median %.1f -> %.1f %%)\n",
                  100 * rep0.quality.max_rel_error, 100 * rep.quality.max_rel_error,
                  100 * rep0.quality.median_rel_error, 100 * rep.quality.median_rel_error);
      CHECK(rep.quality.max_rel_error <= rep0.quality.max_rel_error);
      CHECK(prof.fit_note.empty());
    }
    // Issue 15's invariant on every table (found falling by up to 36.8 % on three of them before the gap points).
    std::printf("  monotone scan, %s:\n", t.preset);
    check_monotone_scan(records, target, prof);
    // And the profile survives a JSON round trip exactly.
    const std::string text = dump_calibration_profile(prof);
    const CalibrationProfile back = calibration_profile_from_json(nlohmann::json::parse(text), "p.json");
    CHECK(back == prof);
    CHECK(dump_calibration_profile(back) == text);
  }
}

TEST_CASE("calibrated plan switch between two measured sizes: where the calibrated curves cross, never falling",
          "[calibrate][simfit]") {
  // Plan A = 2 x (100 + s/10) us, a = 1000 B, b = 2000 B (A: 400 at a, 600 at b). The curve runs A up to the switch,
  // B from it; A and B grow with s, so it falls only if the switch is placed where B is below A's value before it.
  auto curve = [](double b0, double fb) {
    return [b0, fb](int plan, std::int64_t s) { return plan == 0 ? 2.0 * (100 + s / 10.0) : fb * (b0 + s / 20.0); };
  };
  // B = 1.2 x (300 + s/20): 420 > 400 at a, 480 < 600 at b; they cross at 200 + 0.2 s = 360 + 0.06 s, s = 1142.86 B.
  const auto cross = curve(300, 1.2);
  const std::int64_t at = calibrated_switch(cross, 1000, 2000);
  CHECK(at > 1142);
  CHECK(at <= 1142 + 16);  // the first 16-byte granule where B is no slower
  CHECK(cross(1, at) <= cross(0, at));
  CHECK(cross(1, at - 16) > cross(0, at - 16));
  // So the curve falls at the switch by at most what A gains on B over one granule: (0.2 - 0.06) us/B x 16 B.
  CHECK(cross(0, at - 1) - cross(1, at) <= 16 * (0.2 - 0.06));
  // B = 1.2 x (600 + s/20): 840 > 600 at b, still the slower: the switch stays at b, where the step rises.
  CHECK(calibrated_switch(curve(600, 1.2), 1000, 2000) == 2000);
  // B = 1.2 x (100 + s/20): 180 < 400 already at a: every placement falls; left as fitted (0).
  CHECK(calibrated_switch(curve(100, 1.2), 1000, 2000) == 0);
}

TEST_CASE("calibration profile: JSON validation, apply_profile", "[calibrate][profile]") {
  CalibrationProfile p;
  p.provenance.sources = {"a.jsonl"};
  p.provenance.hardware = "dgx-a100";
  p.provenance.date = "2026-07-01";
  p.cluster = "dgx-a100";
  p.nodes = 1, p.gpus_per_node = 8;
  p.nccl_parameters["nccl.base_latency.ring.simple"] = 12.5;
  p.capacity_scale["nvlink"] = 0.78;
  p.residuals.push_back(ResidualFactors{"allreduce", "default", "default", 1, 8, {{0, 1.2}, {65536, 0.9}}});
  p.mpi_models.push_back(MpiModel{"10g", "ring", 2, abg(30, 1e-3, 1e-4)});
  const std::string text = dump_calibration_profile(p);
  CHECK(calibration_profile_from_json(nlohmann::json::parse(text), "p.json") == p);
  // apply_profile: the named parameter and the capacity scale land in the options (and the caller's map).
  sim::CommOptions o;
  std::map<std::string, double> scale;
  apply_profile(p, o, &scale);
  CHECK(o.nccl.get("nccl.base_latency.ring.simple") == 12.5);
  CHECK(o.capacity_scale.at("nvlink") == 0.78);
  CHECK(scale.at("nvlink") == 0.78);
  // Residual lookup: 1 KiB is in the first segment (1.2), 1 MiB in the second (0.9), another layout has none (1).
  CHECK(p.time_factor("allreduce", "default", "default", 1, 8, 1024) == 1.2);
  CHECK(p.time_factor("allreduce", "default", "default", 1, 8, 1 << 20) == 0.9);
  CHECK(p.time_factor("allreduce", "default", "default", 2, 8, 1024) == 1.0);
  CHECK(network_tag("allreduce-100g-4cpu-algo4-step1k.txt") == "100g");
  // Errors name the file and the JSON path: an unknown NCCL parameter, a typo'd key, descending segments.
  auto j = nlohmann::json::parse(text);
  j["nccl_parameters"]["nccl.base_latency.ring.simpel"] = 3.0;
  CHECK_THROWS_WITH(calibration_profile_from_json(j, "p.json"),
                    Catch::Contains("p.json") && Catch::Contains("nccl.base_latency.ring.simpel"));
  auto k = nlohmann::json::parse(text);
  k["capacity_scal"] = nlohmann::json::object();
  CHECK_THROWS_WITH(calibration_profile_from_json(k, "p.json"), Catch::Contains("capacity_scal"));
  auto s = nlohmann::json::parse(text);
  s["residuals"][0]["segments"][1]["start_bytes"] = 0;
  CHECK_THROWS_WITH(calibration_profile_from_json(s, "p.json"), Catch::Contains("$.residuals[0].segments[1]"));
  // Gap points: between 32 KiB and 128 KiB the factor runs log-log through (32 KiB, 1.2), (64 KiB, 1.0) and
  // (128 KiB, 0.9): at 48 KiB (log2 position 0.585 of the way from 32 to 64 KiB) 1.2^(1 - 0.585) x 1.0^0.585.
  CalibrationProfile gp = p;
  gp.residuals[0].gaps.push_back(GapPoints{32768, 131072, {{65536, 1.0}}});
  const double w = std::log2(1.5);
  CHECK(gp.time_factor("allreduce", "default", "default", 1, 8, 49152) == Approx(std::pow(1.2, 1 - w)));
  CHECK(gp.time_factor("allreduce", "default", "default", 1, 8, 65536) == 1.0);
  CHECK(gp.time_factor("allreduce", "default", "default", 1, 8, 98304) == Approx(std::pow(0.9, w)));
  CHECK(gp.time_factor("allreduce", "default", "default", 1, 8, 131072) == 0.9);  // the bounds keep the segments'
  const std::string gtext = dump_calibration_profile(gp);
  CHECK(calibration_profile_from_json(nlohmann::json::parse(gtext), "p.json") == gp);
  auto g = nlohmann::json::parse(gtext);
  g["residuals"][0]["gaps"][0]["points"][0]["bytes"] = 131072;  // not inside the gap
  CHECK_THROWS_WITH(calibration_profile_from_json(g, "p.json"),
                    Catch::Contains("$.residuals[0].gaps[0].points[0].bytes") && Catch::Contains("131072"));
  // Residual segments: ratios 2 below 64 KiB and 0.5 above give two segments with exactly those factors.
  std::vector<std::pair<std::int64_t, double>> pts;
  for (std::int64_t S = 1024; S <= (1 << 24); S *= 2) pts.emplace_back(S, S < 65536 ? 2.0 : 0.5);
  const auto segs = fit_residual_segments(pts);
  REQUIRE(segs.size() == 2);
  CHECK(segs[1].start_bytes == 65536);
  CHECK(segs[0].factor == Approx(2.0));
  CHECK(segs[1].factor == Approx(0.5));
}

TEST_CASE("a one-node profile keeps the network's catalog values and warns on a multi-node cluster (issue 15)",
          "[calibrate][profile]") {
  // nccl#1161: 2 H100 PCIe with an NVLink bridge on one node, 3 rows (the cheapest table to fit).
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("h100pcie-nvlink-bridge-2x", catalog);
  ImportHints two;
  two.nranks = 2;
  const auto records = import_nccl_tests(
      (kData / "nccl-tests" / "gh-issue-NVIDIA-nccl-1161_allreduce_2xH100PCIe_nvlink-bridge.txt").string(), two);
  SimTarget target;
  target.cluster = &cluster;
  target.nodes = 1, target.gpus_per_node = 2;
  const CalibrationProfile prof = fit_calibration(records, &target, CalibrationProvenance{});
  // The data never crossed a network: no network latency or overhead is in the profile (before issue 15 the hop
  // scale fitted on NVLink set every one of them, to 0 when the scale went to 0), and the profile says so.
  for (const auto& [name, v] : prof.nccl_parameters) {
    INFO(name);
    CHECK(name.rfind("nccl.hw_latency.net.", 0) != 0);
    CHECK(name != "nccl.latency_inter");
    CHECK(name.rfind("nccl.net_overhead.", 0) != 0);
  }
  bool said = false;
  for (const auto& n : prof.not_measured) said |= n.find("inter-node latency") != std::string::npos;
  CHECK(said);
  REQUIRE(prof.coverage.nodes == std::vector<std::int64_t>{1});
  CHECK(prof.coverage.min_size_bytes == std::int64_t(1) << 30);  // 1, 2 and 4 GiB rows
  // Applied: the catalog's network latency is what the options carry (NCCL 2.30: net ring/simple 14 us).
  sim::CommOptions o;
  apply_profile(prof, o);
  CHECK(o.nccl.get("nccl.hw_latency.net.ring.simple") ==
        sim::CommOptions{}.nccl.get("nccl.hw_latency.net.ring.simple"));
  // On 2 nodes x 8 GPUs of another cluster with a network transport: one warning per fact.
  const auto w =
      coverage_warnings(prof, "aws-p5-2x8xh100", 2, 8,
                        "intra-node: P2P/NVL over NVLink; inter-node: NetIB/NET over Net with GPUDirect RDMA");
  for (const auto& line : w) std::printf("  warning: %s\n", line.c_str());
  auto has = [&](const std::string& text) {
    return std::any_of(w.begin(), w.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
  };
  CHECK(has("profile fitted on 1 node: inter-node latency and bandwidth not measured; catalog values used"));
  CHECK(has("cluster 'h100pcie-nvlink-bridge-2x'"));
  CHECK(has("2 GPU(s) per node, applied to 8"));
  CHECK(has("transport not measured by the profile: inter-node"));
  // Inside what it saw: no warning.
  CHECK(coverage_warnings(prof, "h100pcie-nvlink-bridge-2x", 1, 2, "").empty());
  // The coverage survives the JSON round trip.
  CHECK(calibration_profile_from_json(nlohmann::json::parse(dump_calibration_profile(prof)), "p.json") == prof);
}

TEST_CASE("cross-validation by node count: fit on 1 node, predict 2 (issue 15)", "[calibrate][crossval]") {
  // The development nccl-tests files hold one layout per cluster (1 x N or 2 x 8), so no real node-count
  // cross-validation is possible with them. Synthetic "measurements" instead: the catalog simulation of aws-p5
  // (8 KiB .. 8 MiB allreduce on 1 x 8 and 2 x 8) times 1.3. Uncalibrated, every held-out point is off by
  // |1 - 1.3| / 1.3 = 23.1 %; the profile fitted on 1 node must say that it never saw the network.
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("aws-p5-2x8xh100", catalog);
  SimTarget one, two;
  one.cluster = two.cluster = &cluster;
  one.nodes = 1, two.nodes = 2;
  one.gpus_per_node = two.gpus_per_node = 8;
  std::vector<Measurement> records;
  for (const SimTarget* t : {&one, &two}) {
    std::vector<Measurement> probe;
    for (std::int64_t s = 8192; s <= (8 << 20); s *= 4) {
      CollectiveMeasurement c;
      c.op = "allreduce", c.algo = "default", c.proto = "default", c.dtype = "float", c.redop = "sum";
      c.size_bytes = s, c.count = s / 4, c.nnodes = t->nodes, c.gpus_per_node = 8, c.nranks = 8 * t->nodes;
      c.time_us = 1.0, c.library = "nccl", c.source = "synthetic";
      probe.emplace_back(c);
    }
    const auto rep = validate_measurements(probe, t, nullptr);
    REQUIRE(rep.rows.size() == probe.size());
    for (std::size_t i = 0; i < probe.size(); ++i) {
      auto c = std::get<CollectiveMeasurement>(probe[i]);
      c.time_us = 1.3 * rep.rows[i].simulated_us;
      records.emplace_back(c);
    }
  }
  const NodeCrossValidation cv = cross_validate_nodes(records, 1, one, two);
  std::printf(
      "  node cross-validation (fit 1 x 8, predict 2 x 8): uncalibrated median %.1f %% max %.1f %%, "
      "calibrated median %.1f %% max %.1f %%\n",
      100 * cv.uncalibrated.quality.median_rel_error, 100 * cv.uncalibrated.quality.max_rel_error,
      100 * cv.calibrated.quality.median_rel_error, 100 * cv.calibrated.quality.max_rel_error);
  for (const auto& w : cv.warnings) std::printf("  warning: %s\n", w.c_str());
  CHECK(cv.train_records == 6);
  CHECK(cv.test_records == 6);
  CHECK(cv.calibrated.skipped == 0);
  CHECK(cv.uncalibrated.quality.median_rel_error == Approx(0.3 / 1.3).epsilon(1e-6));
  CHECK(std::any_of(cv.warnings.begin(), cv.warnings.end(),
                    [](const std::string& w) { return w.find("fitted on 1 node") != std::string::npos; }));
  CHECK_THROWS_WITH(cross_validate_nodes(records, 2, one, two), Catch::Contains("leaves one side empty"));
}

TEST_CASE("the fit replays on threads and writes the same profile for any thread count", "[calibrate][profile]") {
  // Expectation: every replay is written by its record's index (parallel_for, one replayer per thread) and no result
  // depends on which thread ran it, so SimTarget::jobs = 1 (in turn) and 3 (more threads than this machine's 2
  // cores, so the schedule interleaves) give the same profile JSON, byte for byte. The dgx-a100 one-node table (20
  // records; its profile has a ring/LL -> ring/Simple plan switch and pinned gap points) fits in about a second.
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog);
  ImportHints eight;
  eight.nranks = 8;
  const auto records = import_nccl_tests(
      (kData / "nccl-tests" / "gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt").string(), eight);
  auto profile_with = [&](unsigned jobs) {
    SimTarget target;
    target.cluster = &cluster;
    target.nodes = 1, target.gpus_per_node = 8;
    target.jobs = jobs;
    return to_json(fit_calibration(records, &target, CalibrationProvenance{})).dump(2);
  };
  const std::string in_turn = profile_with(1);
  CHECK(in_turn.find("\"residuals\"") != std::string::npos);  // a fitted profile, not an empty one
  CHECK(profile_with(3) == in_turn);
}
