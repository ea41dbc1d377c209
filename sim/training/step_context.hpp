// What the parts of one job's step engine share, and the seams between them (job_runner.hpp puts them together):
// the JobRunner begins and ends iterations and receives the job's timer events; a StepCompute (clocked_compute.hpp
// or sliced_compute.hpp) runs the compute and says when each gradient group is ready; the CollectiveStream
// (collective_stream.hpp) issues the groups' collectives and tells the compute when they start and finish.
#pragma once

#include <vector>

#include "step_event.hpp"
#include "vgsim/kernel/simulator.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::training {

struct StepContext {
  const TrainingJob& job;
  TrainingResult& out;  // the running iteration is out.iterations.back()
  Simulator& sim;
  EventHandler& handler;  // receives the job's timer events (the JobRunner)
  // This iteration's gradient groups (issue order) and each one's framework wait beyond its last gradient (Horovod
  // cycle tick, DDP bucket order), from the unslowed plan.
  std::vector<models::GradientGroup> groups;
  std::vector<Time> group_wait;
  // Bytes each resource carried in this iteration: replayed collectives as they are issued; the engine's flows are
  // added when the iteration ends.
  std::vector<double> iteration_bytes;

  IterationRecord& iteration() { return out.iterations.back(); }
  void post(Time at, StepEvent e) { sim.schedule(at, &handler, e.tag()); }
};

// Ends the running iteration (the JobRunner): the optimizer step started at `optimizer_start` and is done at `end`.
class IterationEnd {
 public:
  virtual void end_iteration(Time optimizer_start, Time end) = 0;

 protected:
  ~IterationEnd() = default;
};

// The compute side of an iteration: forward and backward passes, the optimizer step. It posts GroupReady when a
// group's gradients are done and its framework wait is over, and ends the iteration through IterationEnd.
class StepCompute {
 public:
  virtual ~StepCompute() = default;
  // The iteration's record, groups and waits are set: start its compute.
  virtual void begin() = 0;
  // A WorkReached event arrived (only clocked compute posts them).
  virtual void on_work_reached(StepEvent) {}
  // A collective started (share > 0) or finished (share < 0): NCCL's kernels hold that share of the SMs.
  virtual void change_share(double) {}
  // The iteration's last collective finished.
  virtual void collectives_done() = 0;
};

}  // namespace vgsim::sim::training
