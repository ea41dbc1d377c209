// One sweep point: resolve, simulate, reduce to a row (see include/vgsim/sim/planning/point_runner.hpp).
#include "vgsim/sim/planning/point_runner.hpp"

#include <set>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/analytical.hpp"
#include "vgsim/sim/training/bottleneck.hpp"
#include "vgsim/sim/training/report.hpp"

namespace vgsim::sim::planning {

PointResult run_point(const SweepPlan& plan, const PlanPoint& point, const topo::Catalog& catalog, Fidelity fidelity) {
  PointResult r;
  r.index = point.index;
  r.id = point.id;
  r.label = point.label;
  try {
    const training::TrainingJob job = training::resolve_job(to_job_spec(plan, point), catalog);
    const bool analytical = fidelity == Fidelity::Analytical && analytical_supported(job);
    r.fidelity = analytical ? "analytical" : "step";
    const training::TrainingStudy st = analytical ? simulate_study_analytical(job) : training::simulate_study(job);
    const training::TrainingResult& res = st.result;
    r.ranks = res.ranks;
    r.throughput = res.work_per_s;
    r.unit = training::throughput_unit(job.model);
    r.efficiency = st.scaling_efficiency;
    r.iteration_ms = res.iteration_time.us() / 1e3;
    r.compute_ms = res.compute_time.us() / 1e3;
    r.exposed_comm_ms = res.exposed_communication.us() / 1e3;
    r.comm_busy_ms = res.communication_busy.us() / 1e3;
    for (std::size_t k = 0; k < res.exposure.size() && k < r.exposed_cause_ms.size(); ++k)
      r.exposed_cause_ms[k] = res.exposure[k].time.us() / 1e3;
    const training::IterationBottleneck b = training::iteration_bottleneck(res);
    r.bottleneck = b.what;
    r.bottleneck_share = b.share;
    r.busiest_link = b.busiest;
    r.busiest_link_utilisation = b.busiest_utilisation_during_comm;
    // Hardware used: distinct physical GPUs and hosts of the ranks, and every cabled NIC port of those hosts.
    const auto& eps = job.cluster->endpoints();
    std::set<std::uint32_t> gpus, hosts;
    for (std::uint32_t e : job.rank_to_endpoint) {
      gpus.insert(eps[e].gpu);
      hosts.insert(eps[e].host);
    }
    r.gpus = static_cast<std::uint32_t>(gpus.size());
    r.hosts = static_cast<std::uint32_t>(hosts.size());
    for (std::uint32_t h : hosts) r.nic_ports += job.cluster->hosts()[h].nic_count;
    if (plan.prices) {
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
  } catch (const InputError& e) {
    r.error = e.what();
    r.fidelity = to_string(fidelity);
  }
  return r;
}

}  // namespace vgsim::sim::planning
