// What CollectiveRun asks of an executor that generates a collective's steps as it runs instead of reading a stored
// step DAG (sim/ring_run: rings; sim/tree_run: the tree allreduce; sim/nvls_tree_run: the NVLS Tree allreduce).
// Private to sim/. The three share their event handling through cursor_run.hpp.
// Invariant of every implementation (each tested against the materialized DAG run by CollectiveRun): the same flows
// start and finish in the same order at the same picosecond, because a step launches at the event that resolves its
// last dependency and the dependents one event resolves launch in ascending transfer index, as the DAG executor
// releases them.
#pragma once

#include <cstdint>
#include <functional>

#include "vgsim/kernel/simulator.hpp"

namespace vgsim::sim {

class StreamedRun : public FlowObserver, public EventHandler {
 public:
  virtual std::uint64_t transfers() const = 0;
  // Schedules the first steps at `at` (the caller has added the base latency); `on_done` runs at the last delivery.
  virtual void start_at(Time at, std::function<void(Time)> on_done) = 0;
};

}  // namespace vgsim::sim
