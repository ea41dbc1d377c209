// Unit-string parsing and formatting.
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/units.hpp"

using namespace vgsim;

TEST_CASE("time strings parse to exact picoseconds") {
  CHECK(parse_time("1.5us").ps == 1'500'000);
  CHECK(parse_time("800 ns").ps == 800'000);
  CHECK(parse_time("2ms").ps == 2'000'000'000);
  CHECK(parse_time("120ps").ps == 120);
  CHECK_THROWS_AS(parse_time("1.5"), UnitError);
  CHECK_THROWS_AS(parse_time("1.5 parsecs"), UnitError);
  CHECK_THROWS_AS(parse_time("-1us"), UnitError);
}

TEST_CASE("byte strings use binary prefixes for KiB/K and decimal for KB") {
  CHECK(parse_bytes("64MiB") == 64 * MiB);
  CHECK(parse_bytes("1G") == GiB);  // nccl-tests -e 1G
  CHECK(parse_bytes("4KB") == 4000);
  CHECK(parse_bytes("512") == 512);
  CHECK_THROWS_AS(parse_bytes("12 parrots"), UnitError);
}

TEST_CASE("bandwidth strings distinguish bits and bytes") {
  // 100 Gb/s = 12.5e9 B/s
  CHECK(parse_bandwidth("100Gbps").bytes_per_s == Approx(12.5e9));
  CHECK(parse_bandwidth("100 Gb/s").bytes_per_s == Approx(12.5e9));
  CHECK(parse_bandwidth("25GB/s").bytes_per_s == Approx(25e9));
  CHECK(parse_bandwidth("12.5 GBps").bytes_per_s == Approx(12.5e9));
  CHECK_THROWS_AS(parse_bandwidth("100"), UnitError);
  CHECK_THROWS_AS(parse_bandwidth("0Gbps"), UnitError);
}

TEST_CASE("transfer_time rounds up to the next picosecond") {
  // 1 byte at 3 B/s = 333333333333.33 ps -> 333333333334 ps
  CHECK(transfer_time(1.0, Bandwidth{3.0}).ps == 333333333334LL);
  // 1 GB at 1 GB/s = exactly 1 s
  CHECK(transfer_time(1e9, Bandwidth::from_GBps(1.0)).ps == 1'000'000'000'000LL);
  CHECK(transfer_time(0.0, Bandwidth{1.0}).ps == 0);
}

TEST_CASE("did_you_mean suggests close keys only") {
  CHECK(did_you_mean("bandwith", {"bandwidth", "latency"}) == "bandwidth");
  CHECK(did_you_mean("zzzzzz", {"bandwidth", "latency"}).empty());
}
