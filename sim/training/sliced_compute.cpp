// Compute through the vGPU scheduler (see sliced_compute.hpp).
#include "sliced_compute.hpp"

#include <algorithm>

namespace vgsim::sim::training {

void SlicedCompute::begin() {
  const std::size_t layers = ctx_.out.compute.layers.size();
  layer_done_ranks_.assign(layers, 0);
  tensor_done_.assign(layers, Time{0});
  ranks_backward_done_ = 0;
  ranks_optimizer_done_ = 0;
  group_fired_.assign(ctx_.groups.size(), false);
  collectives_done_ = ctx_.groups.empty();
  for (std::uint32_t r = 0; r < ctx_.job.ranks(); ++r) run_micro_step(r, 0);
  if (ctx_.groups.empty() && layers == 0) all_backward_done();
}

void SlicedCompute::run_micro_step(std::uint32_t r, std::int64_t step) {
  const std::uint32_t e = ctx_.job.rank_to_endpoint[r];
  const bool last = step + 1 == ctx_.out.micro_steps;
  gpus_.submit(e, ctx_.out.compute.forward, [this, r, step, last, e] {
    if (r == 0 && last) ctx_.iteration().backward_start = ctx_.sim.now();
    if (!last) {
      gpus_.submit(e, ctx_.out.compute.backward, [this, r, step] { run_micro_step(r, step + 1); });
    } else {
      run_backward_layer(r, 0);
    }
  });
}

void SlicedCompute::run_backward_layer(std::uint32_t r, std::size_t i) {
  const auto& layers = ctx_.out.compute.layers;
  if (i == layers.size()) {
    if (++ranks_backward_done_ == ctx_.job.ranks()) all_backward_done();
    return;
  }
  gpus_.submit(ctx_.job.rank_to_endpoint[r], layers[i].backward, [this, r, i] {
    if (++layer_done_ranks_[i] == ctx_.job.ranks()) {
      tensor_done_[i] = ctx_.sim.now();
      fire_ready_groups();
    }
    run_backward_layer(r, i + 1);
  });
}

void SlicedCompute::fire_ready_groups() {
  const auto& groups = ctx_.groups;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (group_fired_[g]) continue;
    Time last{0};
    bool all = true;
    for (int t : groups[g].tensors) {
      all = all && layer_done_ranks_[static_cast<std::size_t>(t)] == ctx_.job.ranks();
      if (all) last = std::max(last, tensor_done_[static_cast<std::size_t>(t)]);
    }
    if (!all) continue;
    group_fired_[g] = true;
    const Time ready = last + std::max(Time{0}, ctx_.group_wait[g]);
    ctx_.iteration().collectives[g].ready = ready;
    ctx_.post(ready, StepEvent::group_ready(static_cast<std::uint32_t>(g)));
  }
}

void SlicedCompute::all_backward_done() {
  ctx_.iteration().backward_end = ctx_.sim.now();
  backward_done_ = true;
  if (collectives_done_) start_optimizer();
}

void SlicedCompute::collectives_done() {
  collectives_done_ = true;
  if (backward_done_) start_optimizer();
}

void SlicedCompute::start_optimizer() {
  ctx_.iteration().optimizer_start = ctx_.sim.now();
  for (std::uint32_t r = 0; r < ctx_.job.ranks(); ++r)
    gpus_.submit(ctx_.job.rank_to_endpoint[r], ctx_.out.compute.optimizer, [this] {
      if (++ranks_optimizer_done_ == ctx_.job.ranks()) finish_optimizer();
    });
}

// The optimizer ran through the scheduler and is done now.
void SlicedCompute::finish_optimizer() {
  backward_done_ = false;
  end_.end_iteration(ctx_.iteration().optimizer_start, ctx_.sim.now());
}

}  // namespace vgsim::sim::training
