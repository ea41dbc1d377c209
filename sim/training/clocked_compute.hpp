// Compute as timer events, for jobs with no rank on a time-sliced vGPU: ranks are symmetric and their compute does
// not contend with the network, so one rank's timeline stands for all. Backward progress follows a ComputeClock
// (compute_clock.hpp): while collectives run, NCCL's kernels hold their share of the SMs and backward slows. Each
// group's "work reached" (the backward work up to its last gradient) is a WorkReached event at the current rate;
// a rate change schedules them again under a new generation and the earlier ones become stale. A reached group is
// ready after its framework wait. The optimizer starts when backward and the last collective are done.
#pragma once

#include <cstdint>
#include <vector>

#include "step_context.hpp"
#include "vgsim/sim/training/compute_clock.hpp"

namespace vgsim::sim::training {

class ClockedCompute final : public StepCompute {
 public:
  ClockedCompute(StepContext& ctx, IterationEnd& end) : ctx_(ctx), end_(end) {}

  void begin() override;
  void on_work_reached(StepEvent e) override;
  void change_share(double delta) override;
  void collectives_done() override;

 private:
  // Posts WorkReached for every group not yet reached, at the current compute rate, under a new generation.
  void schedule_work_events();

  StepContext& ctx_;
  IterationEnd& end_;
  ComputeClock clock_;            // backward progress under NCCL's SM share
  double running_share_ = 0.0;    // SM share of the collectives running now
  std::uint64_t generation_ = 0;  // of the pending WorkReached events
  std::vector<Time> group_work_;  // backward work up to each group's last gradient
  std::vector<bool> reached_;
};

}  // namespace vgsim::sim::training
