// `vgsim calibrate probe|import|fit|validate`: measurements in (nccl-tests / OSU text, probe JSONL), calibration
// profiles out, and replay of measurements through the simulator with or without a profile.
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

// Registers the subcommand and its four subcommands on `app`.
void add_calibrate_command(CLI::App& app);

}  // namespace vgsim::cli
