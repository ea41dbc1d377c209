// What a calibration fit did, in numbers (issue 38 item 7): the error of the catalog (uncalibrated) replay, of the
// fitted physical parameters alone and with the per-size corrections on top, the share of the catalog's error each
// stage removed, the same errors on sizes the fit did not see (held out, size_holdout.hpp), and the warnings those
// figures call for. Part of the calibration profile (its "fit_report", calibrate/SCHEMA.md) and printed by
// `vgsim calibrate fit`.
//
// The error metric, per stage X over n records with measured times m_i and simulated times s_i^X:
//   E_X = (1/n) sum_i |ln(s_i^X / m_i)|
// (mean absolute log ratio; printed x 100 as a percent: |ln(1 + e)| ~ |e| for small relative errors e, and it is
// symmetric, 2x too slow and 2x too fast both count ln 2 = 69.3 %). Shares of the catalog's error (E_cat > 0):
//   share_physical    = (E_cat  - E_phys) / E_cat    what the bounded physical parameters removed
//   share_corrections = (E_phys - E_corr) / E_cat    what the per-size corrections took on top
//   share_left        =  E_corr / E_cat              what remains
// Identity: share_physical + share_corrections + share_left = 1 (a telescoping sum). A share is negative when its
// stage raised E: the physical stage minimizes the median relative error, not E, and the corrections are held to a
// curve monotone in size. With E_cat = 0 all three shares are 0.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vgsim {
class JsonReader;
}

namespace vgsim::calibrate {

struct StageError {
  double mean_abs_log = 0;  // E above
  double median_rel = 0;    // median_i |s_i / m_i - 1|: the figure the fit's physical stage minimizes
  double max_rel = 0;       // max_i |s_i / m_i - 1|
  bool operator==(const StageError&) const = default;
};
// Errors of the records' simulated times (same order as measured_us).
StageError stage_error(const std::vector<double>& simulated_us, const std::vector<double>& measured_us);

struct ErrorDecomposition {
  std::int64_t records = 0;
  StageError catalog, physical, corrected;  // corrected = physical parameters + per-size corrections
  double share_physical() const;
  double share_corrections() const;
  double share_left() const;
  bool operator==(const ErrorDecomposition&) const = default;
};
ErrorDecomposition decompose_errors(const std::vector<double>& measured_us, const std::vector<double>& catalog_us,
                                    const std::vector<double>& physical_us, const std::vector<double>& corrected_us);

// Whether error `e` (mean |ln(simulated / measured)|) is worse than `reference`: by more than 1e-3, the 0.1 % the
// report prints, so two errors that print alike (a calibration that leaves a size as the catalog had it) are not
// called worse.
inline bool worse_than(double e, double reference) { return e > reference + 1e-3; }

// One group of held-out sizes: the errors of a profile fitted without them, on their records.
struct HeldOutGroup {
  std::string name;                       // "interpolated", "extrapolated" or the rule ("sizes>=64MiB")
  std::vector<std::int64_t> sizes_bytes;  // ascending
  ErrorDecomposition errors;              // over the group's records
  std::vector<std::int64_t> worse_bytes;  // sizes where the calibrated E is worse_than the catalog's (ascending)
  bool operator==(const HeldOutGroup&) const = default;
};

struct FitReport {
  ErrorDecomposition in_sample;             // over every NCCL record of the fit (records 0: no NCCL fit)
  bool size_corrections = true;             // false: fitted with --no-size-corrections (corrected = physical)
  std::string held_out_rule;                // the --holdout rule ("auto", "sizes>=64MiB"); "" when none was asked
  std::int64_t held_out_train_records = 0;  // records the held-out profile was fitted on
  std::vector<HeldOutGroup> held_out;
  std::string held_out_note;          // why there is no held-out figure ("" when there is one or none was asked)
  std::vector<std::string> warnings;  // each also printed on stderr by the CLI
  bool empty() const { return in_sample.records == 0 && held_out_rule.empty(); }
  bool operator==(const FitReport&) const = default;
};

// The warnings the held-out figures call for: per group whose calibrated E is above the catalog's, one naming the
// group's sizes, the sizes where it is worse, both errors, and what to do (--no-size-corrections when the physical
// parameters alone did not do worse than the catalog there). Replaces report.warnings.
void set_held_out_warnings(FitReport& report);

// Formats sizes as the CLI prints them ("128 KiB, 2 MiB" or "4 GiB .. 16 GiB (3 sizes)" for a run of more than 4).
std::string format_sizes(const std::vector<std::int64_t>& sizes_bytes);

// The report as `vgsim calibrate fit` prints it: the decomposition table and shares, the held-out table (or the
// note why there is none), and a note where the corrections raised a held-out group's error over the physical
// parameters alone without making it worse than the catalog. Warnings are not written here (stderr, by the caller).
void write_fit_report_text(std::ostream& out, const FitReport& report);

nlohmann::ordered_json fit_report_json(const FitReport& report);
FitReport fit_report_from_json(JsonReader& r);  // r: the "fit_report" object; InputError naming the path

}  // namespace vgsim::calibrate
