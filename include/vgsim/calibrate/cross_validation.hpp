// Cross-validation of the alpha-beta fits: fit on part of the measurements and report the relative error on the
// rest. Two splits: by size (fit sizes inside [lo, hi], test outside) and by scale (fit a series with fewer ranks,
// predict one with more). The scale transfer assumes ring-like costs (Thakur et al. 2005, docs/SOURCES.md#cost-models):
// latency grows with the step count (n-1) and the bandwidth term with busbw_factor(op, n); this is a model
// assumption and the reported error says how well it holds. cross_validate_nodes does the same split for the
// simulator fit (fit on few nodes, predict more).
#pragma once

#include <cstdint>

#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/sim_fit.hpp"

namespace vgsim::calibrate {

struct CrossValidation {
  SegmentedFit fit;  // fitted on the training part
  FitQuality train;  // error on the training points
  FitQuality test;   // error on the held-out points (points == 0 if none)
};

// Fit on points with lo <= size <= hi, test on the others.
CrossValidation cross_validate_sizes(const Series& series, std::int64_t lo_bytes, std::int64_t hi_bytes,
                                     const FitOptions& options = {});

// Fit on `small` and predict `large` (same op, more ranks) with the ring scaling above.
CrossValidation cross_validate_scale(const Series& small, const Series& large, const FitOptions& options = {});

// `fit` re-targeted from its series' rank count to `nranks` with the ring scaling above.
SegmentedFit rescale_to_ranks(const SegmentedFit& fit, std::int64_t nranks);

// Cross-validation by node count of the simulator fit (issue 15; nccl-tests / probe records): a profile fitted on
// the records with nnodes <= max_train_nodes (replayed on `train`), the records with more nodes replayed on `test`
// without and with it, and the warnings applying it there gives (what the small runs did not measure).
struct NodeCrossValidation {
  std::int64_t train_records = 0, test_records = 0;
  CalibrationProfile profile;
  ValidationReport uncalibrated, calibrated;
  std::vector<std::string> warnings;
};
NodeCrossValidation cross_validate_nodes(const std::vector<Measurement>& records, std::int64_t max_train_nodes,
                                         const SimTarget& train, const SimTarget& test);

}  // namespace vgsim::calibrate
