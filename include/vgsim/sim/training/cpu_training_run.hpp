// Simulates one CPU-worker training job (cpu_job.hpp): per rank (ranks are symmetric) forward, then backward layer
// by layer on the CPU roofline (workloads/models/cpu_compute_model.hpp); Horovod's background thread groups the
// gradients (models::group_gradients: fusion up to horovod.fusion_threshold on cycle ticks, sparse embedding
// gradients as separate allgathers unless horovod.sparse_as_dense) and runs each group's collective synchronously,
// one after the other: the fusion buffer copy in and out (allreduce of several tensors; each copy at one core's DRAM
// streaming rate, mpi.core_memory_bandwidth) and the Open MPI collective (sim::simulate_mpi_collective on the cluster,
// nodes x cpu.ranks_per_node ranks). While a collective runs the backward pass progresses at 1 - share
// (models::comm_compute_share: the communication core taken from the compute threads; ComputeClock). The optimizer
// step starts when backward and the last collective are done; gathered sparse slices are read once by it (sparse
// apply, ranks x slice bytes at the rank's memory rate [assumption]). Horovod tick phases are averaged as for GPU
// jobs (training_run.hpp; sim.horovod_tick_phases). Steady state from one iteration: each iteration starts after the
// previous optimizer step, so iterations are alike. Not modelled: Horovod's per-cycle negotiation (MPI gather +
// broadcast of the request lists, microseconds), the two allgathers (values, indices) and the size exchange Horovod
// runs per sparse tensor (one allgather of their summed bytes here), TF's inter-op scheduling, input pipeline.
#pragma once

#include <string>
#include <vector>

#include "vgsim/sim/training/cpu_job.hpp"
#include "vgsim/workloads/models/bucketing.hpp"

namespace vgsim::sim::training {

struct CpuCollectiveRecord {
  models::GroupKind kind = models::GroupKind::AllReduce;
  Bytes bytes = 0;  // per rank: the allreduce vector, or one rank's allgather block
  int tensors = 0;  // gradients fused into it
  Time ready{0};    // last gradient ready + Horovod's wait (tick), on the slowed compute clock
  Time start{0}, finish{0};
  Time copy{0};  // fusion buffer copy in + out
  Time mpi{0};   // the Open MPI collective
  std::string algorithm;
};

struct CpuTrainingResult {
  std::uint32_t nodes = 1, ranks = 1;
  models::ComputeResult compute;                 // one rank, unslowed
  Time iteration{0};                             // steady state (mean over tick phases)
  Time compute_time{0};                          // forward + backward + optimizer (with sparse apply), unslowed
  Time sparse_apply{0};                          // reading the gathered slices in the optimizer step
  Time comm_busy{0};                             // sum of collective durations
  Time exposed{0};                               // iteration - compute_time
  Time comm_slowdown{0};                         // backward lengthened by communication cores
  double units_per_s = 0.0;                      // tokens/s (token models) or samples/s, all ranks
  std::vector<CpuCollectiveRecord> collectives;  // first tick phase
};

// The steady state of `job`.
CpuTrainingResult simulate_cpu_training(const CpuTrainingJob& job);

// One row of a scaling table: the job on `nodes` nodes in the configured gradient mode and in the other one
// (horovod.sparse_as_dense flipped), efficiency = units/s / (nodes x units/s of one node, same mode).
struct CpuScalingRow {
  std::uint32_t nodes = 1;
  double units_per_s = 0.0, efficiency = 0.0;
  double other_units_per_s = 0.0, other_efficiency = 0.0;
  Bytes largest_message = 0;  // largest per-rank collective buffer in the configured mode
};
// Rows for 1, 2, 4, ... (powers of two below job.nodes) and job.nodes.
std::vector<CpuScalingRow> cpu_scaling(const CpuTrainingJob& job);

}  // namespace vgsim::sim::training
