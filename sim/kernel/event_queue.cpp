// Event queue: FIFO lanes beside a 4-ary min-heap on (time, sequence); see include/vgsim/kernel/event_queue.hpp.
// The heap sifts with a hole instead of swaps; a 4-ary heap halves the depth of a binary one and keeps the children
// of a node in one or two cache lines. (time, sequence) is compared as one 128-bit key, and the smallest of four
// children is picked with conditional moves: in a symmetric collective thousands of events share a time, which makes
// branchy comparisons unpredictable. Lanes take every push that keeps them sorted (best fit: the lane whose last
// key is the largest one not above the new key), so they hold sorted runs and never need reordering.
#include "vgsim/kernel/event_queue.hpp"

namespace vgsim {

namespace {
inline EventQueue::Key key(const Event& e) { return EventQueue::key_of(e.at, e.seq); }
constexpr std::size_t kArity = 4;
}  // namespace

void EventQueue::Lane::grow() {  // unroll the ring into a buffer twice the size
  std::vector<Event> bigger(buf.empty() ? 64 : buf.size() * 2);
  for (std::size_t i = 0; i < count; ++i) bigger[i] = buf[(head + i) & (buf.size() - 1)];
  buf.swap(bigger);
  head = 0;
  mask = buf.size() - 1;
}

void EventQueue::heap_push(const Event& e, Key k) {
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!(k < key(heap_[parent]))) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
  if (i == 0) front_key_[kHeap] = k;
}

void EventQueue::heap_pop_front() {
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) {
    front_key_[kHeap] = kNoKey;
    return;
  }
  const Key lk = key(last);
  const Event* h = heap_.data();
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    Key bk = key(h[first]);
    if (first + kArity <= n) {  // all four children present: branch-free selection
      for (std::size_t c = first + 1; c < first + kArity; ++c) {
        const Key ck = key(h[c]);
        const bool lt = ck < bk;
        best = lt ? c : best;
        bk = lt ? ck : bk;
      }
    } else {
      for (std::size_t c = first + 1; c < n; ++c) {
        const Key ck = key(h[c]);
        if (ck < bk) best = c, bk = ck;
      }
    }
    if (!(bk < lk)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  front_key_[kHeap] = key(heap_.front());
}

}  // namespace vgsim
