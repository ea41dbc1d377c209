// One sweep point: resolve, simulate, reduce to a row (see include/vgsim/sim/planning/point_runner.hpp).
#include "vgsim/sim/planning/point_runner.hpp"

#include <set>
#include <utility>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/llm/llm_job.hpp"
#include "vgsim/sim/llm/llm_run.hpp"
#include "vgsim/sim/planning/fidelity_run.hpp"
#include "vgsim/sim/training/bottleneck.hpp"
#include "vgsim/sim/training/job_parameters.hpp"
#include "vgsim/sim/training/report.hpp"

namespace vgsim::sim::planning {

namespace {

double ms_of(Time t) { return t.us() / 1e3; }

// Hardware used: distinct physical GPUs and hosts of the ranks, and every cabled NIC port of those hosts; then the
// design's cost at the plan's prices (per-point price.* overrides).
void count_hardware_and_cost(const SweepPlan& plan, const PlanPoint& point, const topo::Cluster& cluster,
                             const std::vector<std::uint32_t>& rank_to_endpoint, PointResult& r) {
  const auto& eps = cluster.endpoints();
  std::set<std::uint32_t> gpus, hosts;
  for (std::uint32_t e : rank_to_endpoint) {
    gpus.insert(eps[e].gpu);
    hosts.insert(eps[e].host);
  }
  r.gpus = static_cast<std::uint32_t>(gpus.size());
  r.hosts = static_cast<std::uint32_t>(hosts.size());
  for (std::uint32_t h : hosts) r.nic_ports += cluster.hosts()[h].nic_count;
  if (!plan.prices) return;
  Prices p = *plan.prices;  // per-point overrides: price.gpu, price.host, price.nic_port, price.switch_port
  for (const auto& [k, v] : point.params) {
    if (k.rfind("price.", 0) != 0) continue;
    double* slot = k == "price.gpu"           ? &p.gpu
                   : k == "price.host"        ? &p.host
                   : k == "price.nic_port"    ? &p.nic_port
                   : k == "price.switch_port" ? &p.switch_port
                                              : nullptr;
    if (!slot || !v.is_number() || v.get<double>() < 0)
      throw InputError(plan.file, "point " + std::to_string(point.index) + ": " + k, "bad price", json_snippet(v),
                       "price.gpu, price.host, price.nic_port or price.switch_port with a number >= 0");
    *slot = v.get<double>();
  }
  r.cost = p.gpu * r.gpus + p.host * r.hosts + (p.nic_port + p.switch_port) * r.nic_ports;
  r.cost_per_throughput = r.throughput > 0 ? r.cost / r.throughput : 0;
}

// A data-parallel GPU job (training/) at the plan's fidelity (fidelity_run.hpp).
void run_training_point(const SweepPlan& plan, const PlanPoint& point, const training::JobSpec& spec,
                        const topo::Catalog& catalog, Fidelity fidelity, PointResult& r) {
  const training::TrainingJob job = training::resolve_job(spec, catalog);
  const FidelityStudy run = simulate_at(job, fidelity);
  r.fidelity = to_string(run.used);
  const training::TrainingStudy& st = run.study;
  const training::TrainingResult& res = st.result;
  r.ranks = res.ranks;
  r.throughput = res.work_per_s;
  r.unit = training::throughput_unit(job.model);
  r.efficiency = st.scaling_efficiency;
  r.iteration_ms = ms_of(res.iteration_time);
  r.compute_ms = ms_of(res.compute_time);
  r.exposed_comm_ms = ms_of(res.exposed_communication);
  r.comm_busy_ms = ms_of(res.communication_busy);
  for (std::size_t k = 0; k < res.exposure.size() && k < r.exposed_cause_ms.size(); ++k)
    r.exposed_cause_ms[k] = ms_of(res.exposure[k].time);
  const training::IterationBottleneck b = training::iteration_bottleneck(res);
  r.bottleneck = b.what;
  r.bottleneck_share = b.share;
  r.busiest_link = b.busiest;
  r.busiest_link_utilisation = b.busiest_utilisation_during_comm;
  count_hardware_and_cost(plan, point, *job.cluster, job.rank_to_endpoint, r);
}

}  // namespace

std::pair<std::string, double> llm_bottleneck(const llm::LlmResult& res) {
  // The largest part of the critical stage's iteration (llm_run.hpp's breakdown; the optimizer step is not a
  // candidate: it is compute the plan cannot move). Ties keep the earlier name, so the choice is deterministic.
  const std::pair<const char*, Time> parts[] = {
      {"compute", res.compute},    {"pipeline bubble", res.pipeline_idle}, {"tp communication", res.tp_exposed},
      {"dp sync", res.dp_exposed}, {"zero-3 traffic", res.zero3_exposed},  {"ep communication", res.ep_exposed}};
  std::pair<std::string, double> best{"compute", 0.0};
  Time most{-1};
  for (const auto& [name, t] : parts)
    if (t > most) most = t, best.first = name;
  best.second = res.iteration.ps > 0 ? static_cast<double>(most.ps) / static_cast<double>(res.iteration.ps) : 0.0;
  return best;
}

namespace {

// A large-model job (sim/llm): always the step engine (its collectives run on it); no analytical or folded fidelity.
void run_llm_point(const SweepPlan& plan, const PlanPoint& point, const training::JobSpec& spec,
                   const topo::Catalog& catalog, PointResult& r) {
  const llm::LlmJob job = llm::resolve_llm_job(spec, catalog);
  const llm::LlmResult res = llm::simulate_llm_iteration(job);
  r.fidelity = "step";
  r.ranks = job.ranks();
  r.throughput = res.tokens_per_s;
  r.unit = "tokens/s";
  r.efficiency = 0;  // undefined: the model need not fit one GPU (point_runner.hpp)
  r.iteration_ms = ms_of(res.iteration);
  r.compute_ms = ms_of(res.compute);
  r.exposed_comm_ms = ms_of(res.tp_exposed + res.zero3_exposed + res.ep_exposed + res.pipeline_idle + res.dp_exposed);
  const auto [what, share] = llm_bottleneck(res);
  r.bottleneck = what;
  r.bottleneck_share = share;
  count_hardware_and_cost(plan, point, *job.platform.cluster, job.platform.rank_to_endpoint, r);
}

}  // namespace

PointResult run_point(const SweepPlan& plan, const PlanPoint& point, const topo::Catalog& catalog, Fidelity fidelity) {
  PointResult r;
  r.index = point.index;
  r.id = point.id;
  r.label = point.label;
  try {
    const training::JobSpec spec = to_job_spec(plan, point);
    if (llm::is_llm_workload(spec.workload))
      run_llm_point(plan, point, spec, catalog, r);
    else
      run_training_point(plan, point, spec, catalog, fidelity, r);
  } catch (const InputError& e) {
    r.error = e.what();
    r.fidelity = to_string(fidelity);
  }
  return r;
}

}  // namespace vgsim::sim::planning
