// FlowList (the Simulator's per-resource flow list): the same contents as a std::vector through the switch from
// in-place to heap storage, swap-removal as Simulator::finish does it, and moves from either storage.
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "vgsim/kernel/flow_list.hpp"

using namespace vgsim;

namespace {
std::vector<std::uint32_t> contents(const FlowList& l) { return {l.begin(), l.end()}; }
}  // namespace

TEST_CASE("a flow list keeps a vector's contents across the switch to heap storage") {
  FlowList l;
  std::vector<std::uint32_t> ref;
  CHECK(l.empty());
  // 4 ids fit in place; the 5th, 9th and 17th push grow the heap buffer (capacity 8, 16, 32).
  for (std::uint32_t i = 0; i < 20; ++i) {
    l.push_back(100 + i);
    ref.push_back(100 + i);
    REQUIRE(contents(l) == ref);
    CHECK(l.back() == 100 + i);
    CHECK(l[i] == 100 + i);
  }
  // Swap-removal of an interior id, as Simulator::finish removes a finished flow.
  auto remove = [](auto& v, std::uint32_t id) {
    auto it = v.begin();
    while (*it != id) ++it;
    *it = v.back();
    v.pop_back();
  };
  for (std::uint32_t id : {103u, 100u, 119u, 110u}) {
    remove(l, id);
    remove(ref, id);
    REQUIRE(contents(l) == ref);
  }
  CHECK(l.size() == 16);
}

TEST_CASE("a moved flow list keeps its ids, in place or on the heap") {
  for (std::uint32_t n : {0u, 3u, 4u, 5u, 40u}) {
    FlowList a;
    std::vector<std::uint32_t> ref;
    for (std::uint32_t i = 0; i < n; ++i) a.push_back(7 * i), ref.push_back(7 * i);
    FlowList b(std::move(a));
    CHECK(contents(b) == ref);
    b.push_back(1);  // still usable after the move, in whichever storage it holds
    ref.push_back(1);
    CHECK(contents(b) == ref);
    // What resources_.emplace_back does when it reallocates: many lists moved at once.
    std::vector<FlowList> lists;
    for (int k = 0; k < 50; ++k) {
      lists.emplace_back();
      for (std::uint32_t i = 0; i < n; ++i) lists.back().push_back(i + static_cast<std::uint32_t>(k));
    }
    for (int k = 0; k < 50; ++k) {
      REQUIRE(lists[k].size() == n);
      for (std::uint32_t i = 0; i < n; ++i) REQUIRE(lists[k][i] == i + static_cast<std::uint32_t>(k));
    }
  }
}
