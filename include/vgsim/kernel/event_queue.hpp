// The discrete-event queue: a binary min-heap ordered by (time, insertion sequence), so events at the same time
// run in the order they were scheduled and every run is deterministic. Events are small plain records (a kind and
// two integer payloads) rather than closures, to keep millions of them cheap. No global state.
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"

namespace vgsim {

struct Event {
  Time at;
  std::uint64_t seq;    // insertion order, breaks ties deterministically
  std::uint32_t kind;   // interpreted by the owner of the queue
  std::uint32_t a;      // payload (e.g. a flow slot)
  std::uint64_t b;      // payload (e.g. a version or tag)
};

class EventQueue {
 public:
  void push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b);
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop();
  std::uint64_t pushed() const { return seq_; }

 private:
  std::vector<Event> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace vgsim
