// Data-parallel training on the engine (see include/vgsim/sim/training/training_run.hpp). One JobRunner owns the
// Simulator, the Fabric and the Communicator; compute phases are timer events (ranks are symmetric and compute does
// not contend with the network), collectives are CollectiveRuns whose flows share the Fabric's links.
#include "vgsim/sim/training/training_run.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "vgsim/sim/collective_run.hpp"
#include "vgsim/sim/fabric.hpp"

namespace vgsim::sim::training {

namespace {

enum Tag : std::uint64_t { kGroupReady = 0, kReplayDone = 1, kIterationStart = 2 };
std::uint64_t tag(Tag kind, std::uint64_t index) { return (static_cast<std::uint64_t>(kind) << 32) | index; }

struct Cached {
  Time duration{0};
  std::vector<std::pair<ResourceId, double>> bytes;  // per resource, carried by one run of the collective
};

class JobRunner : public EventHandler {
 public:
  JobRunner(const TrainingJob& job, TrainingResult& out) : job_(job), out_(out) {
    out_.ranks = job.ranks();
    out_.nodes = job.nodes;
    out_.gpus_per_node = job.gpus_per_node;
    out_.micro_steps = job.settings.grad_accumulation_steps;
    out_.compute = models::compute_iteration(job.model, job.settings, job.gpu, job.compute, static_cast<int>(job.ranks()));
    fabric_ = std::make_unique<Fabric>(*job.cluster, sim_, job.comm.path, job.comm.capacity_scale);
    if (job.ranks() > 1) {
      comm_ = std::make_unique<Communicator>(*job.cluster, job.rank_to_endpoint, job.comm);
      out_.transports = comm_->describe_transports();
    }
    iter_bytes_.assign(sim_.resource_count(), 0.0);
  }

  void run() {
    begin_iteration();
    sim_.run();
    out_.events = sim_.events_processed();
    out_.flows = sim_.flows_completed();
  }

  void on_event(Simulator&, std::uint64_t t) override {
    const auto kind = static_cast<Tag>(t >> 32);
    const auto index = static_cast<int>(t & 0xffffffffu);
    switch (kind) {
      case kGroupReady:
        ready_[index] = true;
        if (job_.serialize_collectives)
          try_issue();
        else
          issue(index);
        break;
      case kReplayDone: collective_done(index); break;
      case kIterationStart: begin_iteration(); break;
    }
  }

 private:
  std::vector<double> carried() const {
    std::vector<double> v(sim_.resource_count());
    for (ResourceId r = 0; r < v.size(); ++r) v[r] = sim_.resource_stats(r).bytes_carried;
    return v;
  }

  void begin_iteration() {
    const models::ComputeResult& cr = out_.compute;
    IterationRecord it;
    it.start = sim_.now();
    const std::int64_t k = out_.micro_steps;
    it.backward_start = it.start + (cr.forward + cr.backward) * (k - 1) + cr.forward;
    it.backward_end = it.backward_start + cr.backward;
    out_.iterations.push_back(it);
    iter_start_bytes_ = carried();
    std::fill(iter_bytes_.begin(), iter_bytes_.end(), 0.0);
    groups_.clear();
    if (comm_) {
      // Horovod ticks are multiples of the cycle time on the job's clock (ready times are absolute here).
      groups_ = models::group_gradients(models::gradient_tensors(cr, it.backward_start), job_.settings,
                                        static_cast<int>(job_.gpus_per_node));
    }
    ready_.assign(groups_.size(), false);
    next_issue_ = 0;
    done_ = 0;
    busy_ = false;
    auto& recs = out_.iterations.back().collectives;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      CollectiveRecord c;
      c.group = static_cast<int>(g);
      c.kind = groups_[g].kind;
      c.bytes = groups_[g].bytes;
      c.total_bytes = groups_[g].total_bytes(static_cast<int>(job_.ranks()));
      c.tensors = groups_[g].tensors;
      c.ready = std::max(groups_[g].earliest_start, it.backward_start);
      recs.push_back(c);
      sim_.schedule(c.ready, this, tag(kGroupReady, g));
    }
    if (groups_.empty()) end_iteration(it.backward_end);
  }

  void try_issue() {
    while (!busy_ && next_issue_ < groups_.size() && ready_[next_issue_]) issue(static_cast<int>(next_issue_++));
  }

  const CallPlan& plan_for(const CollectiveRecord& c) {
    const coll::Op op = c.kind == models::GroupKind::AllGather ? coll::Op::AllGather : coll::Op::AllReduce;
    const auto key = std::make_pair(static_cast<int>(op), c.total_bytes);
    auto it = plans_.find(key);
    if (it == plans_.end()) it = plans_.emplace(key, comm_->plan(op, c.total_bytes)).first;
    return it->second;
  }

