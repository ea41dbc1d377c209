// Compute as timer events on a ComputeClock (see clocked_compute.hpp).
#include "clocked_compute.hpp"

#include <algorithm>

namespace vgsim::sim::training {

void ClockedCompute::begin() {
  const IterationRecord& it = ctx_.iteration();
  running_share_ = 0.0;
  clock_ = ComputeClock(it.backward_start, ctx_.out.compute.backward);
  reached_.assign(ctx_.groups.size(), false);
  group_work_.clear();
  for (const auto& grp : ctx_.groups) group_work_.push_back(grp.last_ready - it.backward_start);
  schedule_work_events();
  if (ctx_.groups.empty()) end_.end_iteration(it.backward_end, it.backward_end + ctx_.out.compute.optimizer);
}

void ClockedCompute::schedule_work_events() {
  ++generation_;
  for (std::size_t g = 0; g < ctx_.groups.size(); ++g) {
    if (reached_[g]) continue;
    const Time at = std::max(ctx_.sim.now(), clock_.time_when(group_work_[g]));
    ctx_.post(at, StepEvent::work_reached(static_cast<std::uint32_t>(g), generation_));
  }
}

// The framework issues the group after its own wait (Horovod cycle tick, DDP bucket order).
void ClockedCompute::on_work_reached(StepEvent e) {
  if (e.generation != (generation_ & StepEvent::kGenerationMask) || reached_[e.group]) return;
  reached_[e.group] = true;
  ctx_.post(ctx_.sim.now() + ctx_.group_wait[e.group], StepEvent::group_ready(e.group));
}

void ClockedCompute::change_share(double delta) {
  if (delta == 0.0) return;
  running_share_ = std::max(0.0, running_share_ + delta);
  clock_.set_share(ctx_.sim.now(), running_share_);
  schedule_work_events();
}

// Backward ran slower while collectives held SMs: its end is where the compute clock reaches the total.
void ClockedCompute::collectives_done() {
  IterationRecord& it = ctx_.iteration();
  const Time now = ctx_.sim.now();
  clock_.set_share(now, 0.0);
  const Time bwd_end = clock_.finished() ? clock_.done_at() : clock_.time_when(clock_.total());
  it.nccl_slowdown = bwd_end - it.backward_end;
  it.backward_end = bwd_end;
  const Time optimizer_start = std::max(now, it.backward_end);
  end_.end_iteration(optimizer_start, optimizer_start + ctx_.out.compute.optimizer);
}

}  // namespace vgsim::sim::training
