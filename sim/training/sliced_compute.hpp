// Compute through the vGPU scheduler, for jobs with a rank on a time-sliced vGPU: every rank submits its micro-steps
// (forward, then backward; the last micro-step's backward layer by layer) and its optimizer step to
// virt::VgpuScheduler, which decides when each piece is done. A gradient group is ready when its tensors are done
// on every rank, plus its framework wait (from the unslowed plan). The optimizer starts on every rank when backward is
// done on every rank and the last collective has finished; the iteration ends when it is done on every rank. NCCL's
// SM share does not slow this compute [assumption: NCCL kernels are not descheduled with the VM's compute context].
#pragma once

#include <cstdint>
#include <vector>

#include "step_context.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

namespace vgsim::sim::training {

class SlicedCompute final : public StepCompute {
 public:
  SlicedCompute(StepContext& ctx, virt::VgpuScheduler& gpus, IterationEnd& end) : ctx_(ctx), gpus_(gpus), end_(end) {}

  void begin() override;
  void collectives_done() override;

 private:
  void run_micro_step(std::uint32_t rank, std::int64_t step);
  void run_backward_layer(std::uint32_t rank, std::size_t layer);
  void fire_ready_groups();  // posts GroupReady for every group whose tensors are now done on every rank
  void all_backward_done();
  void start_optimizer();
  void finish_optimizer();

  StepContext& ctx_;
  virt::VgpuScheduler& gpus_;
  IterationEnd& end_;
  std::vector<std::uint32_t> layer_done_ranks_;  // per layer: ranks whose backward of it is done
  std::vector<Time> tensor_done_;                // per layer: when the last rank finished it
  std::vector<bool> group_fired_;
  std::uint32_t ranks_backward_done_ = 0, ranks_optimizer_done_ = 0;
  bool backward_done_ = false;     // on every rank
  bool collectives_done_ = false;  // the iteration's last collective finished (or it has none)
};

}  // namespace vgsim::sim::training
