// The discrete-event queue, ordered by (time, insertion sequence), so events at the same time run in the order they
// were scheduled and every run is deterministic. Events are small plain records (a kind and two integer payloads)
// rather than closures, to keep millions of them cheap. No global state.
// Layout: a few FIFO lanes beside a 4-ary heap. An event whose key is not below the last key of some lane is
// appended to that lane (best fit), so each lane stays sorted; the rest go to the heap. pop() takes the smallest
// front of the heap and the lanes. Simulations push long monotone runs (every flow of a collective starts after the
// same latency, identical steps finish after the same time), which then cost O(1) instead of O(log n). The order
// is exactly the (time, sequence) order whichever structure holds an event. The key of every lane's back and of
// every structure's front is cached, so a push or a pop compares cached integers instead of rereading events.
#pragma once

#include <array>
#include <cstdint>
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
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // precondition: !empty()
  const Event& top() const { return min_src_ == kHeap ? heap_.front() : lanes_[min_src_].front(); }
  inline Event pop();  // precondition: !empty()
  std::uint64_t pushed() const { return seq_; }

  // (time, sequence) as one unsigned 128-bit integer in the same order (the sign bit of the time is flipped).
  using Key = unsigned __int128;
  static Key key_of(Time at, std::uint64_t seq) {
    return (static_cast<Key>(static_cast<std::uint64_t>(at.ps) ^ (std::uint64_t{1} << 63)) << 64) | seq;
  }

 private:
  static constexpr std::size_t kLanes = 4;
  static constexpr std::size_t kHeap = kLanes;  // index of the heap among the structures
  static constexpr Key kNoKey = ~Key{0};        // front key of an empty structure: above every real key
  // A FIFO as a growable ring buffer (capacity a power of two).
  struct Lane {
    std::vector<Event> buf;
    std::size_t head = 0, count = 0, mask = 0;  // mask = capacity - 1 once allocated
    Key back_key = 0;                           // key of the last event; 0 (not above any key) while empty
    const Event& front() const { return buf[head]; }
    void push_back(const Event& e) {
      if (count == buf.size()) grow();
      buf[(head + count) & mask] = e;
      ++count;
    }
    void grow();
  };
  void heap_push(const Event& e, Key k);
  void heap_pop_front();  // removes the heap's root and updates its front key
  void find_min() {       // sets min_src_ to the structure holding the smallest front key
    std::size_t src = kHeap;
    Key best = front_key_[kHeap];
    for (std::size_t l = 0; l < kLanes; ++l) {
      const bool lt = front_key_[l] < best;
      src = lt ? l : src;
      best = lt ? front_key_[l] : best;
    }
    min_src_ = src;
  }

  std::vector<Event> heap_;
  std::array<Lane, kLanes> lanes_;
  static constexpr std::array<Key, kLanes + 1> no_keys() {
    std::array<Key, kLanes + 1> keys{};
    for (Key& k : keys) k = kNoKey;
    return keys;
  }
  std::array<Key, kLanes + 1> front_key_ = no_keys();  // lanes, then the heap
  std::size_t min_src_ = kHeap;                        // structure holding the smallest event (meaningless while empty)
  std::size_t size_ = 0;
  std::uint64_t seq_ = 0;
};

// push and pop run once per event: inline, the lane paths without calls.
inline void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
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

inline Event EventQueue::pop() {
  Event e;
  if (min_src_ == kHeap) {
    e = heap_.front();
    heap_pop_front();
  } else {
    Lane& lane = lanes_[min_src_];
    e = lane.buf[lane.head];
    lane.head = (lane.head + 1) & lane.mask;
    if (--lane.count == 0) {
      front_key_[min_src_] = kNoKey;
      lane.back_key = 0;
    } else {
      front_key_[min_src_] = key_of(lane.buf[lane.head].at, lane.buf[lane.head].seq);
    }
  }
  --size_;
  find_min();
  return e;
}

}  // namespace vgsim
