// `vgsim collective --library mpi`: an OSU-style sweep of one Open MPI collective on a modeled CPU cluster (issue 15).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"

namespace vgsim::cli {

struct MpiCollectiveRequest {
  std::string cluster, op = "allreduce";
  std::uint32_t nodes = 0, ranks_per_node = 1;  // nodes 0 = all hosts of the cluster
  std::string mpi_algo;                         // --mpi-algo: forced algorithm (turns dynamic rules on)
  std::vector<std::string> sets;                // --set mpi.NAME=value
  std::string profile;                          // --mpi-profile: a fit-mpi profile (its values before --set)
  std::string json_out;
};

// Prints OSU 5.7's table (`# OSU MPI Allreduce Latency Test v5.7`, `# Size       Avg Latency(us)`, one row per
// size) on stdout and what the model ran (algorithm per size, parameters) on stderr as `# vgsim:` lines.
void run_mpi_collective(const MpiCollectiveRequest& r, const std::vector<Bytes>& sizes);

// `vgsim params --library mpi [--cluster C] [--set mpi.X=v]`: every mpi.* parameter with its value and source, then
// its declaration (type, unit, bounds, help) as a comment.
void print_mpi_params(const std::string& cluster, const std::vector<std::string>& sets);

}  // namespace vgsim::cli
