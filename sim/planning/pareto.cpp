// Cost-vs-throughput Pareto front (see include/vgsim/sim/planning/pareto.hpp): sort by cost ascending, then
// throughput descending; a point is on the front when its throughput beats every cheaper point's (equal cost and
// throughput as the best so far also counts: a duplicate of a front point).
#include "vgsim/sim/planning/pareto.hpp"

#include <algorithm>
#include <numeric>

namespace vgsim::sim::planning {

std::vector<bool> pareto_front(const std::vector<double>& cost, const std::vector<double>& tput) {
  const std::size_t n = cost.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (cost[a] != cost[b]) return cost[a] < cost[b];
    if (tput[a] != tput[b]) return tput[a] > tput[b];
    return a < b;
  });
  std::vector<bool> front(n, false);
  bool any = false;
  double best = 0, best_cost = 0;
  for (std::size_t i : order) {
    if (!any || tput[i] > best || (tput[i] == best && cost[i] == best_cost)) {
      front[i] = true;
      if (!any || tput[i] > best) best_cost = cost[i];
      best = any ? std::max(best, tput[i]) : tput[i];
      any = true;
    }
  }
  return front;
}

}  // namespace vgsim::sim::planning
