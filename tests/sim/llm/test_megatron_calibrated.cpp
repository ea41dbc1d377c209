// Issue 17 acceptance, calibrated: Narayanan et al. SC'21 Tables 1 and 2 predicted after fitting the layer kernels'
// speed on ONE measured run of the same software, as a user would: measure the smallest configuration, fit
// (`vgsim calibrate fit-training`, large-model rows: calibrate/llm_fit.hpp), predict the larger ones. The fit sees
// Table 1's smallest row only (1.7B on 32 GPUs: tp 1, pp 1, no exposed communication, so it measures the stack's
// kernel speed alone); the other nine Table 1 rows and Table 2's six PTD-P rows (the same Selene runs) are held out.
// Why a calibration is needed: vgsim's layer model is fitted on the 2022 Megatron-LM stack (Korthikanti et al.
// Table 4) and reproduces that paper's Table 5 within -2..-7 % uncalibrated (test_megatron_tables.cpp), while the
// SC'21 runs take 8.7-10.3 % longer than Table 5's at the same per-pipeline work (data/reference/
// llm-table1-vs-table5.md): a slower software stack, which one measured run of it calibrates.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "megatron_rows.hpp"
#include "vgsim/calibrate/llm_fit.hpp"

using namespace vgsim;
using namespace vgsim::sim;
using namespace vgsim::sim::llm;
using namespace vgsim::sim::llm::test;

namespace {

// A Table 1 or 2 row as a fit-training case: its launch settings and the published iteration in seconds, eq. (3)
// FLOPs (with the recomputed forward) / (GPUs x published TFLOP/s) (the paper's own conversion, section 5.1).
calibrate::TrainingCase table_case(const Row& r) {
  static const auto shapes = models::load_transformer_shapes();
  const training::JobSpec s = row_spec(r, {"recompute=full"});
  calibrate::TrainingCase c;
  c.case_id = r.shape;
  c.cluster = s.cluster;
  c.workload = s.workload;
  c.nodes = s.nodes;
  c.gpus_per_node = s.gpus_per_node;
  c.sets = s.sets;
  c.metric = "iteration_s";
  const double flops =
      models::hardware_flops(models::find_transformer_shape(shapes, r.shape), r.global, models::Recompute::Full);
  c.value = flops / (r.gpus * r.published * 1e12);
  c.line = 1;
  return c;
}

// vgsim's TFLOP/s per GPU of a row, uncalibrated and with the profile's settings.
std::pair<double, double> predict(const Row& r, const std::vector<std::string>& profile) {
  std::vector<std::string> extra = {"recompute=full"};
  const double catalog = run(r, extra).hardware_tflops_per_gpu;
  for (const auto& kv : profile) extra.push_back(kv);
  return {catalog, run(r, extra).hardware_tflops_per_gpu};
}

}  // namespace

TEST_CASE("Narayanan et al. SC'21 Tables 1 and 2 calibrated on Table 1's smallest run (10 % target)",
          "[llm][validation][nosan]") {
  const Row& fit_row = kTable1Rows[0];
  const calibrate::TrainingProfile prof =
      calibrate::fit_training({table_case(fit_row)}, cat(), "Narayanan et al. SC'21 Table 1, 1.7B row");
  REQUIRE(prof.params.size() == 4);
  const double x = prof.params[0].value / prof.params[0].catalog;
  std::printf("kernel-speed factor fitted on the 1.7B row (32 GPUs): x = %.4f (llm.eff_gemm %.4f -> %.4f)\n", x,
              prof.params[0].catalog, prof.params[0].value);
  // The 1.7B row is +7.0 % uncalibrated with no exposed communication, so x ~ 1 / 1.07 = 0.93 (the optimizer step,
  // which x does not scale, moves it a little); a factor above 1 or below 0.85 would contradict that row.
  CHECK(x < 1.0);
  CHECK(x > 0.85);
  // The fitted row itself reproduces to the fit's tolerance (the two-point model, then simulated at x): within 1 %.
  CHECK(std::abs(prof.rows[0].fitted / prof.rows[0].measured - 1.0) < 0.01);
  const std::vector<std::string> sets = prof.sets();
  std::printf("%-16s %5s %10s %9s %8s %11s %8s\n", "model", "gpus", "published", "catalog", "error", "calibrated",
              "error");
  int within = 0, held_out = 0;
  auto check_row = [&](const Row& r, const char* label) {
    const auto [catalog, calibrated] = predict(r, sets);
    const double err = calibrated / r.published - 1.0;
    std::printf("%-16s %5d %10.0f %9.1f %+7.1f%% %11.1f %+7.1f%%  %s\n", r.shape, r.gpus, r.published, catalog,
                100.0 * (catalog / r.published - 1.0), calibrated, 100.0 * err, label);
    std::fflush(stdout);
    INFO(label << " " << r.shape << " on " << r.gpus << " GPUs: calibrated " << calibrated << " vs published "
               << r.published);
    // Issue 17's target on every held-out row: within 10 % of the published TFLOP/s per GPU.
    CHECK(std::abs(err) <= 0.10);
    within += std::abs(err) <= 0.10;
    ++held_out;
  };
  for (std::size_t i = 1; i < std::size(kTable1Rows); ++i) check_row(kTable1Rows[i], "Table 1");
  for (const T2Row& t : kT2Rows)
    if (std::string(t.scheme) == "PTD-P")
      check_row(Row{t.shape, t.tp, t.pp, t.gpus, t.micro, t.global, 0, false, t.published}, "Table 2 PTD-P");
  std::printf("held-out rows within 10 %%: %d of %d\n", within, held_out);
  CHECK(held_out == 15);
}
