// The fit's error decomposition, held-out groups and warnings, and their JSON (include/vgsim/calibrate/fit_report.hpp).
#include "vgsim/calibrate/fit_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "vgsim/calibrate/fit.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::calibrate {

using OJson = nlohmann::ordered_json;

StageError stage_error(const std::vector<double>& simulated_us, const std::vector<double>& measured_us) {
  StageError e;
  std::vector<double> rel;
  double sum_log = 0;
  for (std::size_t i = 0; i < measured_us.size(); ++i) {
    sum_log += std::abs(std::log(simulated_us[i] / measured_us[i]));
    rel.push_back(std::abs(simulated_us[i] / measured_us[i] - 1.0));
    e.max_rel = std::max(e.max_rel, rel.back());
  }
  e.mean_abs_log = measured_us.empty() ? 0.0 : sum_log / double(measured_us.size());
  e.median_rel = median_of(rel);
  return e;
}

double ErrorDecomposition::share_physical() const {
  return catalog.mean_abs_log > 0 ? (catalog.mean_abs_log - physical.mean_abs_log) / catalog.mean_abs_log : 0.0;
}
double ErrorDecomposition::share_corrections() const {
  return catalog.mean_abs_log > 0 ? (physical.mean_abs_log - corrected.mean_abs_log) / catalog.mean_abs_log : 0.0;
}
double ErrorDecomposition::share_left() const {
  return catalog.mean_abs_log > 0 ? corrected.mean_abs_log / catalog.mean_abs_log : 0.0;
}

ErrorDecomposition decompose_errors(const std::vector<double>& measured_us, const std::vector<double>& catalog_us,
                                    const std::vector<double>& physical_us, const std::vector<double>& corrected_us) {
  ErrorDecomposition d;
  d.records = static_cast<std::int64_t>(measured_us.size());
  d.catalog = stage_error(catalog_us, measured_us);
  d.physical = stage_error(physical_us, measured_us);
  d.corrected = stage_error(corrected_us, measured_us);
  return d;
}

std::string format_sizes(const std::vector<std::int64_t>& sizes) {
  if (sizes.empty()) return "none";
  if (sizes.size() > 4)
    return format_bytes(sizes.front()) + " .. " + format_bytes(sizes.back()) + " (" + std::to_string(sizes.size()) +
           " sizes)";
  std::string s;
  for (const auto b : sizes) s += (s.empty() ? "" : ", ") + format_bytes(b);
  return s;
}

namespace {
std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", 100 * v);
  return b;
}
}  // namespace

// Worse than the catalog = E_corr > E_cat on the group (the figure the shares are on); the median relative errors
// are given beside it. What to do follows from E_phys: at most E_cat means the corrections made it worse.
void set_held_out_warnings(FitReport& report) {
  report.warnings.clear();
  for (const HeldOutGroup& g : report.held_out) {
    const ErrorDecomposition& e = g.errors;
    if (!worse_than(e.corrected.mean_abs_log, e.catalog.mean_abs_log)) continue;
    std::string w = "calibration made held-out sizes worse than the catalog: " + g.name + ": " +
                    format_sizes(g.sizes_bytes) + "; " + std::to_string(e.records) +
                    " records, fitted without them: error " + pct(e.corrected.mean_abs_log) + " calibrated vs " +
                    pct(e.catalog.mean_abs_log) + " catalog (mean |ln(simulated / measured)|; median relative error " +
                    pct(e.corrected.median_rel) + " vs " + pct(e.catalog.median_rel) + "); worse at " +
                    format_sizes(g.worse_bytes) + ". Physical parameters alone: " + pct(e.physical.mean_abs_log);
    if (!report.size_corrections)
      w += " (no per-size corrections fitted): for these sizes the catalog (no --calibration) predicts better; "
           "measure the sizes you will simulate";
    else if (!worse_than(e.physical.mean_abs_log, e.catalog.mean_abs_log))
      w += ", so the per-size corrections made it worse: refit with --no-size-corrections, or measure the sizes you "
           "will simulate";
    else
      w += ", also worse: for these sizes the catalog (no --calibration) predicts better; measure the sizes you will "
           "simulate";
    report.warnings.push_back(w);
  }
}

