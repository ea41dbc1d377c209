// Held-out sizes of the NCCL fit (issue 38 item 7): which measured sizes a fit leaves out so that its error on them
// says how well the calibrated model predicts sizes it did not see. The fit (sim_fit.hpp, CalibrationFitOptions)
// then fits again on the other records and reports the held-out groups' errors (fit_report.hpp).
//
// The "auto" rule (vgsim calibrate fit's default), on the n distinct sizes s_0 < ... < s_(n-1) of the fitted records:
//   extrapolated: the largest ceil(n / 8) sizes (above every fitted size: the per-size correction there is the
//                 largest fitted size's, held flat; the measured failure of issue 38 was here, sizes >= 64 MiB);
//   interpolated: of the other m = n - ceil(n / 8) sizes, every 4th one: index i with i mod 4 = 2 and i < m - 1, so
//                 each lies between two fitted sizes (i - 1 and i + 1 are fitted) and its per-size correction is
//                 interpolated between them (log-log), never fitted on the point itself.
// A record's size decides its side, so an nccl-tests row's in-place and out-of-place records stay together.
// Deterministic (no sampling); needs n >= 8 (fewer: no held-out figure, and a note says why). One extra fit in all.
// "sizes>=X" holds out every size >= X (one group named by the rule); "none" fits once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vgsim::calibrate {

struct SizeHoldout {
  enum class Kind { None, Auto, SizesAtLeast };
  Kind kind = Kind::None;
  std::int64_t threshold_bytes = 0;  // SizesAtLeast
  std::string text;                  // as given: "auto", "sizes>=64MiB" ("" for None)
};
// "auto", "none" or "sizes>=<bytes>" (e.g. sizes>=64MiB); InputError naming `option` otherwise.
SizeHoldout parse_size_holdout(const std::string& text, const std::string& option = "--holdout");

// The auto rule needs this many distinct sizes (7 or fewer leave too few to fit on: the residual factors' segments
// take >= 3 sizes each, monotone_curve.hpp).
inline constexpr std::size_t kAutoHoldoutMinSizes = 8;

struct SizeSplit {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> groups;  // (name, ascending sizes), none empty
  std::string note;  // why nothing is held out ("" when a group is)
};
// The held-out groups of `rule` over the fitted records' sizes (any order, repeats allowed). Auto with too few sizes
// gives no group and a note; sizes>=X that holds out every size or none is an InputError naming --holdout.
SizeSplit split_sizes(const SizeHoldout& rule, std::vector<std::int64_t> sizes_bytes);

}  // namespace vgsim::calibrate
