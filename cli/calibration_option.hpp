// `--calibration <profile.json>` for train, sweep, compare and jobs: the key=value pairs of a training profile
// (`vgsim calibrate fit-training`), applied under the command's own --set pairs and a plan's own parameters.
#pragma once

#include <string>
#include <vector>

#include "vgsim/calibrate/training_fit.hpp"

namespace vgsim::cli {

// The profile's pairs ("" -> none). InputError naming the file and JSON path on a bad profile.
inline std::vector<std::string> calibration_sets(const std::string& profile) {
  return profile.empty() ? std::vector<std::string>{} : calibrate::load_training_profile_sets(profile);
}

}  // namespace vgsim::cli
