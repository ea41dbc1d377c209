// One way to run independent pieces of work on the machine's cores: body(worker, i) for every i in [0, n) on up to
// `jobs` threads (0: the hardware threads), the calling thread among them. Used by the sweep (points) and the
// calibration fit (replays of measured records). Hand-written on std::thread (a counter handed out under an atomic)
// because the work items are few and long (whole simulations), so a task scheduler would add a dependency and nothing
// else. Invariant: each index runs exactly once, on any thread; `worker` (< parallel_workers(n, jobs)) names the
// thread, so a caller can keep per-thread state; results must be written by index, which keeps them independent of
// the schedule. An exception from body stops handing out indices and is rethrown after every thread has stopped: the
// one of the lowest failing index, which is what a sequential loop would have thrown (every lower index was handed
// out before it and ran). A parallel_for called from inside a body runs inline on that thread (body(0, i) in index
// order), so nested parallel work never multiplies the threads.
#pragma once

#include <cstddef>
#include <functional>

namespace vgsim {

// Threads parallel_for uses for n items: min(n, jobs or the hardware threads), at least 1.
unsigned parallel_workers(std::size_t n, unsigned jobs);
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(unsigned worker, std::size_t i)>& body);

}  // namespace vgsim
