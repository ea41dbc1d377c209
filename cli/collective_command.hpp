// `vgsim collective`: an nccl-tests style sweep of one collective on a modeled cluster.
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

// Registers the subcommand on `app`; its callback runs the sweep and prints the table.
void add_collective_command(CLI::App& app);

}  // namespace vgsim::cli
