// Event queue ordering: by time, then by insertion sequence.
#include <catch2/catch.hpp>

#include "vgsim/kernel/event_queue.hpp"

using namespace vgsim;

TEST_CASE("events pop by time then insertion order") {
  EventQueue q;
  q.push(us(5), 0, 1, 0);
  q.push(us(1), 0, 2, 0);
  q.push(us(5), 0, 3, 0);
  q.push(us(1), 0, 4, 0);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().a);
  // times 1,1,5,5; ties in insertion order: 2 before 4, 1 before 3
  CHECK(order == std::vector<std::uint32_t>{2, 4, 1, 3});
}
