// `vgsim train`: simulates a data-parallel training job (see include/vgsim/sim/training/) and prints a summary;
// --json and --trace write the full report and a Chrome trace.
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

void add_train_command(CLI::App& app);

}  // namespace vgsim::cli
