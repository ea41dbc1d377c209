// Event queue: FIFO lanes beside a 4-ary min-heap on (time, sequence); see include/vgsim/kernel/event_queue.hpp.
// The heap sifts with a hole instead of swaps; a 4-ary heap halves the depth of a binary one and keeps the children
// of a node in one or two cache lines. (time, sequence) is compared as one 128-bit key, and the smallest of four
// children is picked with conditional moves: in a symmetric collective thousands of events share a time, which makes
// branchy comparisons unpredictable. Lanes take every push that keeps them sorted (best fit: the lane whose last
// key is the largest one not above the new key), so they hold sorted runs and never need reordering.
#include "vgsim/kernel/event_queue.hpp"

namespace vgsim {

namespace {
using Key = unsigned __int128;
// Flipping the sign bit maps signed picoseconds onto unsigned integers in the same order.
inline Key key(const Event& e) {
  const std::uint64_t t = static_cast<std::uint64_t>(e.at.ps) ^ (std::uint64_t{1} << 63);
  return (static_cast<Key>(t) << 64) | e.seq;
}
constexpr std::size_t kArity = 4;
}  // namespace

void EventQueue::Lane::push_back(const Event& e) {
  if (count == buf.size()) {  // grow: unroll the ring into a buffer twice the size
    std::vector<Event> bigger(buf.empty() ? 64 : buf.size() * 2);
    for (std::size_t i = 0; i < count; ++i) bigger[i] = buf[(head + i) & (buf.size() - 1)];
    buf.swap(bigger);
    head = 0;
  }
  buf[(head + count) & (buf.size() - 1)] = e;
  ++count;
}

void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  const Event e{at, seq_++, kind, a, b};
  const Key k = key(e);
  // Best-fit lane: the non-empty lane with the largest last key <= k; else an empty lane; else the heap.
  int best = -1, empty_lane = -1;
  Key best_key = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    const Lane& lane = lanes_[l];
    if (lane.count == 0) {
      if (empty_lane < 0) empty_lane = static_cast<int>(l);
      continue;
    }
    const Key lk = key(lane.back());
    if (lk <= k && (best < 0 || lk > best_key)) best = static_cast<int>(l), best_key = lk;
  }
  if (best < 0) best = empty_lane;
  if (best >= 0) lanes_[static_cast<std::size_t>(best)].push_back(e);
  else heap_push(e);
  ++size_;
  // The new event is the minimum only if it is below the current one (a new key always has the largest sequence).
  if (size_ == 1) {
    min_src_ = best;
  } else {
    const Event& cur = top();
    if (k < key(cur)) min_src_ = best;
  }
}

const Event& EventQueue::top() const {
  return min_src_ < 0 ? heap_.front() : lanes_[static_cast<std::size_t>(min_src_)].front();
}

Event EventQueue::pop() {
  const Event e = top();
  if (min_src_ < 0) heap_pop();
  else lanes_[static_cast<std::size_t>(min_src_)].pop_front();
  --size_;
  find_min();
  return e;
}

void EventQueue::find_min() {
  int src = -1;
  bool have = !heap_.empty();
  Key best = have ? key(heap_.front()) : 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    if (lanes_[l].count == 0) continue;
    const Key k = key(lanes_[l].front());
    if (!have || k < best) best = k, src = static_cast<int>(l), have = true;
  }
  min_src_ = src;
}

void EventQueue::heap_push(const Event& e) {
  const Key k = key(e);
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!(k < key(heap_[parent]))) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
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