void write_fit_report_text(std::ostream& out, const FitReport& report) {
  const ErrorDecomposition& d = report.in_sample;
  if (d.records == 0) return;
  char buf[256];
  out << "error decomposition over " << d.records
      << " records (E = mean |ln(simulated / measured)| x 100; median and max: relative error):\n";
  std::snprintf(buf, sizeof buf, "  %-36s %7s %9s %8s\n", "stage", "E %", "median %", "max %");
  out << buf;
  const std::string corrections =
      report.size_corrections ? "+ per-size corrections" : "+ per-size corrections (none fitted)";
  for (const auto& [name, e] : {std::pair<std::string, const StageError&>{"catalog (uncalibrated)", d.catalog},
                                {"physical parameters (+ plan choice)", d.physical},
                                {corrections, d.corrected}}) {
    std::snprintf(buf, sizeof buf, "  %-36s %7.1f %9.1f %8.1f\n", name.c_str(), 100 * e.mean_abs_log,
                  100 * e.median_rel, 100 * e.max_rel);
    out << buf;
  }
  std::snprintf(buf, sizeof buf,
                "  of the catalog's E: physical parameters removed %.1f %%, per-size corrections %.1f %%, left %.1f %% "
                "(sum %.1f %%)\n",
                100 * d.share_physical(), 100 * d.share_corrections(), 100 * d.share_left(),
                100 * (d.share_physical() + d.share_corrections() + d.share_left()));
  out << buf;
  if (!report.held_out_note.empty()) out << "held-out sizes: " << report.held_out_note << "\n";
  if (report.held_out.empty()) return;
  out << "held-out sizes (--holdout " << report.held_out_rule << "; fitted again on " << report.held_out_train_records
      << " records without them, so their corrections come from the fitted sizes):\n";
  std::snprintf(buf, sizeof buf, "  %-22s %7s  %-34s %11s %12s %13s\n", "group", "records", "sizes", "catalog E %",
                "physical E %", "corrected E %");
  out << buf;
  for (const auto& g : report.held_out) {
    std::snprintf(buf, sizeof buf, "  %-22s %7lld  %-34s %11.1f %12.1f %13.1f\n", g.name.c_str(),
                  static_cast<long long>(g.errors.records), format_sizes(g.sizes_bytes).c_str(),
                  100 * g.errors.catalog.mean_abs_log, 100 * g.errors.physical.mean_abs_log,
                  100 * g.errors.corrected.mean_abs_log);
    out << buf;
  }
  for (const auto& g : report.held_out) {
    const ErrorDecomposition& e = g.errors;
    if (e.corrected.mean_abs_log > e.physical.mean_abs_log && e.corrected.mean_abs_log <= e.catalog.mean_abs_log) {
      std::snprintf(buf, sizeof buf,
                    "note: on the %s sizes the per-size corrections raised the error over the physical parameters "
                    "alone (%.1f -> %.1f %%), still below the catalog's\n",
                    g.name.c_str(), 100 * e.physical.mean_abs_log, 100 * e.corrected.mean_abs_log);
      out << buf;
    }
  }
}

namespace {
OJson stage_json(const StageError& e) {
  return OJson{{"mean_abs_log", e.mean_abs_log}, {"median_rel", e.median_rel}, {"max_rel", e.max_rel}};
}
// The shares are derived (written for readers, not read back).
OJson decomposition_json(const ErrorDecomposition& d) {
  return OJson{{"records", d.records},
               {"catalog", stage_json(d.catalog)},
               {"physical", stage_json(d.physical)},
               {"corrected", stage_json(d.corrected)},
               {"share_physical", d.share_physical()},
               {"share_corrections", d.share_corrections()},
               {"share_left", d.share_left()}};
}
StageError stage_from(JsonReader r) {
  StageError e;
  e.mean_abs_log = r.number("mean_abs_log", 0.0);
  e.median_rel = r.number("median_rel", 0.0);
  e.max_rel = r.number("max_rel", 0.0);
  r.finish();
  return e;
}
ErrorDecomposition decomposition_from(JsonReader r) {
  ErrorDecomposition d;
  d.records = r.integer("records", 0);
  d.catalog = stage_from(r.object("catalog"));
  d.physical = stage_from(r.object("physical"));
  d.corrected = stage_from(r.object("corrected"));
  for (const char* k : {"share_physical", "share_corrections", "share_left"}) r.allow(k);
  r.finish();
  return d;
}
std::vector<std::int64_t> sizes_from(JsonReader& r, const std::string& key) {
  std::vector<std::int64_t> out;
  const nlohmann::json* a = r.json().contains(key) ? &r.json().at(key) : nullptr;
  if (a == nullptr || !a->is_array()) r.fail(key, "missing or not a list", "a list of sizes in bytes >= 1");
  for (const auto& v : *a) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || (!out.empty() && v.get<std::int64_t>() <= out.back()))
      r.fail(key, "not ascending sizes", "ascending integers >= 1 (bytes)");
    out.push_back(v.get<std::int64_t>());
  }
  r.allow(key);
  return out;
}
}  // namespace

OJson fit_report_json(const FitReport& report) {
  OJson j;
  j["metric"] = "mean |ln(simulated / measured)| over the records";
  j["in_sample"] = decomposition_json(report.in_sample);
  j["size_corrections"] = report.size_corrections;
  j["held_out_rule"] = report.held_out_rule;
  j["held_out_train_records"] = report.held_out_train_records;
  j["held_out"] = OJson::array();
  for (const auto& g : report.held_out)
    j["held_out"].push_back(OJson{{"name", g.name},
                                  {"sizes_bytes", g.sizes_bytes},
                                  {"errors", decomposition_json(g.errors)},
                                  {"worse_bytes", g.worse_bytes}});
  j["held_out_note"] = report.held_out_note;
  j["warnings"] = report.warnings;
  return j;
}

FitReport fit_report_from_json(JsonReader& r) {
  FitReport report;
  r.one_of("metric", {"mean |ln(simulated / measured)| over the records"});
  report.in_sample = decomposition_from(r.object("in_sample"));
  report.size_corrections = r.boolean("size_corrections");
  report.held_out_rule = r.string("held_out_rule");
  report.held_out_train_records = r.integer("held_out_train_records", 0);
  for (auto g : r.objects("held_out")) {
    HeldOutGroup h;
    h.name = g.string("name");
    h.sizes_bytes = sizes_from(g, "sizes_bytes");
    h.errors = decomposition_from(g.object("errors"));
    h.worse_bytes = sizes_from(g, "worse_bytes");
    g.finish();
    report.held_out.push_back(std::move(h));
  }
  report.held_out_note = r.string("held_out_note");
  report.warnings = r.strings("warnings");
  r.finish();
  return report;
}

}  // namespace vgsim::calibrate
