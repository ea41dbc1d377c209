// Importer for nccl-tests text output (*_perf tables). Handles the new layout (size count type redop root, then
// out-of-place and in-place groups of time algbw busbw #wrong), the old layout (no root column, `error` instead of
// #wrong), trimmed tables (size time algbw busbw), several tables per file ("# ===== all_gather_perf ... ====="),
// N/A and "(cut)" placeholders and 1_048_576-style sizes. Each row gives one record per group (out-of-place, in-place).
// busbw is recomputed with the nccl-tests factor and must match the printed one within its printed digits.
#pragma once

#include <string>
#include <vector>

#include "vgsim/calibrate/import_hints.hpp"
#include "vgsim/calibrate/measurement.hpp"

namespace vgsim::calibrate {

// Rank/node counts as stated by a file (header comments or file name); 0 = not stated.
struct StatedLayout {
  std::int64_t nranks = 0, nnodes = 0, gpus_per_node = 0;
};

// Reads `path`. Errors (InputError) name the file and "line N". Rank and node counts come from the header when stated
// (nccl-tests "#  Rank" lines; "mpirun -np N -npernode K ... -g G"; "single process ... -g G"; "N nodes x M GPU";
// "N ranks"; "single node"; a file name containing "_<nodes>x<gpus>x"), else from `hints`.
std::vector<Measurement> import_nccl_tests(const std::string& path, const ImportHints& hints = {});
// Same, on text already in memory; `file` labels errors and names the source.
std::vector<Measurement> import_nccl_tests_text(const std::string& text, const std::string& file,
                                                const ImportHints& hints = {});

// The layout a header states (exposed for tests). `header_lines` are the '#' lines, `file` the file name.
StatedLayout stated_layout(const std::vector<std::string>& header_lines, const std::string& file);

}  // namespace vgsim::calibrate
