// Large-model calibration: one kernel-speed factor over the layer model's efficiencies (see
// include/vgsim/calibrate/llm_fit.hpp).
#include "vgsim/calibrate/llm_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "detail/golden_section.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/llm/llm_job.hpp"
#include "vgsim/sim/llm/llm_run.hpp"

namespace vgsim::calibrate {

namespace {

using Efficiency = double models::TransformerComputeParams::*;

// The efficiencies the factor scales: every layer, embedding and head kernel's time is inversely proportional to one
// of them (transformer_compute.hpp), so all of them scale by 1 / x.
struct Member {
  const char* key;
  Efficiency field;
};
constexpr Member kMembers[] = {{"llm.eff_gemm", &models::TransformerComputeParams::eff_gemm},
                               {"llm.eff_gemm_backward", &models::TransformerComputeParams::eff_gemm_backward},
                               {"llm.eff_memory", &models::TransformerComputeParams::llm_eff_memory},
                               {"llm.eff_flash", &models::TransformerComputeParams::eff_flash}};

// The second point of the two-point model T(x) = a + b / x (the first is the catalog, x = 1).
constexpr double kSecondPoint = 0.8;

struct Row {
  sim::llm::LlmJob job;
  bool per_iteration = false;  // metric iteration_s (else tokens/s)
  double tokens = 0.0;         // tokens per iteration: global batch x sequence
  double measured_s = 0.0;     // the measurement as seconds per iteration
  double a = 0.0, b = 0.0;     // two-point model of the iteration seconds

  double seconds(double x) const {
    sim::llm::LlmJob j = job;
    for (const Member& m : kMembers) j.compute.*m.field *= x;
    return sim::llm::simulate_llm_iteration(j).iteration.s();
  }
  double metric(double seconds) const { return per_iteration ? seconds : tokens / seconds; }
};

Row make_row(const TrainingCase& c, const topo::Catalog& catalog, const std::string& file) {
  const std::string at = "line " + std::to_string(c.line);
  if (!c.metric.empty() && c.metric != "tokens/s" && c.metric != "iteration_s")
    throw InputError(file, at + ", column metric", "not a large-model metric", "'" + c.metric + "'",
                     "tokens/s (or empty) or iteration_s");
  for (const std::string& s : c.sets)
    for (const Member& m : kMembers)
      if (s.rfind(std::string(m.key) + "=", 0) == 0)
        throw InputError(file, at + ", column settings", "sets a parameter the fit owns", "'" + s + "'",
                         "no llm.eff_gemm, llm.eff_gemm_backward, llm.eff_memory or llm.eff_flash (the fit scales "
                         "them together)");
  Row r{sim::llm::resolve_llm_job(training_case_spec(c, file), catalog, false)};
  r.per_iteration = c.metric == "iteration_s";
  r.tokens = static_cast<double>(r.job.plan.global_batch) * static_cast<double>(r.job.shape.seq);
  r.measured_s = r.per_iteration ? c.value : r.tokens / c.value;
  return r;
}

double loss(const std::vector<Row>& rows, double x, std::size_t skip) {
  double f = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == skip) continue;
    const double e = std::log((rows[i].a + rows[i].b / x) / rows[i].measured_s);
    f += e * e;
  }
  return f;
}

std::string meaning(double x, double hi) {
  char text[400];
  std::snprintf(text, sizeof text,
                "tied: one factor x = %.4f (bounds [%g, %.4f]) scales llm.eff_gemm, llm.eff_gemm_backward, "
                "llm.eff_memory and llm.eff_flash together: the measured stack's kernel speed relative to the "
                "Megatron-LM 2022 stack they were fitted on (Korthikanti et al. Table 4)",
                x, kLlmKernelFactorMin, hi);
  return text;
}

}  // namespace

bool is_llm_case(const TrainingCase& c) { return sim::llm::is_llm_workload(c.workload); }

TrainingProfile fit_llm(const std::vector<TrainingCase>& cases, const topo::Catalog& catalog, const std::string& file) {
  std::vector<Row> rows;
  for (const TrainingCase& c : cases) {
    if (!is_llm_case(c))
      throw InputError(file, "line " + std::to_string(c.line) + ", column workload", "not a Transformer shape",
                       "'" + c.workload + "'", "a shape of workloads/llm/transformer_shapes.json (e.g. llama2-7b)");
    rows.push_back(make_row(c, catalog, file));
  }
  if (rows.empty()) throw InputError(file, "", "no large-model row", "", "at least one row");
  const models::TransformerComputeParams& base = rows.front().job.compute;
  double hi = 1.0 / base.*kMembers[0].field;
  for (const Member& m : kMembers) hi = std::min(hi, 1.0 / (base.*m.field));
  std::vector<double> catalog_s;
  for (Row& r : rows) {
    const double t1 = r.seconds(1.0), t2 = r.seconds(kSecondPoint);
    r.b = (t2 - t1) / (1.0 / kSecondPoint - 1.0);
    r.a = t1 - r.b;
    catalog_s.push_back(t1);
  }
  // 48 steps: the bracket shrinks to 1e-10 of the range (the two-point model costs nothing to evaluate).
  auto fit_without = [&](std::size_t skip) {
    return detail::golden_section([&](double x) { return loss(rows, x, skip); }, kLlmKernelFactorMin, hi, 48);
  };
  const double x = fit_without(SIZE_MAX);
  TrainingProfile prof;
  prof.file = file;
  for (const Member& m : kMembers)
    prof.params.push_back({m.key, base.*m.field * kLlmKernelFactorMin, std::min(1.0, base.*m.field * hi), base.*m.field,
                           base.*m.field * x, meaning(x, hi)});
  std::vector<double> e_cat, e_fit, e_held;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    TrainingRow out;
    out.case_id = cases[i].case_id;
    out.measured = cases[i].value;
    out.catalog = r.metric(catalog_s[i]);
    out.fitted = r.metric(r.seconds(x));
    out.held_out = rows.size() > 1 ? r.metric(r.seconds(fit_without(i))) : out.fitted;
    e_cat.push_back(out.catalog / out.measured - 1.0);
    e_fit.push_back(out.fitted / out.measured - 1.0);
    e_held.push_back(out.held_out / out.measured - 1.0);
    prof.rows.push_back(out);
  }
  prof.median_catalog = median_abs_error(e_cat);
  prof.median_fitted = median_abs_error(e_fit);
  prof.median_held_out = median_abs_error(e_held);
  return prof;
}

}  // namespace vgsim::calibrate