  void issue(int g) {
    busy_ = true;
    CollectiveRecord& c = out_.iterations.back().collectives[g];
    c.start = sim_.now();
    const CallPlan& plan = plan_for(c);
    c.algo = coll::to_string(plan.algo);
    c.proto = coll::to_string(plan.proto);
    c.channels = plan.channels;
    const auto key = std::make_pair(static_cast<int>(c.kind), c.total_bytes);
    const bool fast = job_.serialize_collectives && job_.reuse_collective_times;
    if (fast) {
      if (auto hit = cache_.find(key); hit != cache_.end()) {
        c.replayed = true;
        for (const auto& [r, b] : hit->second.bytes) iter_bytes_[r] += b;
        sim_.schedule(c.start + hit->second.duration, this, tag(kReplayDone, static_cast<std::uint64_t>(g)));
        return;
      }
      recording_ = carried();
    }
    runs_.push_back(std::make_unique<CollectiveRun>(*plan.schedule, plan.channel_gpus, plan.costs, *fabric_));
    runs_.back()->start([this, g, key, fast](Time finish) {
      if (fast) {
        Cached entry;
        entry.duration = finish - out_.iterations.back().collectives[g].start;
        for (ResourceId r = 0; r < recording_.size(); ++r) {
          const double d = sim_.resource_stats(r).bytes_carried - recording_[r];
          if (d > 0.0) entry.bytes.emplace_back(r, d);
        }
        cache_.emplace(key, std::move(entry));
      }
      collective_done(g);
    });
  }

  void collective_done(int g) {
    out_.iterations.back().collectives[g].finish = sim_.now();
    busy_ = false;
    ++done_;
    if (done_ == groups_.size()) {
      end_iteration(std::max(sim_.now(), out_.iterations.back().backward_end));
    } else if (job_.serialize_collectives) {
      try_issue();
    }
  }

  void end_iteration(Time optimizer_start) {
    IterationRecord& it = out_.iterations.back();
    it.optimizer_start = optimizer_start;
    it.end = optimizer_start + out_.compute.optimizer;
    // Bytes carried in this iteration: flows completed on the engine since it began, plus replayed collectives.
    // No flow crosses an iteration boundary (the optimizer waits for the last collective).
    for (ResourceId r = 0; r < iter_bytes_.size(); ++r)
      iter_bytes_[r] += sim_.resource_stats(r).bytes_carried - iter_start_bytes_[r];
    last_bytes_ = iter_bytes_;
    if (static_cast<int>(out_.iterations.size()) < job_.iterations)
      sim_.schedule(it.end, this, tag(kIterationStart, 0));
  }

 public:
  const std::vector<double>& last_bytes() const { return last_bytes_; }
  const Simulator& simulator() const { return sim_; }

 private:
  const TrainingJob& job_;
  TrainingResult& out_;
  Simulator sim_;
  std::unique_ptr<Fabric> fabric_;
  std::unique_ptr<Communicator> comm_;
  std::map<std::pair<int, Bytes>, CallPlan> plans_;
  std::map<std::pair<int, Bytes>, Cached> cache_;
  std::vector<std::unique_ptr<CollectiveRun>> runs_;
  std::vector<models::GradientGroup> groups_;
  std::vector<bool> ready_;
  std::size_t next_issue_ = 0, done_ = 0;
  bool busy_ = false;
  std::vector<double> recording_, iter_start_bytes_, iter_bytes_, last_bytes_;
};

}  // namespace

TrainingResult simulate_training(const TrainingJob& job) {
  TrainingResult out;
  JobRunner runner(job, out);
  runner.run();
  const IterationRecord& last = out.iterations.back();
  const models::ComputeResult& cr = out.compute;
  out.iteration_time = last.duration();
  out.compute_time = (cr.forward + cr.backward) * out.micro_steps + cr.optimizer;
  out.exposed_communication = out.iteration_time - out.compute_time;
  for (const auto& c : last.collectives) out.communication_busy += c.duration();
  if (out.communication_busy.ps > 0)
    out.overlap_fraction = std::clamp(1.0 - static_cast<double>(out.exposed_communication.ps) /
                                                static_cast<double>(out.communication_busy.ps), 0.0, 1.0);
  const double iter_s = out.iteration_time.s();
  const double steps = static_cast<double>(out.micro_steps) * out.ranks;
  out.samples_per_s = cr.samples_per_step * steps / iter_s;
  out.work_per_s = cr.work_per_step * steps / iter_s;
  const auto& res = job.cluster->resources();
  const auto& bytes = runner.last_bytes();
  for (ResourceId r = 0; r < bytes.size() && r < res.size(); ++r) {
    if (!(bytes[r] > 0.0)) continue;
    ResourceUse u;
    u.name = res[r].name;
    u.kind = res[r].kind;
    u.capacity_bytes_per_s = runner.simulator().resource_capacity(r).bytes_per_s;
    u.bytes = bytes[r];
    u.utilisation = u.bytes / (u.capacity_bytes_per_s * iter_s);
    out.resources.push_back(u);
  }
  std::sort(out.resources.begin(), out.resources.end(), [](const ResourceUse& a, const ResourceUse& b) {
    return a.utilisation != b.utilisation ? a.utilisation > b.utilisation : a.name < b.name;
  });
  return out;
}

TrainingStudy simulate_study(const TrainingJob& job) {
  TrainingStudy s;
  s.result = simulate_training(job);
  if (job.ranks() == 1) {
    s.single_gpu = s.result;
  } else {
    TrainingJob one = with_ranks(job, 1, 1);
    one.iterations = 1;  // no communication: every iteration is the same
    s.single_gpu = simulate_training(one);
  }
  s.scaling_efficiency = s.result.samples_per_s / (s.result.ranks * s.single_gpu.samples_per_s);
  return s;
}

}  // namespace vgsim::sim::training
