// The discrete-event queue, ordered by (time, insertion sequence), so events at the same time run in the order they
// were scheduled and every run is deterministic. Events are small plain records (a kind and two integer payloads)
// rather than closures, to keep millions of them cheap. No global state.
// Layout: a few FIFO lanes beside a 4-ary heap. An event whose key is not below the last key of some lane is
// appended to that lane (best fit), so each lane stays sorted; the rest go to the heap. pop() takes the smallest
// front of the heap and the lanes. Simulations push long monotone runs (every flow of a collective starts after the
// same latency, identical steps finish after the same time), which then cost O(1) instead of O(log n). The order
// is exactly the (time, sequence) order whichever structure holds an event. The time of every lane's back and the
// key of every structure's front are cached, so a push or a pop compares cached integers instead of rereading events.
// Eight lanes, not four: a tree collective's delivery timers and finish events form more monotone runs than four
// lanes hold (ResNet-50 DDP, 512 hosts x 8 GPUs: with four lanes 3.8 M of 4.1 M events went through the heap, with
// eight 0.6 M; docs/BENCHMARKS.md, "2026-11-27, session 24").
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "vgsim/kernel/units.hpp"

namespace vgsim {

struct Event {
  Time at;
  std::uint64_t seq;   // insertion order, breaks ties deterministically
  std::uint32_t kind;  // interpreted by the owner of the queue
  std::uint32_t a;     // payload (e.g. a flow slot)
  std::uint64_t b;     // payload (e.g. a version or tag)
};

class EventQueue {
 public:
  inline void push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b);
  // The sequence number the next push would take, taken now for an event pushed later (or never) with push_reserved:
  // the event then sorts exactly where it would have, had it been pushed at this point.
  std::uint64_t reserve() { return seq_++; }
  // The first of the next `count` sequence numbers, taken now (count 0: the number the next push would take).
  std::uint64_t reserve(std::uint64_t count) {
    const std::uint64_t first = seq_;
    seq_ += count;
    return first;
  }
  // Pushes an event under a sequence number from reserve(); events pushed since may have larger ones.
  inline void push_reserved(Time at, std::uint64_t seq, std::uint32_t kind, std::uint32_t a, std::uint64_t b);
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Time of the next event to pop; precondition: !empty().
  Time top_time() const { return time_of(front_key_[min_src_]); }
  inline Event pop();  // precondition: !empty()
  // The kind and payloads of the event pop() would return next (its time is top_time()); precondition: !empty().
  struct Head {
    std::uint32_t kind, a;
    std::uint64_t b;
  };
  Head top() const {
    if (min_src_ == kHeap) return {heap_.front().kind, heap_.front().a, heap_.front().b};
    const Event& e = lanes_[min_src_].front();
    return {e.kind, e.a, e.b};
  }
  std::uint64_t pushed() const { return seq_; }
  // Removes every queued event for which stale(event) holds and returns how many went; the others keep their keys,
  // so they pop in the same order as before. O(size): for an owner whose events go out of date in bulk (a flow's
  // finish event is replaced whenever its rate changes), so that dead entries do not fill the heap.
  template <class Stale>
  std::size_t remove_if(Stale stale);

  // (time, sequence) as one unsigned 128-bit integer in the same order (the sign bit of the time is flipped).
  using Key = unsigned __int128;
  static Key key_of(Time at, std::uint64_t seq) {
    return (static_cast<Key>(static_cast<std::uint64_t>(at.ps) ^ (std::uint64_t{1} << 63)) << 64) | seq;
  }
  static Time time_of(Key k) {
    return Time{static_cast<std::int64_t>(static_cast<std::uint64_t>(k >> 64) ^ (std::uint64_t{1} << 63))};
  }

 private:
  static constexpr std::size_t kLanes = 8;
  static constexpr std::size_t kHeap = kLanes;  // index of the heap among the structures
  static constexpr Key kNoKey = ~Key{0};        // front key of an empty structure: above every real key
  // A FIFO as a growable ring buffer (capacity a power of two).
  struct Lane {
    std::vector<Event> buf;
    std::size_t head = 0, count = 0, mask = 0;  // mask = capacity - 1 once allocated
    const Event& front() const { return buf[head]; }
    void push_back(const Event& e) {
      if (count == buf.size()) grow();
      buf[(head + count) & mask] = e;
      ++count;
    }
    void grow();
  };
  // A heap entry: the event's key stored once (time and sequence are recovered from it), so a sift compares loaded
  // keys; 32 bytes like an Event, four children in two cache lines.
  struct Node {
    Key key;
    std::uint32_t kind;
    std::uint32_t a;
    std::uint64_t b;
  };
  // Appends e to the best-fitting lane (fits(lane, its last time): e keeps that lane sorted) or to the heap.
  template <class Fits>
  inline void insert(const Event& e, Fits fits);
  void heap_push(const Event& e, Key k);
  void heap_pop_front();                            // removes the heap's root and updates its front key
  void sift_down(std::size_t i, const Node& node);  // places `node` in the hole at i or below
  void heapify();                                   // restores the heap order of heap_ (Floyd), sets its front key
  void find_min() {                                 // sets min_src_ to the structure holding the smallest front key
    std::size_t src = kHeap;
    Key best = front_key_[kHeap];
    for (std::size_t l = 0; l < kLanes; ++l) {
      const bool lt = front_key_[l] < best;
      src = lt ? l : src;
      best = lt ? front_key_[l] : best;
    }
    min_src_ = src;
  }

