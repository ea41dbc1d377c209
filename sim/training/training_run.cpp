// Data-parallel training on the engine (see include/vgsim/sim/training/training_run.hpp). One JobRunner per job owns
// its Communicator; the Simulator, the Fabric and the vGPU scheduler belong to the run (shared by every job of a
// multi-job run). Compute phases are timer events when no rank is on a time-sliced vGPU (ranks are symmetric and
// compute does not contend with the network); otherwise every rank's compute goes through the VgpuScheduler and a
// gradient group is ready when its tensors are done on every rank. Collectives are CollectiveRuns on the Fabric.
// Horovod runs once per tick phase (a fresh engine each time) and the per-phase steady states are averaged.
#include "vgsim/sim/training/training_run.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "vgsim/sim/collective_run.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/training/exposure.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

namespace vgsim::sim::training {

namespace {

enum Tag : std::uint64_t { kGroupReady = 0, kReplayDone = 1, kIterationStart = 2, kWorkReached = 3 };

// kind (8 bits) | generation (24 bits, kWorkReached only: stale events of an earlier compute rate are ignored) | index.
std::uint64_t tag(Tag kind, std::uint64_t index, std::uint64_t gen = 0) {
  return (static_cast<std::uint64_t>(kind) << 56) | ((gen & 0xffffffu) << 32) | index;
}

struct Cached {
  Time duration{0};
  std::vector<std::pair<ResourceId, double>> bytes;  // per resource, carried by one run of the collective
};

class JobRunner : public EventHandler {
 public:
  JobRunner(const TrainingJob& job, TrainingResult& out, Simulator& sim, Fabric& fabric, virt::VgpuScheduler& gpus,
            bool shared, Time tick_offset)
      : job_(job), out_(out), sim_(sim), fabric_(&fabric), gpus_(gpus), shared_(shared), tick_offset_(tick_offset) {
    out_ = result_header(job);
    for (std::uint32_t e : job.rank_to_endpoint) sliced_ = sliced_ || gpus_.time_sliced(e);
    if (job.ranks() > 1) {
      comm_ = std::make_unique<Communicator>(*job.cluster, job.rank_to_endpoint, job.comm);
      out_.transports = comm_->describe_transports();
    }
    iter_bytes_.assign(sim_.resource_count(), 0.0);
  }

  // Schedules the first iteration; the caller runs the engine.
  void start() {
    for (std::uint32_t e : job_.rank_to_endpoint) gpus_.attach(e);
    if (job_.clock_offset.ps > 0)
      sim_.schedule(job_.clock_offset, this, tag(kIterationStart, 0));
    else
      begin_iteration();
  }
  void finish_stats() {
    out_.events = sim_.events_processed();
    out_.flows = sim_.flows_completed();
  }

  void on_event(Simulator&, std::uint64_t t) override {
    const auto kind = static_cast<Tag>(t >> 56);
    const auto index = static_cast<int>(t & 0xffffffffu);
    switch (kind) {
      case kWorkReached:
        // The backward work up to the group's last gradient is done (at the current compute rate); the framework
        // issues it after its own wait (Horovod cycle tick, DDP bucket order).
        if (((t >> 32) & 0xffffffu) != (gen_ & 0xffffffu) || work_fired_[index]) break;
        work_fired_[index] = true;
        sim_.schedule(sim_.now() + group_wait_[index], this, tag(kGroupReady, static_cast<std::uint64_t>(index)));
        break;
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
      // Horovod ticks are anchored to this iteration: one at tick_offset_ after its last gradient (file comment).
      const auto tensors = models::gradient_tensors(cr, it.backward_start);
      groups_ = job_groups(job_, tensors, tick_origin(tensors, tick_offset_));
    }
    ready_.assign(groups_.size(), false);
    next_issue_ = 0;
    done_ = 0;
    busy_ = false;
    running_share_ = 0.0;
    clock_ = ComputeClock(it.backward_start, cr.backward);
    work_fired_.assign(groups_.size(), false);
    group_work_.clear();
    group_wait_.clear();
    for (const auto& grp : groups_) {
      group_work_.push_back(grp.last_ready - it.backward_start);
      group_wait_.push_back(framework_wait(grp, it.backward_start));
    }
    auto& recs = out_.iterations.back().collectives;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      CollectiveRecord c = group_record(groups_[g], static_cast<int>(g), job_.ranks());
      c.ready = std::max(groups_[g].earliest_start, it.backward_start);
      recs.push_back(c);
    }
    if (!sliced_) schedule_work_events();  // time-sliced: a group is ready when its tensors are done on every rank
    if (sliced_) {
      start_dynamic_compute();
      return;
    }
    if (groups_.empty()) end_iteration(it.backward_end);
  }

