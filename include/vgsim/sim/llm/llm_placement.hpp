// Where a parallelism plan's ranks go and which ranks talk to which (Megatron-LM's initialize_model_parallel, 2021
// layout, recalled: grade B): world rank r = pp_rank x (tp x dp) + dp_rank x tp + tp_rank, and world ranks fill the
// cluster's OS instances node-major (place_ranks). So a tensor-parallel group is tp consecutive ranks (inside one
// node, on its NVLink / NVSwitch or NVLink bridge, when tp divides the GPUs per node), a data-parallel group strides
// by tp inside one pipeline stage, and a stage's ranks are followed by the next stage's (pipeline neighbours on other
// nodes when a stage fills whole nodes). Pure index arithmetic over the endpoint list.
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/workloads/models/parallel_plan.hpp"

namespace vgsim::sim::llm {

struct RankCoord {
  std::int64_t tp = 0, dp = 0, pp = 0;
};
RankCoord coord_of(const models::ParallelPlan& p, std::int64_t world_rank);
std::int64_t world_rank_of(const models::ParallelPlan& p, const RankCoord& c);

// Groups of world ranks, each in its own rank order.
using Groups = std::vector<std::vector<std::int64_t>>;
Groups tensor_groups(const models::ParallelPlan& p);  // dp x pp groups of tp ranks
Groups data_groups(const models::ParallelPlan& p);    // tp x pp groups of dp ranks
// Pipeline neighbours across the boundary from stage k to (k + 1) mod pp (the wrap from the last stage to the first
// carries the interleaved schedule's chunk boundaries): tp x dp pairs {rank in k, same (tp, dp) in the next stage}.
Groups stage_pairs(const models::ParallelPlan& p, std::int64_t k);

// The groups of `all` that share an OS instance with group 0 (group 0 first, then in order): the instances of one
// pattern that run at the same time on the same nodes and so contend for their links (Megatron's groups of one kind
// run in lockstep: every replica reaches the same layer together). `node_of[r]` is world rank r's OS instance.
Groups contending_with_first(const Groups& all, const std::vector<std::uint32_t>& node_of);

}  // namespace vgsim::sim::llm
