// A set of alpha-beta fits with provenance, stored as JSON (calibrate/SCHEMA.md, "fit profile"). The date is given
// by the caller (never read from the clock here), so the same inputs give byte-identical files. This is the fitted
// closed-form model only; how fitted parameters are applied to a simulated cluster is not here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vgsim/calibrate/fit.hpp"

namespace vgsim::calibrate {

struct FitProvenance {
  std::vector<std::string> sources;  // measurement files / probe run ids
  std::string date;                  // as given by the caller, e.g. "2026-07-01"
  std::string tool = "vgsim calibrate fit";
  std::string note;
  bool operator==(const FitProvenance&) const = default;
};

struct FitProfile {
  FitProvenance provenance;
  std::vector<SegmentedFit> fits;

  // First fit whose series key equals `key`, or nullptr.
  const SegmentedFit* find(const SeriesKey& key) const;
  bool operator==(const FitProfile&) const = default;
};

nlohmann::ordered_json to_json(const FitProfile& p);
// Validates with JsonReader; `file` labels errors.
FitProfile fit_profile_from_json(const nlohmann::json& j, const std::string& file);
std::string dump_fit_profile(const FitProfile& p);  // 2-space indented, trailing newline
FitProfile read_fit_profile(const std::string& path);
void write_fit_profile(const std::string& path, const FitProfile& p);  // via "<path>.tmp" + rename

}  // namespace vgsim::calibrate
