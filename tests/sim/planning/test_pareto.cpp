// Cost-vs-throughput Pareto front on a hand-made set.
#include <catch2/catch.hpp>

#include "vgsim/sim/planning/pareto.hpp"

using vgsim::sim::planning::pareto_front;

TEST_CASE("Pareto front of a hand-made set", "[planning]") {
  //            0     1     2     3     4     5
  // cost:     10    20    20    30    15    40
  // tput:    100   150   120   150   100   300
  // 0 (10,100): nothing cheaper -> front.  4 (15,100): dominated by 0 (cheaper, same tput).
  // 1 (20,150): beats everything cheaper (max 100) -> front.  2 (20,120): dominated by 1 (same cost, more tput).
  // 3 (30,150): dominated by 1 (cheaper, same tput).  5 (40,300): most throughput -> front.
  const auto f = pareto_front({10, 20, 20, 30, 15, 40}, {100, 150, 120, 150, 100, 300});
  CHECK(f == std::vector<bool>{true, true, false, false, false, true});
  // Exact duplicates of a front point are on the front too; empty input gives an empty front.
  CHECK(pareto_front({5, 5}, {7, 7}) == std::vector<bool>{true, true});
  CHECK(pareto_front({}, {}).empty());
  // Without prices (all costs 0) only the highest throughput remains.
  CHECK(pareto_front({0, 0, 0}, {1, 3, 2}) == std::vector<bool>{false, true, false});
}
