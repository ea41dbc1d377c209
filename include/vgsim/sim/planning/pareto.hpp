// The cost-vs-throughput Pareto front: a design is on the front when no other design costs no more and delivers
// at least as much throughput with one of the two strictly better. Exact duplicates are all on the front. O(n log n).
#pragma once

#include <vector>

namespace vgsim::sim::planning {

// on_front[i] for the points (cost[i], throughput[i]); the vectors have the same length.
std::vector<bool> pareto_front(const std::vector<double>& cost, const std::vector<double>& throughput);

}  // namespace vgsim::sim::planning
