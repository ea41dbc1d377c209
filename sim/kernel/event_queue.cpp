// Binary min-heap on (time, sequence); see include/vgsim/kernel/event_queue.hpp.
#include "vgsim/kernel/event_queue.hpp"

#include <algorithm>

namespace vgsim {

namespace {
// std heap functions build a max-heap; "later" first means the earliest event sits on top.
struct Later {
  bool operator()(const Event& x, const Event& y) const {
    return x.at.ps != y.at.ps ? x.at.ps > y.at.ps : x.seq > y.seq;
  }
};
}  // namespace

void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  heap_.push_back(Event{at, seq_++, kind, a, b});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

Event EventQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

}  // namespace vgsim
