// Megatron-LM's rank layout (tp fastest, then dp, then pp) and the groups it implies; which groups of a pattern
// share nodes (and so are simulated together).
#include <catch2/catch.hpp>

#include "vgsim/sim/llm/llm_placement.hpp"

using namespace vgsim;
using namespace vgsim::sim::llm;

namespace {
models::ParallelPlan plan(std::int64_t tp, std::int64_t pp, std::int64_t dp) {
  models::ParallelPlan p;
  p.tp = tp, p.pp = pp, p.dp = dp;
  return p;
}
}  // namespace

TEST_CASE("world ranks follow Megatron-LM's tp-dp-pp order") {
  const auto p = plan(8, 4, 3);  // 96 ranks
  for (std::int64_t r = 0; r < p.gpus(); ++r) CHECK(world_rank_of(p, coord_of(p, r)) == r);
  // r = pp x (tp x dp) + dp x tp + tp: rank 8 x 3 x 2 + 8 x 1 + 5 = 61 is (tp 5, dp 1, pp 2).
  const RankCoord c = coord_of(p, 61);
  CHECK(c.tp == 5);
  CHECK(c.dp == 1);
  CHECK(c.pp == 2);
}

TEST_CASE("groups: tensor groups are consecutive, data groups stride tp, pipeline pairs stride tp x dp") {
  const auto p = plan(2, 2, 4);  // 16 ranks
  const Groups tg = tensor_groups(p);
  REQUIRE(tg.size() == 8);  // dp x pp groups of tp
  CHECK(tg[0] == std::vector<std::int64_t>{0, 1});
  CHECK(tg[5] == std::vector<std::int64_t>{10, 11});
  const Groups dg = data_groups(p);
  REQUIRE(dg.size() == 4);  // tp x pp groups of dp
  CHECK(dg[0] == std::vector<std::int64_t>{0, 2, 4, 6});
  CHECK(dg[1] == std::vector<std::int64_t>{1, 3, 5, 7});
  CHECK(dg[2] == std::vector<std::int64_t>{8, 10, 12, 14});
  const Groups sp = stage_pairs(p, 0);
  REQUIRE(sp.size() == 8);  // tp x dp pairs
  CHECK(sp[0] == std::vector<std::int64_t>{0, 8});
  CHECK(sp[7] == std::vector<std::int64_t>{7, 15});
  // The interleaved schedule's wrap from the last stage to the first.
  CHECK(stage_pairs(p, 1)[0] == std::vector<std::int64_t>{8, 0});
}

TEST_CASE("the groups of a pattern that share nodes with the first are simulated together") {
  // tp 8, dp 2, pp 2 on 4 nodes of 8 GPUs: node = rank / 8. Data groups of stage 0 ({t, 8 + t}) all span nodes 0 and
  // 1 (8 groups); stage 1's span nodes 2 and 3 and do not contend with them.
  const auto p = plan(8, 2, 2);
  std::vector<std::uint32_t> node_of(32);
  for (std::uint32_t r = 0; r < 32; ++r) node_of[r] = r / 8;
  const Groups dg = data_groups(p);
  REQUIRE(dg.size() == 16);
  const Groups together = contending_with_first(dg, node_of);
  CHECK(together.size() == 8);
  for (const auto& g : together) CHECK(g.front() < 8);
  // Tensor groups: one per node, each alone on its node.
  CHECK(contending_with_first(tensor_groups(p), node_of).size() == 1);
}
