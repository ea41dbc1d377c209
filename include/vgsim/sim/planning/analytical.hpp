// The ANALYTICAL fidelity for sweeps: a collective's time in closed form (workloads/collectives/analytical.hpp) with
// the same plan the step engine would run (Communicator: algorithm, protocol, channels, step costs, per-channel
// rank -> endpoint maps), and a training iteration built from those times with the same issue rule as
// sim/training (one NCCL stream: group g starts at max(ready_g, finish_{g-1}); the optimizer waits for backward and
// the last collective; Horovod: the mean over the same tick phases, training_run.hpp). Per-hop-class bandwidth = the
// max-min fair rate of one connection when every connection (channel, src, dst) of the schedule is active at once,
// which is what a pipelined ring sees; per-link bytes are the schedule's wire bytes summed over each transfer's route.
// Exact to rounding where nothing else contends; not valid for time-sliced vGPUs or overlapping collectives
// (analytical_supported() says so and the runner falls back to the step engine). Units: Time (ps), bytes, bytes/s.
#pragma once

#include <utility>
#include <vector>

#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/training/training_run.hpp"
#include "vgsim/workloads/collectives/analytical.hpp"

namespace vgsim::sim::planning {

struct AnalyticalCollective {
  Time time{0};
  coll::PathCosts costs;                             // what the closed form was given
  std::vector<std::pair<ResourceId, double>> bytes;  // wire bytes per resource for one call
};

// `fabric` must be built on the communicator's cluster with its path options and capacity scales.
AnalyticalCollective analytical_collective(const Communicator& comm, const CallPlan& plan, Fabric& fabric);

// False when the job needs the engine: ranks on time-sliced vGPUs, or collectives that overlap and contend.
bool analytical_supported(const training::TrainingJob& job);

// Same figures as training::simulate_training / simulate_study (events = 0, flows = 0), in closed form.
training::TrainingResult simulate_training_analytical(const training::TrainingJob& job);
training::TrainingStudy simulate_study_analytical(const training::TrainingJob& job);

}  // namespace vgsim::sim::planning
