// `vgsim compare A B`: two training designs side by side (markdown, or JSON with --json).
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

void add_compare_command(CLI::App& app);

}  // namespace vgsim::cli