  // ---- time-sliced compute: every rank's work goes through the vGPU scheduler ----
  void start_dynamic_compute() {
    const std::size_t layers = out_.compute.layers.size();
    layer_done_ranks_.assign(layers, 0);
    tensor_done_.assign(layers, Time{0});
    ranks_backward_done_ = 0;
    ranks_optimizer_done_ = 0;
    group_fired_.assign(groups_.size(), false);
    // Extra framework wait of each group beyond its last tensor (Horovod cycle tick, DDP order), kept from the plan
    // (group_wait_, set in begin_iteration).
    for (std::uint32_t r = 0; r < job_.ranks(); ++r) run_micro_step(r, 0);
    if (groups_.empty() && layers == 0) all_backward_done();
  }

  void run_micro_step(std::uint32_t r, std::int64_t step) {
    const std::uint32_t e = job_.rank_to_endpoint[r];
    const models::ComputeResult& cr = out_.compute;
    const bool last = step + 1 == out_.micro_steps;
    gpus_.submit(e, cr.forward, [this, r, step, last, e] {
      if (r == 0 && last) out_.iterations.back().backward_start = sim_.now();
      if (!last) {
        gpus_.submit(e, out_.compute.backward, [this, r, step] { run_micro_step(r, step + 1); });
      } else {
        run_backward_layer(r, 0);
      }
    });
  }

  void run_backward_layer(std::uint32_t r, std::size_t i) {
    const auto& layers = out_.compute.layers;
    if (i == layers.size()) {
      if (++ranks_backward_done_ == job_.ranks()) all_backward_done();
      return;
    }
    gpus_.submit(job_.rank_to_endpoint[r], layers[i].backward, [this, r, i] {
      if (++layer_done_ranks_[i] == job_.ranks()) {
        tensor_done_[i] = sim_.now();
        fire_ready_groups();
      }
      run_backward_layer(r, i + 1);
    });
  }

  void fire_ready_groups() {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (group_fired_[g]) continue;
      Time last{0};
      bool all = true;
      for (int t : groups_[g].tensors) {
        all = all && layer_done_ranks_[static_cast<std::size_t>(t)] == job_.ranks();
        if (all) last = std::max(last, tensor_done_[static_cast<std::size_t>(t)]);
      }
      if (!all) continue;
      group_fired_[g] = true;
      const Time ready = last + std::max(Time{0}, group_wait_[g]);
      out_.iterations.back().collectives[g].ready = ready;
      sim_.schedule(ready, this, tag(kGroupReady, g));
    }
  }

  void all_backward_done() {
    out_.iterations.back().backward_end = sim_.now();
    dynamic_backward_done_ = true;
    if (groups_.empty() || done_ == groups_.size()) start_dynamic_optimizer();
  }

  void start_dynamic_optimizer() {
    out_.iterations.back().optimizer_start = sim_.now();
    for (std::uint32_t r = 0; r < job_.ranks(); ++r)
      gpus_.submit(job_.rank_to_endpoint[r], out_.compute.optimizer, [this] {
        if (++ranks_optimizer_done_ == job_.ranks()) finish_dynamic_iteration();
      });
  }

  void finish_dynamic_iteration() {
    dynamic_backward_done_ = false;
    IterationRecord& it = out_.iterations.back();
    end_iteration(it.optimizer_start);
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

  // Schedules "work reached" for every group not yet reached, at the current compute rate (a new generation makes
  // the earlier ones stale).
  void schedule_work_events() {
    ++gen_;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (work_fired_[g]) continue;
      const Time at = std::max(sim_.now(), clock_.time_when(group_work_[g]));
      sim_.schedule(at, this, tag(kWorkReached, g, gen_));
    }
  }

