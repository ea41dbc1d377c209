// A sweep's run key (SweepOptions::run_key): vgsim's version and a fingerprint of the data files a point reads (the
// built-in catalog, the --catalog directories, the cluster presets and the scenario files), so that --resume refuses
// a journal written with other data or by another vgsim instead of mixing their results.
#pragma once

#include <string>
#include <vector>

namespace vgsim::sim::planning {

// FNV-1a 64 over each *.json file's name and bytes, directories in the order given, files sorted by name within
// each; a directory that cannot be read counts as empty. 16 lowercase hex digits.
std::string data_fingerprint(const std::vector<std::string>& dirs);

// "vgsim <version>; data <fingerprint of the catalog, --catalog, preset and scenario directories>".
std::string sweep_run_key();

}  // namespace vgsim::sim::planning
