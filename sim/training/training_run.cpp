// Data-parallel training on the engine (see include/vgsim/sim/training/training_run.hpp): runs a job set once per
// Horovod tick phase (a fresh engine each time, one JobRunner per job: job_runner.hpp) and averages the per-phase
// steady states; the helpers the step engine shares with the analytical fidelity; the steady-state summary.
#include "vgsim/sim/training/training_run.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "job_runner.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/training/exposure.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

namespace vgsim::sim::training {

double nccl_compute_share(const TrainingJob& job, std::uint32_t channels) {
  const double sms = static_cast<double>(job.gpu.sm_count) * job.gpu.sm_fraction;  // a MIG slice has its own SMs
  return nccl_sm_share(channels, sms, job.nccl_sm_per_channel);
}

std::vector<models::GradientGroup> job_groups(const TrainingJob& job,
                                              const std::vector<models::GradientTensor>& tensors, Time tick_origin) {
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
    out.overlap_fraction = std::clamp(
        1.0 - static_cast<double>(out.exposed_communication.ps) / static_cast<double>(out.communication_busy.ps), 0.0,
        1.0);
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
    runners.push_back(
        std::make_unique<JobRunner>(jobs[j], out[j], sim, fabric, gpus, shared, tick_phase_offset(jobs[j], k, phases)));
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
