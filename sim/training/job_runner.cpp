// One job on the step engine: iterations and event dispatch (see job_runner.hpp).
#include "job_runner.hpp"

#include <algorithm>

#include "clocked_compute.hpp"
#include "sliced_compute.hpp"

namespace vgsim::sim::training {

JobRunner::JobRunner(const TrainingJob& job, TrainingResult& out, Simulator& sim, Fabric& fabric,
                     virt::VgpuScheduler& gpus, bool shared, Time tick_offset)
    : ctx_{job, out, sim, *this, {}, {}, {}},
      fabric_(fabric),
      gpus_(gpus),
      tick_offset_(tick_offset),
      stream_(ctx_, fabric, shared) {
  out = result_header(job);
  bool sliced = false;  // a rank is on a time-sliced vGPU: compute goes through the scheduler
  for (std::uint32_t e : job.rank_to_endpoint) sliced = sliced || gpus_.time_sliced(e);
  IterationEnd& end = *this;
  if (sliced)
    compute_ = std::make_unique<SlicedCompute>(ctx_, gpus_, end);
  else
    compute_ = std::make_unique<ClockedCompute>(ctx_, end);
  stream_.set_compute(*compute_);
  stream_.connect();
  ctx_.iteration_bytes.assign(fabric.cluster().resources().size(), 0.0);
}

void JobRunner::start() {
  for (std::uint32_t e : ctx_.job.rank_to_endpoint) gpus_.attach(e);
  if (ctx_.job.clock_offset.ps > 0)
    ctx_.post(ctx_.job.clock_offset, StepEvent::iteration_start());
  else
    begin_iteration();
}

void JobRunner::finish_stats() {
  ctx_.out.events = ctx_.sim.events_processed();
  ctx_.out.flows = ctx_.sim.flows_completed();
}

void JobRunner::on_event(Simulator&, std::uint64_t tag) {
  const StepEvent e = StepEvent::from_tag(tag);
  switch (e.kind) {
    case StepEventKind::IterationStart:
      begin_iteration();
      break;
    case StepEventKind::WorkReached:
      compute_->on_work_reached(e);
      break;
    case StepEventKind::GroupReady:
      stream_.on_group_ready(e.group);
      break;
    case StepEventKind::ReplayDone:
      stream_.on_replay_done(e.group);
      break;
  }
}

void JobRunner::begin_iteration() {
  const TrainingJob& job = ctx_.job;
  const models::ComputeResult& cr = ctx_.out.compute;
  IterationRecord it;
  it.start = ctx_.sim.now();
  const std::int64_t k = ctx_.out.micro_steps;
  it.backward_start = it.start + (cr.forward + cr.backward) * (k - 1) + cr.forward;
  it.backward_end = it.backward_start + cr.backward;
  ctx_.out.iterations.push_back(it);
  iteration_start_bytes_ = fabric_.bytes_carried();
  std::fill(ctx_.iteration_bytes.begin(), ctx_.iteration_bytes.end(), 0.0);
  ctx_.groups.clear();
  if (stream_.connected()) {
    // Horovod ticks are anchored to this iteration: one at tick_offset_ after its last gradient (training_run.hpp).
    const auto tensors = models::gradient_tensors(cr, it.backward_start);
    ctx_.groups = job_groups(job, tensors, tick_origin(tensors, tick_offset_));
  }
  stream_.begin_iteration();
  ctx_.group_wait.clear();
  for (const auto& grp : ctx_.groups) ctx_.group_wait.push_back(framework_wait(grp, it.backward_start));
  auto& records = ctx_.iteration().collectives;
  for (std::size_t g = 0; g < ctx_.groups.size(); ++g) {
    CollectiveRecord c = group_record(ctx_.groups[g], static_cast<int>(g), job.ranks());
    c.ready = std::max(ctx_.groups[g].earliest_start, it.backward_start);
    records.push_back(c);
  }
  compute_->begin();
}

void JobRunner::end_iteration(Time optimizer_start, Time end) {
  IterationRecord& it = ctx_.iteration();
  it.optimizer_start = optimizer_start;
  it.end = end;
  // Bytes carried in this iteration: flows completed on the engine since it began, plus replayed collectives.
  // No flow crosses an iteration boundary (the optimizer waits for the last collective).
  const std::vector<double> now = fabric_.bytes_carried();
  for (ResourceId r = 0; r < ctx_.iteration_bytes.size(); ++r)
    ctx_.iteration_bytes[r] += now[r] - iteration_start_bytes_[r];
  last_bytes_ = ctx_.iteration_bytes;
  if (static_cast<int>(ctx_.out.iterations.size()) < ctx_.job.iterations)
    ctx_.post(it.end, StepEvent::iteration_start());
  else
    for (std::uint32_t e : ctx_.job.rank_to_endpoint) gpus_.detach(e);  // the job ends: its VMs go idle
}

}  // namespace vgsim::sim::training