  // NCCL kernels of running collectives take SMs from the backward pass (compute_clock.hpp).
  void change_share(double delta) {
    if (sliced_ || delta == 0.0) return;
    running_share_ = std::max(0.0, running_share_ + delta);
    clock_.set_share(sim_.now(), running_share_);
    schedule_work_events();
  }

  void issue(int g) {
    busy_ = true;
    if (job_.progress)
      job_.progress("iteration " + std::to_string(out_.iterations.size()) + "/" + std::to_string(job_.iterations) +
                    ", collective " + std::to_string(g + 1) + "/" + std::to_string(groups_.size()));
    CollectiveRecord& c = out_.iterations.back().collectives[g];
    c.start = sim_.now();
    const CallPlan& plan = plan_for(c);
    c.algo = coll::to_string(plan.algo);
    c.proto = coll::to_string(plan.proto);
    c.channels = plan.channels;
    change_share(nccl_compute_share(job_, plan.channels));
    const auto key = std::make_pair(static_cast<int>(c.kind), c.total_bytes);
    // Replaying needs an otherwise idle network: not in a multi-job run, where other jobs' flows contend.
    const bool fast = job_.serialize_collectives && job_.reuse_collective_times && !shared_;
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
    change_share(-nccl_compute_share(job_, out_.iterations.back().collectives[g].channels));
    busy_ = false;
    ++done_;
    if (done_ == groups_.size()) {
      if (sliced_) {
        if (dynamic_backward_done_) start_dynamic_optimizer();
        return;
      }
      // Backward ran slower while collectives held SMs: its end is where the compute clock reaches the total.
      IterationRecord& it = out_.iterations.back();
      clock_.set_share(sim_.now(), 0.0);
      const Time bwd_end = clock_.finished() ? clock_.done_at() : clock_.time_when(clock_.total());
      it.nccl_slowdown = bwd_end - it.backward_end;
      it.backward_end = bwd_end;
      end_iteration(std::max(sim_.now(), it.backward_end));
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
    if (sliced_) it.end = sim_.now();  // the optimizer ran through the scheduler and is done now
    if (static_cast<int>(out_.iterations.size()) < job_.iterations)
      sim_.schedule(it.end, this, tag(kIterationStart, 0));
    else
      for (std::uint32_t e : job_.rank_to_endpoint) gpus_.detach(e);  // the job ends: its VMs go idle
  }

 public:
  const std::vector<double>& last_bytes() const { return last_bytes_; }
  const Simulator& simulator() const { return sim_; }

 private:
  const TrainingJob& job_;
  TrainingResult& out_;
  Simulator& sim_;
  Fabric* fabric_;
  virt::VgpuScheduler& gpus_;
  bool shared_ = false;  // other jobs run on the same engine
  Time tick_offset_{0};  // Horovod: the anchored tick's offset after the last gradient of each iteration
  bool sliced_ = false;  // a rank is on a time-sliced vGPU: compute goes through the scheduler
  std::vector<std::uint32_t> layer_done_ranks_;
  std::vector<Time> tensor_done_, group_wait_, group_work_;
  ComputeClock clock_;              // backward progress under NCCL's SM share (not time-sliced runs)
  double running_share_ = 0.0;      // SM share of the collectives running now
  std::uint64_t gen_ = 0;           // generation of the pending kWorkReached events
  std::vector<bool> work_fired_;
  std::vector<bool> group_fired_;
  std::uint32_t ranks_backward_done_ = 0, ranks_optimizer_done_ = 0;
  bool dynamic_backward_done_ = false;
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

double nccl_compute_share(const TrainingJob& job, std::uint32_t channels) {
  const double sms = static_cast<double>(job.gpu.sm_count) * job.gpu.sm_fraction;  // a MIG slice has its own SMs
  return nccl_sm_share(channels, sms, job.nccl_sm_per_channel);
}

std::vector<models::GradientGroup> job_groups(const TrainingJob& job, const std::vector<models::GradientTensor>& tensors,
                                              Time tick_origin) {
  auto groups = models::group_gradients(tensors, job.settings, static_cast<int>(job.gpus_per_node), tick_origin);
  if (!job.framework_waits)
    for (auto& g : groups) g.earliest_start = g.last_ready;
  return groups;
}

bool has_tick_phases(const TrainingJob& job) {
  // Requests queued at dispatch are negotiated before the first gradient exists: no tick decides a start time.
  return job.settings.framework == models::Framework::Horovod && !job.settings.horovod.requests_at_dispatch &&
         job.ranks() > 1;
}

Time tick_phase_offset(const TrainingJob& job, int k, int phases) {
  const std::int64_t n = std::max(1, phases);
  return Time::from_ps((2 * k + 1) * job.settings.horovod.cycle_time.ps / (2 * n));
}

Time tick_origin(const std::vector<models::GradientTensor>& tensors, Time offset) {
  Time last{0};
  for (const auto& t : tensors) last = std::max(last, t.ready);
  return last + offset;
}

namespace {

// Overlap and rates from the steady-state times (shared by the one-run and the phase-averaged summaries).
void fill_rates(TrainingResult& out) {
  const models::ComputeResult& cr = out.compute;
  out.exposed_communication = out.iteration_time - out.compute_time;
  out.overlap_fraction = 0.0;
  if (out.communication_busy.ps > 0)
    out.overlap_fraction = std::clamp(1.0 - static_cast<double>(out.exposed_communication.ps) /
                                                static_cast<double>(out.communication_busy.ps), 0.0, 1.0);
  const double iter_s = out.iteration_time.s();
  const double steps = static_cast<double>(out.micro_steps) * out.ranks;
  out.samples_per_s = cr.samples_per_step * steps / iter_s;
  out.work_per_s = cr.work_per_step * steps / iter_s;
}

void sort_resources(std::vector<ResourceUse>& v) {
  std::sort(v.begin(), v.end(), [](const ResourceUse& a, const ResourceUse& b) {
    return a.utilisation != b.utilisation ? a.utilisation > b.utilisation : a.name < b.name;
  });
}

}  // namespace

TrainingResult average_tick_phases(const std::vector<TrainingResult>& runs, const std::vector<Time>& offsets) {
  TrainingResult out = runs.front();
  const auto n = static_cast<std::int64_t>(runs.size());
  auto mean = [&](Time TrainingResult::*field) {
    std::int64_t sum = 0;
    for (const auto& r : runs) sum += (r.*field).ps;
    return Time::from_ps((sum + n / 2) / n);  // non-negative sums: round half up
  };
  out.iteration_time = mean(&TrainingResult::iteration_time);
  out.nccl_slowdown = mean(&TrainingResult::nccl_slowdown);
  out.communication_busy = mean(&TrainingResult::communication_busy);
  fill_rates(out);
  out.tick_phases.clear();
  out.events = out.flows = 0;
  std::map<std::string, ResourceUse> res;  // by name: deterministic order, phases may differ in what they touch
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const TrainingResult& r = runs[k];
    out.tick_phases.push_back({k < offsets.size() ? offsets[k] : Time{0}, r.iteration_time, r.exposed_communication});
    out.events += r.events;
    out.flows += r.flows;
    for (const auto& u : r.resources) {
      auto [it, fresh] = res.emplace(u.name, u);
      if (!fresh) it->second.bytes += u.bytes;
    }
  }
  out.resources.clear();
  const double iter_s = out.iteration_time.s();
  for (auto& [name, u] : res) {
    u.bytes /= static_cast<double>(n);
    u.utilisation = u.bytes / (u.capacity_bytes_per_s * iter_s);
    out.resources.push_back(u);
  }
  sort_resources(out.resources);
  return out;
}

TrainingResult result_header(const TrainingJob& job) {
  TrainingResult out;
  out.ranks = job.ranks();
  out.nodes = job.nodes;
  out.gpus_per_node = job.gpus_per_node;
  out.micro_steps = job.settings.grad_accumulation_steps;
  out.compute = models::scale_compute(
      models::compute_iteration(job.model, job.settings, job.gpu, job.compute, static_cast<int>(job.ranks())),
      job.compute_efficiency);
  return out;
}

CollectiveRecord group_record(const models::GradientGroup& grp, int g, std::uint32_t ranks) {
  CollectiveRecord c;
  c.group = g;
  c.kind = grp.kind;
  c.bytes = grp.bytes;
  c.total_bytes = grp.total_bytes(static_cast<int>(ranks));
  c.tensors = grp.tensors;
  return c;
}

Time framework_wait(const models::GradientGroup& grp, Time backward_start) {
  return std::max(Time{0}, std::max(grp.earliest_start, backward_start) - grp.last_ready);
}

void summarize_steady_state(const TrainingJob& job, const std::vector<double>& last_bytes, const Simulator& sim,
                            TrainingResult& out) {
  const IterationRecord& last = out.iterations.back();
  const models::ComputeResult& cr = out.compute;
  out.iteration_time = last.duration();
  out.compute_time = (cr.forward + cr.backward) * out.micro_steps + cr.optimizer;
  out.nccl_slowdown = last.nccl_slowdown;
  out.communication_busy = Time{0};
  for (const auto& c : last.collectives) out.communication_busy += c.duration();
  fill_rates(out);
  const double iter_s = out.iteration_time.s();
  out.resources.clear();
  const auto& res = job.cluster->resources();
  for (ResourceId r = 0; r < last_bytes.size() && r < res.size(); ++r) {
    if (!(last_bytes[r] > 0.0)) continue;
    ResourceUse u;
    u.name = res[r].name;
    u.kind = res[r].kind;
    u.capacity_bytes_per_s = sim.resource_capacity(r).bytes_per_s;
    u.bytes = last_bytes[r];
    u.utilisation = u.bytes / (u.capacity_bytes_per_s * iter_s);
    out.resources.push_back(u);
  }
  sort_resources(out.resources);
}

namespace {

// One run of the job set on a fresh engine; Horovod jobs at tick phase k of `phases`.
std::vector<TrainingResult> run_together(const std::vector<TrainingJob>& jobs, int k, int phases) {
  const TrainingJob& first = jobs.front();
  Simulator sim;
  Fabric fabric(*first.cluster, sim, first.comm.path, first.comm.capacity_scale);
  virt::VgpuScheduler gpus(*first.cluster, sim, first.vgpu);
  std::vector<TrainingResult> out(jobs.size());
  std::vector<std::unique_ptr<JobRunner>> runners;
  const bool shared = jobs.size() > 1;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    runners.push_back(std::make_unique<JobRunner>(jobs[j], out[j], sim, fabric, gpus, shared,
                                                  tick_phase_offset(jobs[j], k, phases)));
  for (auto& r : runners) r->start();
  sim.run();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    runners[j]->finish_stats();
    summarize_steady_state(jobs[j], runners[j]->last_bytes(), runners[j]->simulator(), out[j]);
  }
  return out;
}

}  // namespace

