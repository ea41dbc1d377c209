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
  std::uint64_t seq;    // insertion order, breaks ties deterministically
  std::uint32_t kind;   // interpreted by the owner of the queue
  std::uint32_t a;      // payload (e.g. a flow slot)
  std::uint64_t b;      // payload (e.g. a version or tag)
};

class EventQueue {
 public:
  void push(Time at, std::uint32_t kind, std::uint32_t a, std::uint64_t b);
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // precondition: !empty()
  const Event& top() const { return min_src_ == kHeap ? heap_.front() : lanes_[min_src_].front(); }
  Event pop();  // precondition: !empty()
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
    std::size_t head = 0, count = 0;
    Key back_key = 0;  // key of the last event; 0 (not above any key) while empty
    const Event& front() const { return buf[head]; }
    void push_back(const Event& e);
    void grow();
  };
  void heap_push(const Event& e, Key k);
  void heap_pop();
  void find_min();  // sets min_src_ to the structure holding the smallest front key

  std::vector<Event> heap_;
  std::array<Lane, kLanes> lanes_;
  std::array<Key, kLanes + 1> front_key_{kNoKey, kNoKey, kNoKey, kNoKey, kNoKey};  // lanes, then the heap
  std::size_t min_src_ = kHeap;  // structure holding the smallest event (meaningless while empty)
  std::size_t size_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace vgsim
