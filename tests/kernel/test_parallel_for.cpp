// parallel_for (include/vgsim/kernel/parallel_for.hpp): every index runs once, workers stay in their range, results
// written by index equal a sequential loop's, and an exception comes back as the lowest failing index's.
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <thread>
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

TEST_CASE("a parallel_for inside a body runs inline on that thread, in index order") {
  // Expectation: 8 outer items on 4 threads, each running an inner parallel_for of 16 items with 4 threads asked for:
  // every inner body runs on the outer body's thread with worker 0, its indices in order 0..15 (a sequential loop),
  // (the flag that makes it inline is per thread and is cleared when the outer body returns).
  std::vector<int> ok(8, 0);
  parallel_for(8, 4, [&](unsigned, std::size_t i) {
    const auto outer = std::this_thread::get_id();
    std::vector<std::size_t> seen;
    bool same_thread = true, worker_zero = true;
    parallel_for(16, 4, [&](unsigned w, std::size_t j) {
      same_thread = same_thread && std::this_thread::get_id() == outer;
      worker_zero = worker_zero && w == 0;
      seen.push_back(j);
    });
    bool ordered = seen.size() == 16;
    for (std::size_t j = 0; ordered && j < seen.size(); ++j) ordered = seen[j] == j;
    ok[i] = same_thread && worker_zero && ordered;
  });
  for (int x : ok) CHECK(x == 1);
}
