// parallel_for (include/vgsim/kernel/parallel_for.hpp): every index runs once, workers stay in their range, results
// written by index equal a sequential loop's, and an exception comes back as the lowest failing index's.
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "vgsim/kernel/parallel_for.hpp"

using namespace vgsim;

TEST_CASE("parallel_for runs every index once and results by index equal a sequential loop's") {
  // Expectation: for n = 1,000 and 4 threads, hits[i] == 1 for every i, every worker < parallel_workers(n, 4) = 4,
  // and out[i] = i^2 mod 97 as the sequential loop writes it.
  const std::size_t n = 1000;
  std::vector<std::atomic<int>> hits(n);
  std::vector<int> out(n, -1);
  std::atomic<unsigned> max_worker{0};
  REQUIRE(parallel_workers(n, 4) == 4u);
  parallel_for(n, 4, [&](unsigned w, std::size_t i) {
    ++hits[i];
    out[i] = static_cast<int>(i * i % 97);
    unsigned m = max_worker.load();
    while (w > m && !max_worker.compare_exchange_weak(m, w)) {
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(hits[i] == 1);
    CHECK(out[i] == static_cast<int>(i * i % 97));
  }
  CHECK(max_worker.load() < 4u);
  // Fewer items than threads: one thread per item; none: nothing runs, one worker counted.
  CHECK(parallel_workers(3, 8) == 3u);
  CHECK(parallel_workers(0, 8) == 1u);
  bool ran = false;
  parallel_for(0, 8, [&](unsigned, std::size_t) { ran = true; });
  CHECK_FALSE(ran);
}

TEST_CASE("parallel_for rethrows the exception of the lowest failing index") {
  // Expectation: indices 300 and 700 throw; whichever fails first, 300 was handed out before 700 and runs, so the
  // exception that comes back names 300, what a sequential loop would have thrown, on every one of 20 runs with 4
  // threads.
  for (int run = 0; run < 20; ++run) {
    try {
      parallel_for(1000, 4, [](unsigned, std::size_t i) {
        if (i == 300 || i == 700) throw std::runtime_error("index " + std::to_string(i));
      });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "index 300");
    }
  }
}
