// The modeled cluster measurements are replayed on and fitted to (sim_fit.hpp): cluster, NCCL layout, communicator
// options, the Open MPI configuration, a progress callback and the threads to replay on.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/mpi_collective.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::calibrate {

// The modeled cluster records are replayed on. `options` carries path options and the NCCL model version.
// nodes = 0: no NCCL layout (no NCCL records; the cluster may have no GPUs). `mpi`: the Open MPI configuration of
// the cluster (catalog physics, then a fit-mpi profile's and --set values) that Open MPI records are replayed with.
struct SimTarget {
  const topo::Cluster* cluster = nullptr;
  std::uint32_t nodes = 0, gpus_per_node = 0;
  sim::CommOptions options;
  std::optional<sim::MpiConfig> mpi;
  // Called as the fit advances ("pass 2/3: linearizing 120 records", "pass 2/3: replaying a step of 0.50 ..."); the CLI
  // shows it on a progress line. May be empty.
  std::function<void(const std::string& state)> progress;
  // Threads the fit replays records on (parallel_for; 0 = the hardware threads). The profile does not depend on it.
  unsigned jobs = 0;
};

}  // namespace vgsim::calibrate
