// Expert-parallel groups and MoE plan names (include/vgsim/sim/llm/moe_groups.hpp).
#include "vgsim/sim/llm/moe_groups.hpp"

#include "vgsim/workloads/models/moe.hpp"

namespace vgsim::sim::llm {

Groups expert_groups(const models::ParallelPlan& p) {
  Groups g;
  for (std::int64_t s = 0; s < p.pp; ++s)
    for (std::int64_t j = 0; j < p.dp / p.ep; ++j)
      for (std::int64_t t = 0; t < p.tp; ++t) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t e = 0; e < p.ep; ++e) ranks.push_back(world_rank_of(p, {t, j * p.ep + e, s}));
        g.push_back(std::move(ranks));
      }
  return g;
}

Groups expert_data_groups(const models::ParallelPlan& p) {
  Groups g;
  for (std::int64_t s = 0; s < p.pp; ++s)
    for (std::int64_t e = 0; e < p.ep; ++e)
      for (std::int64_t t = 0; t < p.tp; ++t) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t j = 0; j < p.dp / p.ep; ++j) ranks.push_back(world_rank_of(p, {t, j * p.ep + e, s}));
        g.push_back(std::move(ranks));
      }
  return g;
}

const std::vector<ParamDecl>& moe_plan_params() {
  static const std::vector<ParamDecl> d = [] {
    ParamDecl ep;
    ep.name = "ep";
    ep.type = ParamType::Integer;
    ep.min = 1;
    ep.max = 4096;
    ep.unit = "GPUs";
    ep.help =
        "expert-parallel group size (Megatron-Core --expert-model-parallel-size): the experts of a layer split over "
        "ep data-parallel ranks, tokens exchanged by all-to-all; divides the experts and dp";
    ep.source = "default: 1";
    return std::vector<ParamDecl>{ep, models::moe_capacity_factor_decl()};
  }();
  return d;
}

}  // namespace vgsim::sim::llm
