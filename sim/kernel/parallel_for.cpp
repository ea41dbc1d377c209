// Independent work on the machine's cores (see include/vgsim/kernel/parallel_for.hpp).
#include "vgsim/kernel/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace vgsim {

unsigned parallel_workers(std::size_t n, unsigned jobs) {
  if (!jobs) jobs = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n)));
}

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(unsigned worker, std::size_t i)>& body) {
  const unsigned workers = parallel_workers(n, jobs);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex m;
  std::size_t failed_at = n;
  std::exception_ptr error;
  auto run = [&](unsigned w) {
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
