// Event queue ordering: by time, then by insertion sequence.
#include <algorithm>
#include <catch2/catch.hpp>
#include <utility>
#include <vector>

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

// The queue mixes FIFO lanes and a heap; whatever holds an event, pops must follow the (time, sequence) order. A
// reference: sort all (time, sequence) pairs. Interleaved pushes and pops, with monotone runs (the lane case), equal
// times and random times (the heap case), must reproduce the reference order exactly.
TEST_CASE("lanes and heap together pop in exact (time, sequence) order") {
  EventQueue q;
  std::uint64_t state = 12345;
  auto rnd = [&](std::uint64_t mod) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % mod;
  };
  std::vector<std::pair<std::int64_t, std::uint64_t>> live;  // (time ps, payload = sequence) not yet popped
  std::int64_t now = 0;
  std::uint64_t seq = 0;
  std::size_t mismatches = 0, popped = 0;
  for (int round = 0; round < 20000; ++round) {
    const int pushes = static_cast<int>(rnd(4));
    for (int i = 0; i < pushes; ++i) {
      std::int64_t at;
      switch (rnd(4)) {
        case 0:
          at = now + 1000;
          break;  // fixed latency: monotone run
        case 1:
          at = now + 2500;
          break;  // a second monotone run
        case 2:
          at = now;
          break;  // same time as now
        default:
          at = now + static_cast<std::int64_t>(rnd(100000));
          break;  // random: heap
      }
      q.push(Time{at}, 0, 0, seq);
      live.emplace_back(at, seq++);
    }
    if (!q.empty() && rnd(3) != 0) {
      const auto it = std::min_element(live.begin(), live.end());
      const Event e = q.pop();
      if (e.at.ps != it->first || e.b != it->second) ++mismatches;
      now = e.at.ps;
      live.erase(it);
      ++popped;
    }
    REQUIRE(q.size() == live.size());
  }
  while (!q.empty()) {
    const auto it = std::min_element(live.begin(), live.end());
    const Event e = q.pop();
    if (e.at.ps != it->first || e.b != it->second) ++mismatches;
    live.erase(it);
    ++popped;
  }
  CHECK(popped == seq);
  CHECK(mismatches == 0);
}

// More interleaved monotone runs than the queue has lanes (12 fixed latencies, as a tree collective's delivery timers
// and finish events), beside random times, with a deep heap (thousands of events queued): pops must still follow
// the reference order, i.e. every popped (time, sequence) equals the minimum of those not yet popped.
namespace {
// An EventQueue beside a plain list of its (time, sequence) keys: pushes monotone runs (12 of 16 pushes land 700 ps
// to 8.4 ns after the last pop, so they form runs the lanes take) mixed with random times, and checks every pop
// against the smallest listed key.
struct MirroredQueue {
  EventQueue q;
  std::vector<std::pair<std::int64_t, std::uint64_t>> live;
  std::uint64_t state;
  std::int64_t now = 0;
  std::uint64_t seq = 0;
  std::size_t mismatches = 0, popped = 0;
  explicit MirroredQueue(std::uint64_t seed) : state(seed) {}
  std::uint64_t rnd(std::uint64_t mod) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % mod;
  }
  void push_some(int pushes) {
    for (int i = 0; i < pushes; ++i) {
      const std::uint64_t kind = rnd(16);
      const std::int64_t at =
          kind < 12 ? now + 700 * static_cast<std::int64_t>(kind + 1) : now + static_cast<std::int64_t>(rnd(50000));
      q.push(Time{at}, static_cast<std::uint32_t>(seq % 3), static_cast<std::uint32_t>(seq), seq);
      live.emplace_back(at, seq++);
    }
  }
  void pop_one() {
    const auto it = std::min_element(live.begin(), live.end());
    REQUIRE(q.top_time().ps == it->first);
    const EventQueue::Head head = q.top();  // what pop() returns next, from a lane or the heap
    const Event e = q.pop();
    if (e.at.ps != it->first || e.seq != it->second || e.b != it->second) ++mismatches;
    if (head.kind != e.kind || head.a != e.a || head.b != e.b) ++mismatches;
    now = e.at.ps;
    live.erase(it);
    ++popped;
  }
};
}  // namespace

