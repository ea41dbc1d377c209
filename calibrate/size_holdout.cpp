// Held-out sizes of the NCCL fit: the rule, the split, and the held-out report (include/vgsim/calibrate/
// size_holdout.hpp; detail::report_held_out_sizes in nccl_fit.hpp).
#include "vgsim/calibrate/size_holdout.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "nccl_fit.hpp"
#include "vgsim/calibrate/sim_fit.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::calibrate {

SizeHoldout parse_size_holdout(const std::string& text, const std::string& option) {
  SizeHoldout h;
  h.text = text;
  if (text == "none") return SizeHoldout{};
  if (text == "auto") {
    h.kind = SizeHoldout::Kind::Auto;
    return h;
  }
  if (text.rfind("sizes>=", 0) == 0) {
    try {
      h.threshold_bytes = parse_bytes(text.substr(7));
    } catch (const std::exception&) {
      h.threshold_bytes = 0;
    }
    if (h.threshold_bytes > 0) {
      h.kind = SizeHoldout::Kind::SizesAtLeast;
      return h;
    }
  }
  throw InputError("", option, "bad hold-out rule", text,
                   "auto (every 4th inner size and the largest eighth), none, or sizes>=<bytes> (e.g. sizes>=64MiB)");
}

SizeSplit split_sizes(const SizeHoldout& rule, std::vector<std::int64_t> sizes) {
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  SizeSplit out;
  if (rule.kind == SizeHoldout::Kind::None) return out;
  if (rule.kind == SizeHoldout::Kind::SizesAtLeast) {
    std::vector<std::int64_t> held;
    for (const auto s : sizes)
      if (s >= rule.threshold_bytes) held.push_back(s);
    if (held.empty() || held.size() == sizes.size())
      throw InputError("", "--holdout", "the rule leaves one side empty", rule.text,
                       "a size that splits the fitted sizes (" + format_bytes(sizes.front()) + " .. " +
                           format_bytes(sizes.back()) + ")");
    out.groups.emplace_back(rule.text, held);
    return out;
  }
  const std::size_t n = sizes.size();
  if (n < kAutoHoldoutMinSizes) {
    out.note = "only " + std::to_string(n) + " distinct size(s): too few to hold some out (the auto rule needs " +
               std::to_string(kAutoHoldoutMinSizes) + "); held-out error not measured";
    return out;
  }
  const std::size_t top = (n + 7) / 8, m = n - top;
  std::vector<std::int64_t> inner, largest(sizes.begin() + static_cast<std::ptrdiff_t>(m), sizes.end());
  for (std::size_t i = 2; i + 1 < m; i += 4) inner.push_back(sizes[i]);
  if (!inner.empty()) out.groups.emplace_back("interpolated", inner);
  out.groups.emplace_back("extrapolated", largest);
  return out;
}

namespace {
bool is_nccl(const CollectiveMeasurement& m) { return m.library == "nccl" || m.library == "rccl"; }

// The group's errors from the catalog, physical and corrected times of its records, and the sizes where the
// calibrated E (over that size's records) is worse_than the catalog's.
HeldOutGroup group_errors(const std::string& name, const std::vector<std::int64_t>& sizes,
                          const std::vector<const CollectiveMeasurement*>& recs, const std::vector<double>& cat,
                          const std::vector<double>& phys, const std::vector<double>& corr) {
  HeldOutGroup g;
  g.name = name;
  g.sizes_bytes = sizes;
  std::vector<double> m, c, p, k;
  struct SizeErrors {
    double calibrated = 0, catalog = 0;  // sums of |ln(simulated / measured)|
    int records = 0;
  };
  std::map<std::int64_t, SizeErrors> per_size;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (!std::binary_search(sizes.begin(), sizes.end(), recs[i]->size_bytes)) continue;
    m.push_back(recs[i]->time_us), c.push_back(cat[i]), p.push_back(phys[i]), k.push_back(corr[i]);
    auto& s = per_size[recs[i]->size_bytes];
    s.calibrated += std::abs(std::log(corr[i] / recs[i]->time_us));
    s.catalog += std::abs(std::log(cat[i] / recs[i]->time_us));
    ++s.records;
  }
  g.errors = decompose_errors(m, c, p, k);
  for (const auto& [size, e] : per_size)
    if (worse_than(e.calibrated / e.records, e.catalog / e.records)) g.worse_bytes.push_back(size);
  return g;
}
}  // namespace

void detail::report_held_out_sizes(const std::vector<Measurement>& records,
                                   const std::vector<const CollectiveMeasurement*>& nccl,
                                   const std::vector<double>& catalog_us, const SimTarget& target,
                                   const CalibrationProvenance& provenance, const CalibrationFitOptions& options,
                                   CalibrationProfile& prof) {
  FitReport& rep = prof.report;
  rep.held_out_rule = options.holdout.text;
  std::vector<std::int64_t> sizes;
  for (const auto* m : nccl) sizes.push_back(m->size_bytes);
  const SizeSplit split = split_sizes(options.holdout, sizes);
  rep.held_out_note = split.note;
  if (split.groups.empty()) return;
  std::set<std::int64_t> held;
  for (const auto& [name, g] : split.groups) held.insert(g.begin(), g.end());
  // The fitted records' side is decided by size; records the fit did not replay (another layout, Open MPI) stay.
  const std::set<const CollectiveMeasurement*> fitted(nccl.begin(), nccl.end());
  std::vector<Measurement> train;
  for (const auto& r : records) {
    const auto* c = std::get_if<CollectiveMeasurement>(&r);
    if (!(c && is_nccl(*c) && fitted.count(c) && held.count(c->size_bytes))) train.push_back(r);
  }
  std::vector<const CollectiveMeasurement*> test_recs;
  std::vector<Measurement> test;
  std::vector<double> cat;
  for (std::size_t i = 0; i < nccl.size(); ++i)
    if (held.count(nccl[i]->size_bytes))
      test_recs.push_back(nccl[i]), test.emplace_back(*nccl[i]), cat.push_back(catalog_us[i]);
  CalibrationFitOptions once = options;
  once.holdout = SizeHoldout{};
  const CalibrationProfile without = fit_calibration(train, &target, provenance, once);
  rep.held_out_train_records = without.report.in_sample.records;
  // The held-out records replay with the profile fitted without them: times x residual factor = corrected, and
  // corrected / factor = the physical parameters (with the calibrated plan choice) alone.
  const ValidationReport cal = validate_measurements(test, &target, &without);
  std::vector<double> phys, corr;
  for (std::size_t i = 0; i < test_recs.size(); ++i) {
    const auto& m = *test_recs[i];
    corr.push_back(cal.rows.at(i).simulated_us);
    phys.push_back(corr.back() / without.time_factor(m.op, m.algo, m.proto, m.nnodes, m.gpus_per_node, m.size_bytes));
  }
  for (const auto& [name, g] : split.groups) rep.held_out.push_back(group_errors(name, g, test_recs, cat, phys, corr));
  set_held_out_warnings(rep);
}

}  // namespace vgsim::calibrate
