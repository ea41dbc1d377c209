// Who this process is in the measurement: MPI mode (one rank per GPU, started by mpirun/srun) or single-process mode
// (one process drives all local GPUs, like nccl-tests -g), which local CUDA devices it drives, the NCCL rank of each,
// the node layout and the run id. Also small MPI helpers that degrade to no-ops without MPI.
// Invariant: nccl_ranks = world_size * devices.size(); NCCL rank of devices[d] = world_rank * devices.size() + d.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgsim::probe {

struct ProbeContext {
  bool use_mpi = false;
  int world_rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string hostname;
  std::vector<std::string> hostnames;  // per world rank (every rank has the full list)
  std::vector<int> devices;            // CUDA device indices driven by this process
  int nccl_ranks = 1;
  int nnodes = 1;
  int gpus_per_node = 1;  // NCCL ranks per node (the largest, if nodes differ)
  std::string run_id;     // "<UTC start time>-<host of rank 0>", the same on every rank

  bool is_writer() const { return world_rank == 0; }
  int nccl_rank(std::size_t d) const { return world_rank * static_cast<int>(devices.size()) + static_cast<int>(d); }
  std::string source() const { return "vgsim-probe " + run_id; }

  // MPI helpers (identity without MPI).
  double sum(double v) const;
  int max(int v) const;
  void barrier() const;
  // Rank 0's bytes to everyone.
  void broadcast_bytes(void* data, int bytes) const;
  // Every rank's string, on rank 0 (empty vector elsewhere; a vector of one without MPI).
  std::vector<std::string> gather_strings(const std::string& s) const;
};

// True when an MPI launcher started this process (Open MPI, PMI/PMIx, MPICH Hydra, MVAPICH2 variables).
bool launched_by_mpi();

// MPI mode: MPI_Init_thread and rank/host discovery (no CUDA yet). Single-process mode: host name only.
ProbeContext start_context(bool use_mpi);

// Picks the devices (MPI: the local rank's GPU; otherwise the first `gpus` or all) and fills the node layout.
// `device_count` is cudaGetDeviceCount on this process.
void assign_devices(ProbeContext& ctx, int device_count, int gpus);

}  // namespace vgsim::probe
