// Issuing and finishing a job's collectives in the step engine (see collective_stream.hpp).
#include "collective_stream.hpp"

#include <string>

namespace vgsim::sim::training {

void CollectiveStream::connect() {
  if (ctx_.job.ranks() <= 1) return;
  comm_ = std::make_unique<Communicator>(*ctx_.job.cluster, ctx_.job.rank_to_endpoint, ctx_.job.comm);
  ctx_.out.transports = comm_->describe_transports();
}

void CollectiveStream::begin_iteration() {
  ready_.assign(ctx_.groups.size(), false);
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

const CallPlan& CollectiveStream::plan_for(const CollectiveRecord& c) {
  const coll::Op op = c.kind == models::GroupKind::AllGather ? coll::Op::AllGather : coll::Op::AllReduce;
  const Key key{static_cast<int>(op), c.total_bytes};
  auto it = plans_.find(key);
  if (it == plans_.end()) it = plans_.emplace(key, comm_->plan(op, c.total_bytes)).first;
  return it->second;
}

void CollectiveStream::issue(std::uint32_t g) {
  busy_ = true;
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
    recording_ = bytes_carried(ctx_.sim);
  }
  run(g, plan, key, fast);
}

void CollectiveStream::run(std::uint32_t g, const CallPlan& plan, Key key, bool record) {
  runs_.push_back(std::make_unique<CollectiveRun>(*plan.schedule, plan.channel_gpus, plan.costs, fabric_));
  runs_.back()->start([this, g, key, record](Time finish) {
    if (record) {
      Recorded entry;
      entry.duration = finish - ctx_.iteration().collectives[g].start;
      for (ResourceId r = 0; r < recording_.size(); ++r) {
        const double d = ctx_.sim.resource_stats(r).bytes_carried - recording_[r];
        if (d > 0.0) entry.bytes.emplace_back(r, d);
      }
      recorded_.emplace(key, std::move(entry));
    }
    collective_done(g);
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
