// Cross-validation helpers for the alpha-beta fits (include/vgsim/calibrate/cross_validation.hpp).
#include "vgsim/calibrate/cross_validation.hpp"

#include <stdexcept>

#include "vgsim/calibrate/bus_bandwidth.hpp"

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

}  // namespace vgsim::calibrate
