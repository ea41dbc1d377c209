// The calibrated curve's shape in size, the parts a caller can use on their own (sim_fit.hpp runs them all in
// fit_calibration): residual factors by size segment, and where the calibrated plan switches between two measured
// sizes.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "vgsim/calibrate/calibration_profile.hpp"

namespace vgsim::calibrate {

// Factors by size (<= 8 segments of >= 3 distinct sizes; per segment the least-squares line of log(measured /
// simulated) over log(size), segments chosen by dynamic programming with +0.005 RMS per extra segment). `points` are
// (size, ratio) pairs in any order; an empty input gives one factor 1.
std::vector<ResidualSegment> fit_residual_segments(std::vector<std::pair<std::int64_t, double>> points);

// Where the calibrated plan switches from plan A to plan B between two measured sizes a < b when a residual segment
// boundary lies in that gap too (fit_calibration then steps the factor there, without a ramp): calibrated_us(0, s)
// and calibrated_us(1, s) are A's and B's simulated time at s times their own segment's factor, each growing with s.
// Returns b when B is no faster than A at b (the step rises), the first 16-byte granule in (a, b] where B is no
// slower when B is the slower at a and the faster at b (bisected in log size: the two curves cross once), and 0 when
// B is already the faster at a (no placement keeps the curve from falling; the gap stays as fitted).
std::int64_t calibrated_switch(const std::function<double(int plan, std::int64_t size_bytes)>& calibrated_us,
                               std::int64_t a, std::int64_t b);

}  // namespace vgsim::calibrate
