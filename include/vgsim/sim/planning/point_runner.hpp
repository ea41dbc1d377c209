// Runs one design point of a sweep: plan point -> JobSpec -> resolve_job -> simulate_study (step engine) or
// simulate_study_analytical, and reduces the study to one result row: throughput, scaling efficiency, iteration /
// compute / exposed-communication times, the bottleneck resource (highest utilisation), the hardware counted for
// the cost and the cost per unit of throughput. A point whose job is invalid (e.g. more nodes than the cluster has)
// gives a row with `error` set instead of throwing. Thread-safe: points share only the const catalog.
// A point whose workload is a Transformer shape (sim::llm::is_llm_workload, e.g. llama2-7b) runs as a large-model job
// (resolve_llm_job + simulate_llm_iteration, always on the step engine) with the plan keys tp, pp, dp, zero_stage,
// ..., llm.* (sim::llm::llm_workload_params); a plan that does not divide the shape or does not fit the ranks' memory
// is the row's `error`. Its row: throughput in tokens/s; compute_ms = the critical stage's compute; exposed_comm_ms =
// exposed TP communication + ZeRO-3 traffic + pipeline idle (bubble and p2p waits) + DP gradient sync (the
// optimizer step is the rest of iteration_ms); bottleneck = the largest of compute / "pipeline bubble" / "tp
// communication" / "dp sync" / "zero-3 traffic" with its share; efficiency 0 (scaling against one GPU is undefined
// when the model need not fit one GPU); comm_busy_ms, the exposure causes and the busiest link are not reported (0,
// "").
#pragma once

#include <array>
#include <string>
#include <utility>

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/training/exposure.hpp"
#include "vgsim/topologies/catalog.hpp"

namespace vgsim::sim::llm {
struct LlmResult;
}

namespace vgsim::sim::planning {

struct PointResult {
  std::size_t index = 0;
  std::string id, label;
  std::string error;     // "" when the point ran
  std::string fidelity;  // the fidelity actually used (analytical falls back to step for vGPU slicing)
  std::uint32_t ranks = 0;
  double throughput = 0;  // samples/s or tokens/s, all ranks
  std::string unit;       // "img/s" or "tokens/s"
  double efficiency = 0;  // throughput / (ranks x 1-GPU throughput); 0 for large-model (LLM) points
  double iteration_ms = 0, compute_ms = 0, exposed_comm_ms = 0, comm_busy_ms = 0;
  // exposed_comm_ms by cause, in training::kExposureCauses order (sums to exposed_comm_ms)
  std::array<double, training::kExposureCauses.size()> exposed_cause_ms{};
  // What limits the iteration (training/bottleneck.hpp): "compute" or an exposure cause, with its share of the
  // iteration; and the busiest resource with its utilisation while the NCCL stream was busy ("" for one GPU).
  std::string bottleneck;
  double bottleneck_share = 0;
  std::string busiest_link;
  double busiest_link_utilisation = 0;
  std::uint32_t gpus = 0, hosts = 0, nic_ports = 0;  // hardware the design uses (cost basis)
  double cost = 0;                                   // 0 when the plan has no prices
  double cost_per_throughput = 0;                    // cost / throughput
};

// What limits a large-model iteration: the largest of compute, "pipeline bubble", "tp communication", "dp sync" and
// "zero-3 traffic" (the first on ties) and its share of the iteration.
std::pair<std::string, double> llm_bottleneck(const llm::LlmResult& r);

PointResult run_point(const SweepPlan& plan, const PlanPoint& point, const topo::Catalog& catalog, Fidelity fidelity);

}  // namespace vgsim::sim::planning