  std::vector<Node> heap_;
  std::array<Lane, kLanes> lanes_;
  static constexpr std::array<Key, kLanes + 1> no_keys() {
    std::array<Key, kLanes + 1> keys{};
    for (Key& k : keys) k = kNoKey;
    return keys;
  }
  std::array<Key, kLanes + 1> front_key_ = no_keys();  // lanes, then the heap
  // Per lane the time of its last event (kEmptyBack while empty), side by side for the push's scan. A new event
  // fits behind a last event at the same or an earlier time: its sequence is larger than every queued one.
  static constexpr std::int64_t kEmptyBack = std::numeric_limits<std::int64_t>::min();
  static constexpr std::array<std::int64_t, kLanes> no_backs() {
    std::array<std::int64_t, kLanes> backs{};
    for (std::int64_t& b : backs) b = kEmptyBack;
    return backs;
  }
  std::array<std::int64_t, kLanes> back_ps_ = no_backs();
  std::array<std::uint64_t, kLanes> back_seq_{};  // per lane the sequence of its last event (push_reserved's test)
  std::size_t min_src_ = kHeap;                   // structure holding the smallest event (meaningless while empty)
  std::size_t size_ = 0;
  std::uint64_t seq_ = 0;
};

// push and pop run once per event: inline, the lane paths without calls.
inline void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  // A new sequence is larger than every queued one: any lane whose last time is not after `at` keeps its order.
  insert(Event{at, seq_++, kind, a, b}, [at](std::size_t, std::int64_t last_ps) { return last_ps <= at.ps; });
}

inline void EventQueue::push_reserved(Time at, std::uint64_t seq, std::uint32_t kind, std::uint32_t a,
                                      std::uint64_t b) {
  // Events queued since may have larger sequences: at the same time, a lane fits only behind a smaller one.
  insert(Event{at, seq, kind, a, b}, [this, at, seq](std::size_t l, std::int64_t last_ps) {
    return last_ps < at.ps || (last_ps == at.ps && back_seq_[l] < seq);
  });
}

template <class Fits>
inline void EventQueue::insert(const Event& e, Fits fits) {
  const Key k = key_of(e.at, e.seq);
  // Best-fit lane: of the lanes it fits behind, the one with the latest last time (the first of them). An empty
  // lane's last time is kEmptyBack, so it is taken (the first one) only when no occupied lane fits; with no lane at
  // all, the heap.
  std::size_t best = kHeap;
  std::int64_t best_ps = kEmptyBack;
  for (std::size_t l = 0; l < kLanes; ++l) {
    const std::int64_t lt = back_ps_[l];
    const bool fit = fits(l, lt) && (lt > best_ps || best == kHeap);
    best = fit ? l : best;
    best_ps = fit ? lt : best_ps;
  }
  // The new event is the minimum only if it is below the current one; an empty queue's fronts are all kNoKey.
  const bool new_min = k < front_key_[min_src_];
  if (best != kHeap) {
    Lane& lane = lanes_[best];
    if (lane.count == 0) front_key_[best] = k;
    lane.push_back(e);
    back_ps_[best] = e.at.ps;
    back_seq_[best] = e.seq;
  } else {
    heap_push(e, k);
  }
  ++size_;
  if (new_min) min_src_ = best;
}

inline Event EventQueue::pop() {
  Event e;
  if (min_src_ == kHeap) {
    const Node& n = heap_.front();
    e = Event{time_of(n.key), static_cast<std::uint64_t>(n.key), n.kind, n.a, n.b};
    heap_pop_front();
  } else {
    Lane& lane = lanes_[min_src_];
    e = lane.buf[lane.head];
    lane.head = (lane.head + 1) & lane.mask;
    if (--lane.count == 0) {
      front_key_[min_src_] = kNoKey;
      back_ps_[min_src_] = kEmptyBack;
    } else {
      front_key_[min_src_] = key_of(lane.buf[lane.head].at, lane.buf[lane.head].seq);
    }
  }
  --size_;
  find_min();
  return e;
}

template <class Stale>
std::size_t EventQueue::remove_if(Stale stale) {
  std::size_t removed = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {  // filter each lane in place, in its order
    Lane& lane = lanes_[l];
    std::size_t kept = 0;
    for (std::size_t i = 0; i < lane.count; ++i) {
      const Event& e = lane.buf[(lane.head + i) & lane.mask];
      if (!stale(e)) lane.buf[(lane.head + kept++) & lane.mask] = e;
    }
    removed += lane.count - kept;
    lane.count = kept;
    if (kept == 0) {
      front_key_[l] = kNoKey;
      back_ps_[l] = kEmptyBack;
    } else {
      front_key_[l] = key_of(lane.front().at, lane.front().seq);
      back_ps_[l] = lane.buf[(lane.head + kept - 1) & lane.mask].at.ps;
      back_seq_[l] = lane.buf[(lane.head + kept - 1) & lane.mask].seq;
    }
  }
  std::size_t kept = 0;
  for (const Node& n : heap_)
    if (!stale(Event{time_of(n.key), static_cast<std::uint64_t>(n.key), n.kind, n.a, n.b})) heap_[kept++] = n;
  removed += heap_.size() - kept;
  heap_.resize(kept);
  heapify();
  size_ -= removed;
  find_min();
  return removed;
}

}  // namespace vgsim
