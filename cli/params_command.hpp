// `vgsim params` and `vgsim presets`: list model parameters (name, default, unit, source) and cluster presets.
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

void add_params_command(CLI::App& app);

}  // namespace vgsim::cli
