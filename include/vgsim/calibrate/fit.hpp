// Closed-form alpha-beta fits of one series (series.hpp), independent of the simulator:
//  - segmented (SimGrid style): time(S) = alpha_k + S * beta_k on segment k = [start_k, start_{k+1}), breakpoints at
//    measured sizes chosen by dynamic programming to minimise the relative error plus a penalty per extra segment;
//  - Hockney: one segment.
// Least squares on RELATIVE error (rows weighted by 1/t), with alpha >= 0 and beta >= 0, optionally repeated without
// outliers (points whose relative residual exceeds max(k x 1.4826 x MAD, floor): the bimodal 2x spikes of noisy
// runs); quality is always reported on ALL points. Units: alpha in us,
// beta in us per byte, bandwidth = 1/beta in GB/s (1e9 bytes/s); beta == 0 means no size dependence (infinite B).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/calibrate/series.hpp"

namespace vgsim::calibrate {

struct Segment {
  std::int64_t start_bytes = 0;  // the segment applies to sizes >= start_bytes (the first one also below)
  double alpha_us = 0.0;
  double beta_us_per_byte = 0.0;

  // 1e-3 / beta (bytes/us -> GB/s); nullopt when beta == 0.
  std::optional<double> bandwidth_GBps() const;
  double predict_us(std::int64_t size_bytes) const { return alpha_us + beta_us_per_byte * double(size_bytes); }
  bool operator==(const Segment&) const = default;
};

// Median of `v` (the mean of the two middle values for an even count; 0 for an empty vector).
double median_of(std::vector<double> v);

struct FitQuality {
  std::int64_t points = 0;
  double median_rel_error = 0.0;  // median over points of |predicted - measured| / measured
  double max_rel_error = 0.0;
  double rms_rel_error = 0.0;
  bool operator==(const FitQuality&) const = default;
};

struct SegmentedFit {
  SeriesKey series;
  std::string model;                                    // "segmented" | "hockney"
  std::vector<Segment> segments;                        // ascending start_bytes, at least one
  FitQuality quality;                                   // on the points it was fitted to
  std::int64_t min_size_bytes = 0, max_size_bytes = 0;  // measured range it was fitted on
  std::int64_t excluded_points = 0;  // points left out of the last pass as outliers (still counted in quality)

  // Sizes where a new segment starts (segments[1..].start_bytes).
  std::vector<std::int64_t> breakpoints() const;
  // Time in us for a message of `size_bytes`, using the segment that contains it (extrapolates beyond the range).
  double predict_us(std::int64_t size_bytes) const;
  bool operator==(const SegmentedFit&) const = default;
};

struct FitOptions {
  int max_segments = 4;
  int min_points_per_segment = 3;
  // Added to the RMS relative error per segment beyond the first when choosing the number of segments.
  // Assumption (ours, tuned on data/measured): 0.01 keeps a new segment only if it removes > 1 point of RMS error.
  double penalty_per_segment = 0.01;
  // Outlier rejection passes (0 = plain least squares). Threshold = max(outlier_mads x 1.4826 x MAD of the relative
  // residuals, outlier_floor). 2.5 robust sigmas is the cut of reweighted least squares (Rousseeuw & Leroy 1987);
  // the 5 % floor (our assumption) keeps clean tables
  // (residuals < 1 %) from losing points to a tiny MAD.
  int outlier_passes = 3;
  double outlier_mads = 2.5;
  double outlier_floor = 0.05;
};

// Segmented fit. Throws std::invalid_argument if the series has no point with time > 0.
SegmentedFit fit_segmented(const Series& series, const FitOptions& options = {});
// Hockney alpha + S*beta: one segment (options.max_segments is ignored; outlier passes apply as given).
SegmentedFit fit_hockney(const Series& series, const FitOptions& options = {});
// Quality of `fit` on `points` (which need not be the ones it was fitted on).
FitQuality fit_quality(const SegmentedFit& fit, const std::vector<SeriesPoint>& points);

}  // namespace vgsim::calibrate
