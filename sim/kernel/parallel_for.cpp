// Independent work on the machine's cores (see include/vgsim/kernel/parallel_for.hpp).
#include "vgsim/kernel/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace vgsim {

namespace {
// True on a thread that is running a parallel_for body: a nested call runs inline on it (the outer loop already
// keeps every core busy, and threads inside threads would oversubscribe them).
thread_local bool in_parallel_body = false;
}  // namespace

unsigned parallel_workers(std::size_t n, unsigned jobs) {
  if (!jobs) jobs = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n)));
}

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(unsigned worker, std::size_t i)>& body) {
  const unsigned workers = in_parallel_body ? 1u : parallel_workers(n, jobs);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex m;
  std::size_t failed_at = n;
  std::exception_ptr error;
  auto run = [&](unsigned w) {
    const bool outer = in_parallel_body;
    in_parallel_body = true;
    struct Restore {
      bool value;
      ~Restore() { in_parallel_body = value; }
    } restore{outer};
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        body(w, i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(m);
        if (i < failed_at) failed_at = i, error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(run, w);
  run(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace vgsim
