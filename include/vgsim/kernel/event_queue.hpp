// The discrete-event queue, ordered by (time, insertion sequence), so events at the same time run in the order they
// were scheduled and every run is deterministic. Events are small plain records (a kind and two integer payloads)
// rather than closures, to keep millions of them cheap. No global state.
// Layout: a few FIFO lanes beside a 4-ary heap. An event whose key is not below the last key of some lane is
// appended to that lane (best fit), so each lane stays sorted; the rest go to the heap. pop() takes the smallest
// front of the heap and the lanes. Simulations push long monotone runs (every flow of a collective starts after the
// same latency, identical steps finish after the same time), which then cost O(1) instead of O(log n). The order
// is exactly the (time, sequence) order whichever structure holds an event.
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
  const Event& top() const;  // precondition: !empty()
  Event pop();               // precondition: !empty()
  std::uint64_t pushed() const { return seq_; }

 private:
  static constexpr std::size_t kLanes = 4;
  // A FIFO as a growable ring buffer (capacity a power of two).
  struct Lane {
    std::vector<Event> buf;
    std::size_t head = 0, count = 0;
    const Event& front() const { return buf[head]; }
    const Event& back() const { return buf[(head + count - 1) & (buf.size() - 1)]; }
    void push_back(const Event& e);
    void pop_front() { head = (head + 1) & (buf.size() - 1), --count; }
  };
  void heap_push(const Event& e);
  void heap_pop();
  void find_min();  // sets min_src_ to the structure holding the smallest event

  std::vector<Event> heap_;
  std::array<Lane, kLanes> lanes_;
  int min_src_ = -1;  // -1 heap, 0..kLanes-1 a lane
  std::size_t size_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace vgsim