std::vector<TrainingResult> simulate_training_together(const std::vector<TrainingJob>& jobs) {
  if (jobs.empty()) return {};
  int phases = 0;  // 0: no job has ticks
  for (const auto& j : jobs)
    if (has_tick_phases(j)) phases = std::max(phases, std::max(1, j.tick_phases));
  if (phases == 0) return run_together(jobs, 0, 1);
  std::vector<std::vector<TrainingResult>> per_job(jobs.size());  // [job][phase]
  for (int k = 0; k < phases; ++k) {
    std::vector<TrainingResult> r = run_together(jobs, k, phases);
    for (std::size_t j = 0; j < jobs.size(); ++j) per_job[j].push_back(std::move(r[j]));
  }
  std::vector<TrainingResult> out;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::vector<Time> offsets;
    for (int k = 0; k < phases; ++k)
      offsets.push_back(has_tick_phases(jobs[j]) ? tick_phase_offset(jobs[j], k, phases) : Time{0});
    out.push_back(average_tick_phases(per_job[j], offsets));
    if (!has_tick_phases(jobs[j])) out.back().tick_phases.clear();  // averaged over the others' phases only
  }
  return out;
}

TrainingResult simulate_training(const TrainingJob& job) { return simulate_training_together({job}).front(); }

TrainingStudy simulate_study(const TrainingJob& job) {
  TrainingStudy s;
  s.result = simulate_training(job);
  s.result.exposure = explain_exposure(job, s.result, simulate_training);
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
