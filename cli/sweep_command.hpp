// `vgsim sweep plan.json`: runs a what-if sweep plan (include/vgsim/sim/planning/) over local threads and writes
// one CSV row per design point plus a ranked summary with the cost-vs-throughput Pareto front.
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

void add_sweep_command(CLI::App& app);

}  // namespace vgsim::cli
