// Which design choice moves throughput most: pairs of finished points that differ in one or two design keys
// (summary_groups.hpp: hardware, network, virtualization, NCCL, framework communication tuning, a large model's
// parallelism layout) and agree on everything else (same throughput unit, same workload keys: workload, batch,
// precision, framework, ...; same scale: nodes / gpus_per_node, kept as context; prices and labels ignored) are
// compared, and per choice the largest throughput ratio is kept. A workload key is never an effect's key, so an
// effect never compares two workloads. Grouping is by the points'
// parameters without the one or two keys, so the cost is O(points x keys^2), not O(points^2). Parameters whose plan
// value is a template ("r750xa-{var.vm}{nodes}x-...") follow from the others and are never a choice.
#pragma once

#include <string>
#include <vector>

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/planning/point_runner.hpp"

namespace vgsim::sim::planning {

struct DesignEffect {
  std::vector<std::string> keys;      // the parameters that differ (one or two)
  std::size_t better = 0, worse = 0;  // point indices: higher and lower throughput
  double gain = 0;                    // throughput(better) / throughput(worse) - 1
};

// Effects sorted by gain (largest first; ties by keys), one per distinct choice (set of keys), over all points.
std::vector<DesignEffect> design_effects(const SweepPlan& plan, const std::vector<PlanPoint>& points,
                                         const std::vector<PointResult>& results);
// The same over the points `among` only (a summary group, summary_groups.hpp).
std::vector<DesignEffect> design_effects(const SweepPlan& plan, const std::vector<PlanPoint>& points,
                                         const std::vector<PointResult>& results,
                                         const std::vector<std::size_t>& among);

// One sentence for an effect: "bm-rdma-gdr-100gbe instead of bm-rdma-gdr-25gbe (var.nic = 100gbe instead of 25gbe)
// raises throughput 5.6 % at gpus_per_node=1, nodes=4".
std::string describe_effect(const DesignEffect& e, const std::vector<PlanPoint>& points);

}  // namespace vgsim::sim::planning