TEST_CASE("many interleaved runs and a deep heap pop in exact (time, sequence) order") {
  MirroredQueue m(987654321);
  for (int round = 0; round < 60000; ++round) {
    m.push_some(round < 5000 ? 2 : static_cast<int>(m.rnd(3)));
    if (!m.q.empty() && (round < 5000 ? m.rnd(4) == 0 : m.rnd(2) == 0)) m.pop_one();
  }
  while (!m.q.empty()) m.pop_one();
  CHECK(m.popped == m.seq);
  CHECK(m.mismatches == 0);
}

TEST_CASE("remove_if drops the matching events and keeps the others' exact order") {
  // Lanes and heap both filled (as above), then every 2,000 rounds the events whose payload has a chosen residue
  // are removed: the queue must report how many matched, and pop the rest in (time, sequence) order.
  MirroredQueue m(42);
  std::size_t removed = 0;
  for (int round = 0; round < 40000; ++round) {
    m.push_some(static_cast<int>(m.rnd(3)));
    if (!m.q.empty() && m.rnd(2) == 0) m.pop_one();
    if (round % 2000 == 1999) {
      const std::uint64_t residue = m.rnd(3);
      auto matches = [&](const auto& x) { return x.second % 3 == residue; };
      const auto expected = static_cast<std::size_t>(std::count_if(m.live.begin(), m.live.end(), matches));
      const std::size_t size_before = m.q.size();
      const std::size_t n = m.q.remove_if([&](const Event& e) { return e.b % 3 == residue; });
      REQUIRE(n == expected);
      REQUIRE(m.q.size() == size_before - n);
      m.live.erase(std::remove_if(m.live.begin(), m.live.end(), matches), m.live.end());
      removed += n;
      if (!m.q.empty()) REQUIRE(m.q.top_time().ps == std::min_element(m.live.begin(), m.live.end())->first);
    }
  }
  while (!m.q.empty()) m.pop_one();
  CHECK(m.live.empty());
  CHECK(removed > 0);  // the removals really took events out
  CHECK(m.mismatches == 0);
}

TEST_CASE("events pushed later under reserved sequence numbers pop in exact (time, sequence) order") {
  // As the engine's deferred finish events: a sequence number is taken now (reserve) and the event pushed later
  // (push_reserved), after events with larger sequence numbers -- often at the same time as a lane's last event, where
  // appending to the lane would break its order. Each is pushed no later than when its time comes up (the engine's
  // invariant). Expectation: every pop is the smallest (time, sequence) not yet popped.
  MirroredQueue m(2468);
  std::vector<std::pair<std::int64_t, std::uint64_t>> reserved;  // taken, not yet pushed
  auto push_reserved = [&](std::size_t i) {
    m.q.push_reserved(Time{reserved[i].first}, reserved[i].second, 1, static_cast<std::uint32_t>(reserved[i].second),
                      reserved[i].second);
    m.live.push_back(reserved[i]);
    reserved.erase(reserved.begin() + static_cast<std::ptrdiff_t>(i));
  };
  std::size_t reserved_total = 0;
  for (int round = 0; round < 40000; ++round) {
    m.push_some(static_cast<int>(m.rnd(3)));
    if (m.rnd(2) == 0) {  // times the monotone runs also take: ties with lanes' last events
      reserved.emplace_back(m.now + 700 * static_cast<std::int64_t>(1 + m.rnd(12)), m.q.reserve());
      ++m.seq;
      ++reserved_total;
    } else if (m.rnd(4) == 0) {  // a block, as the engine's re-rating of one route takes them: peeked, then taken
      const std::uint64_t count = 1 + m.rnd(3), first = m.q.reserve(0);
      for (std::uint64_t k = 0; k < count; ++k)
        reserved.emplace_back(m.now + 700 * static_cast<std::int64_t>(1 + m.rnd(12)), first + k);
      REQUIRE(m.q.reserve(count) == first);
      m.seq += count;
      reserved_total += count;
    }
    if (!reserved.empty() && m.rnd(3) == 0) push_reserved(static_cast<std::size_t>(m.rnd(reserved.size())));
    if (!m.q.empty() && m.rnd(2) == 0) {
      for (bool again = true; again;) {  // due before the next pop (which each push may bring forward): pushed now
        again = false;
        for (std::size_t i = reserved.size(); i-- > 0;)
          if (reserved[i].first <= m.q.top_time().ps) push_reserved(i), again = true;
      }
      m.pop_one();
    }
  }
  while (!reserved.empty()) push_reserved(reserved.size() - 1);
  while (!m.q.empty()) m.pop_one();
  CHECK(reserved_total > 10000);
  CHECK(m.popped == m.seq);
  CHECK(m.mismatches == 0);
}
