// Which design choice moves throughput most: pairs of finished points that differ in one or two design parameters
// (everything else equal, prices and the scale parameters nodes / gpus_per_node excluded from the choices but kept
// as context) are compared, and per choice the largest throughput ratio is kept. Grouping is by the points'
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

// Effects sorted by gain (largest first; ties by keys), one per distinct choice (set of keys).
std::vector<DesignEffect> design_effects(const SweepPlan& plan, const std::vector<PlanPoint>& points,
                                         const std::vector<PointResult>& results);

// One sentence for an effect: "bm-rdma-gdr-100gbe instead of bm-rdma-gdr-25gbe (var.nic = 100gbe instead of 25gbe)
// raises throughput 5.6 % at gpus_per_node=1, nodes=4".
std::string describe_effect(const DesignEffect& e, const std::vector<PlanPoint>& points);

}  // namespace vgsim::sim::planning
