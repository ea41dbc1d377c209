// Runs one design point of a sweep: plan point -> JobSpec -> resolve_job -> simulate_study (step engine) or
// simulate_study_analytical, and reduces the study to one result row: throughput, scaling efficiency, iteration /
// compute / exposed-communication times, the bottleneck resource (highest utilisation), the hardware counted for
// the cost and the cost per unit of throughput. A point whose job is invalid (e.g. more nodes than the cluster has)
// gives a row with `error` set instead of throwing. Thread-safe: points share only the const catalog.
#pragma once

#include <array>
#include <string>

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/topologies/catalog.hpp"

namespace vgsim::sim::planning {

struct PointResult {
  std::size_t index = 0;
  std::string id, label;
  std::string error;     // "" when the point ran
  std::string fidelity;  // the fidelity actually used (analytical falls back to step for vGPU slicing)
  std::uint32_t ranks = 0;
  double throughput = 0;  // samples/s or tokens/s, all ranks
  std::string unit;       // "img/s" or "tokens/s"
  double efficiency = 0;  // throughput / (ranks x 1-GPU throughput)
  double iteration_ms = 0, compute_ms = 0, exposed_comm_ms = 0, comm_busy_ms = 0;
  // exposed_comm_ms by cause, in training::kExposureCauses order (sums to exposed_comm_ms)
  std::array<double, 5> exposed_cause_ms{};
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

PointResult run_point(const SweepPlan& plan, const PlanPoint& point, const topo::Catalog& catalog, Fidelity fidelity);

}  // namespace vgsim::sim::planning
