// `vgsim calibrate fit-mpi FILES...`: one set of Open MPI physical parameters per network from OSU files, and the
// cross-validation by node count (issue 15; vgsim::calibrate::fit_mpi / mpi_cross_validate).
#pragma once

#include <CLI/CLI.hpp>

namespace vgsim::cli {

// Registers `fit-mpi` under the `calibrate` subcommand.
void add_calibrate_mpi_command(CLI::App* calibrate);

}  // namespace vgsim::cli
