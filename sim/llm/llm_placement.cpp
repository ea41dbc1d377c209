// Megatron-LM's rank layout and the groups it implies (include/vgsim/sim/llm/llm_placement.hpp).
#include "vgsim/sim/llm/llm_placement.hpp"

#include <set>

namespace vgsim::sim::llm {

RankCoord coord_of(const models::ParallelPlan& p, std::int64_t r) {
  RankCoord c;
  c.tp = r % p.tp;
  c.dp = (r / p.tp) % p.dp;
  c.pp = r / (p.tp * p.dp);
  return c;
}

std::int64_t world_rank_of(const models::ParallelPlan& p, const RankCoord& c) {
  return c.pp * (p.tp * p.dp) + c.dp * p.tp + c.tp;
}

Groups tensor_groups(const models::ParallelPlan& p) {
  Groups g;
  for (std::int64_t s = 0; s < p.pp; ++s)
    for (std::int64_t d = 0; d < p.dp; ++d) {
      std::vector<std::int64_t> ranks;
      for (std::int64_t t = 0; t < p.tp; ++t) ranks.push_back(world_rank_of(p, {t, d, s}));
      g.push_back(std::move(ranks));
    }
  return g;
}

Groups data_groups(const models::ParallelPlan& p) {
  Groups g;
  for (std::int64_t s = 0; s < p.pp; ++s)
    for (std::int64_t t = 0; t < p.tp; ++t) {
      std::vector<std::int64_t> ranks;
      for (std::int64_t d = 0; d < p.dp; ++d) ranks.push_back(world_rank_of(p, {t, d, s}));
      g.push_back(std::move(ranks));
    }
  return g;
}

Groups stage_pairs(const models::ParallelPlan& p, std::int64_t k) {
  Groups g;
  for (std::int64_t d = 0; d < p.dp; ++d)
    for (std::int64_t t = 0; t < p.tp; ++t)
      g.push_back({world_rank_of(p, {t, d, k}), world_rank_of(p, {t, d, (k + 1) % p.pp})});
  return g;
}

Groups contending_with_first(const Groups& all, const std::vector<std::uint32_t>& node_of) {
  Groups out;
  if (all.empty()) return out;
  std::set<std::uint32_t> nodes;
  for (std::int64_t r : all.front()) nodes.insert(node_of[static_cast<std::size_t>(r)]);
  for (const auto& g : all) {
    bool shares = false;
    for (std::int64_t r : g) shares = shares || nodes.count(node_of[static_cast<std::size_t>(r)]) != 0;
    if (shares) out.push_back(g);
  }
  return out;
}

}  // namespace vgsim::sim::llm
