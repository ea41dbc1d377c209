// Cross-validation helpers for the alpha-beta fits (include/vgsim/calibrate/cross_validation.hpp).
#include "vgsim/calibrate/cross_validation.hpp"

#include <stdexcept>

#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"

namespace vgsim::calibrate {

CrossValidation cross_validate_sizes(const Series& series, std::int64_t lo, std::int64_t hi, const FitOptions& opt) {
  Series train{series.key, {}};
  std::vector<SeriesPoint> test;
  for (const auto& p : series.points) (p.size_bytes >= lo && p.size_bytes <= hi ? train.points : test).push_back(p);
  if (train.points.empty()) throw std::invalid_argument("cross_validate_sizes: no point inside the training range");
  CrossValidation cv;
  cv.fit = fit_segmented(train, opt);
  cv.train = fit_quality(cv.fit, train.points);
  cv.test = fit_quality(cv.fit, test);
  return cv;
}

SegmentedFit rescale_to_ranks(const SegmentedFit& fit, std::int64_t nranks) {
  const std::int64_t n0 = fit.series.nranks;
  if (n0 < 2 || nranks < 2) throw std::invalid_argument("rescale_to_ranks: needs >= 2 ranks on both sides");
  // Ring model (Thakur et al. 2005): latency ~ (n-1) steps, bandwidth term ~ busbw_factor(op, n) bytes per byte.
  const double lat = double(nranks - 1) / double(n0 - 1);
  const double bw = busbw_factor(fit.series.op, nranks) / busbw_factor(fit.series.op, n0);
  SegmentedFit f = fit;
  f.series.nranks = nranks;
  for (auto& s : f.segments) s.alpha_us *= lat, s.beta_us_per_byte *= bw;
  return f;
}

CrossValidation cross_validate_scale(const Series& small, const Series& large, const FitOptions& opt) {
  if (small.key.op != large.key.op) throw std::invalid_argument("cross_validate_scale: different collectives");
  CrossValidation cv;
  const SegmentedFit base = fit_segmented(small, opt);
  cv.train = base.quality;
  cv.fit = rescale_to_ranks(base, large.key.nranks);
  cv.fit.series = large.key;
  cv.test = fit_quality(cv.fit, large.points);
  return cv;
}

NodeCrossValidation cross_validate_nodes(const std::vector<Measurement>& records, std::int64_t max_train_nodes,
                                         const SimTarget& train, const SimTarget& test) {
  std::vector<Measurement> small, large;
  for (const auto& r : records) {
    const auto* c = std::get_if<CollectiveMeasurement>(&r);
    if (!c) continue;
    (c->nnodes <= max_train_nodes ? small : large).push_back(r);
  }
  if (small.empty() || large.empty())
    throw InputError("", "nodes>" + std::to_string(max_train_nodes), "the node split leaves one side empty",
                     std::to_string(small.size()) + " records to fit, " + std::to_string(large.size()) + " to predict",
                     "records on at most and on more than " + std::to_string(max_train_nodes) + " node(s)");
  NodeCrossValidation cv;
  cv.train_records = static_cast<std::int64_t>(small.size());
  cv.test_records = static_cast<std::int64_t>(large.size());
  CalibrationProvenance prov;
  prov.note = "cross-validation: fitted on <= " + std::to_string(max_train_nodes) + " node(s)";
  cv.profile = fit_calibration(small, &train, prov);
  cv.uncalibrated = validate_measurements(large, &test, nullptr);
  cv.calibrated = validate_measurements(large, &test, &cv.profile);
  const sim::Communicator comm(*test.cluster, sim::place_ranks(*test.cluster, test.nodes, test.gpus_per_node),
                               test.options);
  cv.warnings =
      coverage_warnings(cv.profile, test.cluster->name(), test.nodes, test.gpus_per_node, comm.describe_transports());
  return cv;
}

}  // namespace vgsim::calibrate
