// Issuing and finishing a job's collectives in the step engine (see collective_stream.hpp).
#include "collective_stream.hpp"

#include <string>

namespace vgsim::sim::training {

void CollectiveStream::connect() {
  if (ctx_.job.ranks() <= 1) return;
  comm_ = std::make_unique<Communicator>(*ctx_.job.cluster, ctx_.job.rank_to_endpoint, ctx_.job.comm);
  ctx_.out.transports = comm_->describe_transports();
  ctx_.out.nccl_net = comm_->describe_net();
  ctx_.out.transport_reasons = comm_->transport_reasons();
}

void CollectiveStream::begin_iteration() {
  ready_.assign(ctx_.groups.size(), false);
  issued_.assign(ctx_.groups.size(), false);
  reclaim_finished();
  next_issue_ = 0;
  done_ = 0;
  busy_ = false;
}

void CollectiveStream::on_group_ready(std::uint32_t g) {
  ready_[g] = true;
  if (ctx_.job.serialize_collectives)
    try_issue();
  else
    issue(g);
}

void CollectiveStream::try_issue() {
  while (!busy_ && next_issue_ < ctx_.groups.size() && ready_[next_issue_])
    issue(static_cast<std::uint32_t>(next_issue_++));
}

CollectiveStream::Key CollectiveStream::plan_key(const CollectiveRecord& c) {
  const coll::Op op = c.kind == models::GroupKind::AllGather ? coll::Op::AllGather : coll::Op::AllReduce;
  return {static_cast<int>(op), c.total_bytes};
}

CallPlan& CollectiveStream::plan_for(const CollectiveRecord& c) {
  const Key key = plan_key(c);
  auto it = plans_.find(key);
  if (it == plans_.end()) it = plans_.emplace(key, comm_->plan(static_cast<coll::Op>(key.first), key.second)).first;
  return it->second;
}

bool CollectiveStream::schedule_unused_after(std::uint32_t g, bool recorded) const {
  if (recorded) return true;  // the fast path replays this key from now on
  if (static_cast<int>(ctx_.out.iterations.size()) < ctx_.job.iterations) return false;
  const auto& records = ctx_.out.iterations.back().collectives;
  const Key key = plan_key(records[g]);
  for (std::size_t k = 0; k < records.size(); ++k)
    if (!issued_[k] && plan_key(records[k]) == key) return false;
  return true;
}

void CollectiveStream::reclaim_finished() {
  std::erase_if(runs_, [this](const Running& r) { return r.finished && r.run.get() != finishing_; });
}

void CollectiveStream::issue(std::uint32_t g) {
  busy_ = true;
  issued_[g] = true;
  const TrainingJob& job = ctx_.job;
  if (job.progress)
    job.progress("iteration " + std::to_string(ctx_.out.iterations.size()) + "/" + std::to_string(job.iterations) +
                 ", collective " + std::to_string(g + 1) + "/" + std::to_string(ctx_.groups.size()));
  CollectiveRecord& c = ctx_.iteration().collectives[g];
  c.start = ctx_.sim.now();
  const CallPlan& plan = plan_for(c);
  c.algo = coll::to_string(plan.algo);
  c.proto = coll::to_string(plan.proto);
  c.channels = plan.channels;
  compute_->change_share(nccl_compute_share(job, plan.channels));
  const Key key{static_cast<int>(c.kind), c.total_bytes};
  // Replaying needs an otherwise idle network: not in a multi-job run, where other jobs' flows contend.
  const bool fast = job.serialize_collectives && job.reuse_collective_times && !shared_;
  if (fast) {
    if (auto hit = recorded_.find(key); hit != recorded_.end()) {
      c.replayed = true;
      for (const auto& [r, b] : hit->second.bytes) ctx_.iteration_bytes[r] += b;
      ctx_.post(c.start + hit->second.duration, StepEvent::replay_done(g));
      return;
    }
    recording_ = fabric_.bytes_carried();
  }
  run(g, key, fast);
}

void CollectiveStream::run(std::uint32_t g, Key key, bool record) {
  reclaim_finished();
  CallPlan& plan = plan_for(ctx_.iteration().collectives[g]);
  if (!plan.schedule) plan = comm_->plan(plan.op, plan.size);  // dropped after an earlier run: built again
  Running entry;
  entry.schedule = plan.schedule;
  entry.run =
      std::make_unique<CollectiveRun>(*plan.schedule, plan.channel_gpus, plan.costs, fabric_, plan.fold_channels);
  CollectiveRun* const self = entry.run.get();
  runs_.push_back(std::move(entry));
  if (schedule_unused_after(g, record)) plan.schedule.reset();  // the run keeps it as long as it needs it
  self->start([this, g, key, record, self](Time finish) {
    if (record) {
      Recorded rec;
      rec.duration = finish - ctx_.iteration().collectives[g].start;
      const std::vector<double> now = fabric_.bytes_carried();
      for (ResourceId r = 0; r < recording_.size(); ++r) {
        const double d = now[r] - recording_[r];
        if (d > 0.0) rec.bytes.emplace_back(r, d);
      }
      recorded_.emplace(key, std::move(rec));
    }
    for (auto& r : runs_)
      if (r.run.get() == self) r.finished = true;
    const CollectiveRun* outer = finishing_;
    finishing_ = self;
    collective_done(g);
    finishing_ = outer;
  });
}

void CollectiveStream::collective_done(std::uint32_t g) {
  CollectiveRecord& c = ctx_.iteration().collectives[g];
  c.finish = ctx_.sim.now();
  compute_->change_share(-nccl_compute_share(ctx_.job, c.channels));
  busy_ = false;
  ++done_;
  if (done_ == ctx_.groups.size())
    compute_->collectives_done();
  else if (ctx_.job.serialize_collectives)
    try_issue();
}

}  // namespace vgsim::sim::training
