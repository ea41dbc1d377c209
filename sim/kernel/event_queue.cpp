// Event queue as a 4-ary min-heap on (time, sequence), sifting with a hole instead of swaps; see
// include/vgsim/kernel/event_queue.hpp. A 4-ary heap halves the depth of a binary one and keeps the children of a
// node in one or two cache lines, which is what dominates the cost of pop() when millions of events go through.
#include "vgsim/kernel/event_queue.hpp"

namespace vgsim {

namespace {
inline bool earlier(const Event& x, const Event& y) {
  return x.at.ps != y.at.ps ? x.at.ps < y.at.ps : x.seq < y.seq;
}
constexpr std::size_t kArity = 4;
}  // namespace

void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  const Event e{at, seq_++, kind, a, b};
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n > 0) {
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (earlier(heap_[c], heap_[best])) best = c;
      if (!earlier(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
  }
  return top;
}

}  // namespace vgsim
