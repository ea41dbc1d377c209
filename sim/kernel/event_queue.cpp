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
}

inline void EventQueue::Lane::push_back(const Event& e) {
  if (count == buf.size()) grow();
  buf[(head + count) & (buf.size() - 1)] = e;
  ++count;
}

void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  const Event e{at, seq_++, kind, a, b};
  const Key k = key_of(at, e.seq);
  // Best-fit lane: the lane with the largest last key <= k. An empty lane's last key is 0, so it is taken (the first
  // one) only when no occupied lane fits; with no lane at all, the heap.
  std::size_t best = kHeap;
  Key best_key = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    const Key lk = lanes_[l].back_key;
    if (lk <= k && (best == kHeap || lk > best_key)) best = l, best_key = lk;
  }
  // The new event is the minimum only if it is below the current one (a new key always has the largest sequence);
  // an empty queue's fronts are all kNoKey.
  const bool new_min = k < front_key_[min_src_];
  if (best != kHeap) {
    Lane& lane = lanes_[best];
    if (lane.count == 0) front_key_[best] = k;
    lane.push_back(e);
    lane.back_key = k;
  } else {
    heap_push(e, k);
  }
  ++size_;
  if (new_min) min_src_ = best;
}

Event EventQueue::pop() {
  Event e;
  if (min_src_ == kHeap) {
    e = heap_.front();
    heap_pop();
    front_key_[kHeap] = heap_.empty() ? kNoKey : key(heap_.front());
  } else {
    Lane& lane = lanes_[min_src_];
    e = lane.buf[lane.head];
    lane.head = (lane.head + 1) & (lane.buf.size() - 1);
    if (--lane.count == 0) {
      front_key_[min_src_] = kNoKey;
      lane.back_key = 0;
    } else {
      front_key_[min_src_] = key(lane.buf[lane.head]);
    }
  }
  --size_;
  find_min();
  return e;
}

void EventQueue::find_min() {
  std::size_t src = kHeap;
  Key best = front_key_[kHeap];
  for (std::size_t l = 0; l < kLanes; ++l) {
    const bool lt = front_key_[l] < best;
    src = lt ? l : src;
    best = lt ? front_key_[l] : best;
  }
  min_src_ = src;
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

void EventQueue::heap_pop() {
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
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
}

}  // namespace vgsim
