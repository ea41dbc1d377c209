// One job on the step engine: begins and ends its iterations, receives its timer events (StepEvent tags, decoded in
// on_event and handed to the part that owns the kind) and puts the parts together: the compute side
// (ClockedCompute, or SlicedCompute when a rank is on a time-sliced vGPU) and the CollectiveStream. The Simulator,
// the Fabric and the vGPU scheduler belong to the run (shared by every job of a multi-job run).
#pragma once

#include <memory>
#include <vector>

#include "collective_stream.hpp"
#include "step_context.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

namespace vgsim::sim::training {

class JobRunner final : public EventHandler, private IterationEnd {
 public:
  // Fills `out`'s header; `shared`: other jobs run on the same engine; `tick_offset`: Horovod's anchored tick is this
  // long after each iteration's last gradient (training_run.hpp).
  JobRunner(const TrainingJob& job, TrainingResult& out, Simulator& sim, Fabric& fabric, virt::VgpuScheduler& gpus,
            bool shared, Time tick_offset);
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Schedules the first iteration; the caller runs the engine.
  void start();
  // Copies the engine's work counters into the result.
  void finish_stats();
  void on_event(Simulator& sim, std::uint64_t tag) override;

  // Bytes each resource carried in the last iteration.
  const std::vector<double>& last_bytes() const { return last_bytes_; }
  const Simulator& simulator() const { return ctx_.sim; }

 private:
  void begin_iteration();
  void end_iteration(Time optimizer_start, Time end) override;

  StepContext ctx_;
  Fabric& fabric_;  // its bytes_carried() counts this job's bytes per cluster resource
  virt::VgpuScheduler& gpus_;
  Time tick_offset_{0};
  CollectiveStream stream_;
  std::unique_ptr<StepCompute> compute_;
  std::vector<double> iteration_start_bytes_, last_bytes_;
};

}  // namespace vgsim::sim::training
