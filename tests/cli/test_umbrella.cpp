// The umbrella header compiles on its own (every public header is self-contained and free of Boost/Eigen types).
#include <catch2/catch.hpp>

#include "vgsim/vgsim.hpp"

TEST_CASE("the umbrella header exposes the public types") {
  // Expectation: a Time of 1.5 us is exactly 1,500,000 ps (units.hpp is reachable through vgsim.hpp).
  CHECK(vgsim::Time::from_us(1.5).ps == 1'500'000);
}
