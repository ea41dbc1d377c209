// Deferred finish events (Simulator::set_defer_finishes): of the flows re-rated together on one route, only the
// earliest new finish event is queued; the others wait aside under the sequence numbers they would have taken. The
// reference queues every one. Expectation, for any workload: the same completions, in the same order, at the same
// picosecond, and the same events_processed() once the queue is empty -- while the deferring engine leaves events
// unqueued (finishes_never_queued() > 0), so the comparison exercises the deferral.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/kernel/simulator.hpp"

using namespace vgsim;

namespace {

// Flows arriving in bursts on a small network: three routes that many flows take together (one route array each),
// one crossing two of them (so components are sometimes general), one apart (its last flow is often left alone), equal
// sizes (equal finish times: ties broken by the queue's sequence), zero latencies (flows start inside another's event),
// per-flow caps (re-ratings that leave some rates as they were, whose deferred events must then be queued), and
// zero-byte flows.
struct Workload : FlowObserver, EventHandler {
  std::vector<std::vector<ResourceId>> routes;
  std::string log;
  std::uint64_t state;
  int started = 0, limit;
  std::uint64_t max_burst;
  bool common_caps = false;  // 48 in 50 flows capped at 1 GB/s, one at 2 GB/s, one uncapped, else the mix below
  Workload(std::uint64_t seed, int flows, std::uint64_t burst) : state(seed), limit(flows), max_burst(burst) {}
  std::uint64_t pick(std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  }
  void on_event(Simulator& sim, std::uint64_t) override {
    const std::uint64_t burst = 1 + pick(max_burst);
    for (std::uint64_t k = 0; k < burst && started < limit; ++k) {
      const std::uint64_t r = pick(10);
      const auto& route = routes[r < 4 ? 0 : r < 6 ? 1 : r < 7 ? 2 : 3];  // mostly routes many flows take
      const double sizes[] = {1e6, 1e6, 2e6, 0.7e6 * static_cast<double>(1 + pick(5)), 0.0};
      const double inf = std::numeric_limits<double>::infinity();
      const double caps[] = {inf, inf, inf, 0.3e9, 2e9};
      const Time latencies[] = {Time{0}, Time{0}, ns(500)};
      const double bytes = sizes[pick(5)];
      const Time latency = latencies[pick(3)];
      double cap = 0.0;
      if (common_caps) {
        const std::uint64_t c = pick(50);
        cap = c == 0 ? 2e9 : c == 1 ? inf : 1e9;
      } else {
        cap = caps[pick(5)];
      }
      FlowSpec spec{route.data(), static_cast<std::uint32_t>(route.size()), bytes, latency, cap};
      sim.start_flow(spec, this, static_cast<std::uint64_t>(started++));
    }
    if (started < limit) {
      const Time gaps[] = {Time{0}, ns(200), us(3), us(3)};
      sim.schedule(sim.now() + gaps[pick(4)], this, 0);
    }
  }
  void on_flow_done(Simulator& sim, std::uint64_t tag) override {
    log += std::to_string(tag) + '@' + std::to_string(sim.now().ps) + '\n';
  }
};

struct Outcome {
  std::string log;  // completions in order: tag@ps
  std::uint64_t events, never_queued, completed, group_rerates, capped_group_rerates;
};

// capacity_scale multiplies every link's capacity; common_caps: see Workload.
Outcome run_workload(bool defer, std::uint64_t seed, int flows, std::uint64_t max_burst = 3,
                     double capacity_scale = 1.0, bool common_caps = false) {
  Simulator sim;
  sim.set_defer_finishes(defer);
  std::vector<ResourceId> r;
  const double gbps[] = {1.0, 2.0, 1.5, 4.0, 0.8};
  for (int i = 0; i < 5; ++i)
    r.push_back(sim.add_resource("r" + std::to_string(i), Bandwidth::from_GBps(gbps[i] * capacity_scale)));
  Workload w(seed, flows, max_burst);
  w.common_caps = common_caps;
  w.routes = {{r[0], r[1]}, {r[2]}, {r[1], r[3], r[2]}, {r[4]}};  // the last: a route of its own
  sim.schedule(Time{0}, &w, 0);
  sim.run();
  return {w.log,
          sim.events_processed(),
          sim.finishes_never_queued(),
          sim.flows_completed(),
          sim.group_rerates(),
          sim.capped_group_rerates()};
}

// One scenario run in both modes: scenario(sim) builds it on a fresh engine, runs it and returns its completion log.
struct BothModes {
  std::string ref, got;  // completion logs: the reference (every event queued) and the deferring engine
  std::uint64_t events_ref = 0, events = 0, never_queued = 0, group_rerates_ref = 0, group_rerates = 0;
  std::uint64_t capped_group_rerates_ref = 0, capped_group_rerates = 0;
};
template <class Scenario>
BothModes run_both(Scenario scenario) {
  BothModes b;
  for (const bool defer : {false, true}) {
    Simulator sim;
    sim.set_defer_finishes(defer);
    std::string log = scenario(sim);
    (defer ? b.got : b.ref) = std::move(log);
    (defer ? b.events : b.events_ref) = sim.events_processed();
    (defer ? b.group_rerates : b.group_rerates_ref) = sim.group_rerates();
    (defer ? b.capped_group_rerates : b.capped_group_rerates_ref) = sim.capped_group_rerates();
    if (defer) b.never_queued = sim.finishes_never_queued();
  }
  return b;
}

// Completions in order, tag@ps, of flows started with it as their observer.
struct CompletionLog : FlowObserver {
  std::string log;
  void on_flow_done(Simulator& sim, std::uint64_t tag) override {
    log += std::to_string(tag) + '@' + std::to_string(sim.now().ps) + '\n';
  }
};

}  // namespace

TEST_CASE("deferred finish events: the reference's completions, order and event count on mixed workloads") {
  std::uint64_t never_queued = 0, group_rerates = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const Outcome ref = run_workload(false, seed, 400);
    const Outcome got = run_workload(true, seed, 400);
    INFO("seed " << seed);
    REQUIRE(ref.completed == 400);
    CHECK(ref.never_queued == 0);  // the reference queues every event
    CHECK(got.completed == ref.completed);
    CHECK(got.log == ref.log);
    CHECK(got.events == ref.events);
    CHECK(ref.group_rerates == 0);  // the reference keeps no route groups
    never_queued += got.never_queued;
    group_rerates += got.group_rerates;
  }
  CHECK(never_queued > 0);
  CHECK(group_rerates > 0);  // routes held 16 or more flows: some re-ratings were made per class
}

TEST_CASE("deferred finish events: the reference's completions with bursts of up to 24 flows (route groups)") {
  // The mixed workloads again, with bursts of 1-24 starts: the busiest route holds 16 or more flows most of the
  // time, so route groups form, are re-rated per class and are written back (a flow crossing into them, a cap, a
  // zero-byte flow). Expectation: the reference's completions, order and event count, with many per-class
  // re-ratings.
  std::uint64_t group_rerates = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const Outcome ref = run_workload(false, seed, 2000, 24);
    const Outcome got = run_workload(true, seed, 2000, 24);
    INFO("seed " << seed);
    REQUIRE(ref.completed == 2000);
    CHECK(got.log == ref.log);
    CHECK(got.events == ref.events);
    group_rerates += got.group_rerates;
  }
  CHECK(group_rerates > 1000);
}

TEST_CASE("deferred finish events: the reference's completions where many flows ride at one common cap") {
  // The mixed workloads with bursts of 1-24 starts, 96 % of the flows capped at 1 GB/s (2 % at 2 GB/s, 2 % uncapped).
  // On links 1000x faster (as the calibration fit's latency-only replays make them) the caps of the busiest route's
  // flows sum far below its capacity: capped route groups form, are re-rated per class and are written back (a flow
  // with another cap or none, a flow crossing in from another route). On links 20x faster that sum crosses the
  // capacity as the route fills and drains (20 flows x 1 GB/s = its 20 GB/s): groups form and end at the boundary.
  // Expectation: the reference's completions to the picosecond, order and event count; the reference keeps no
  // groups; per-class re-ratings made at both scales (626 and 15 measured: a flow of the route crossing route 0's
  // second link, 10 % of the starts, is there most of the time and keeps the route out of one-route re-rating).
  for (const double scale : {1000.0, 20.0}) {
    std::uint64_t capped = 0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      const Outcome ref = run_workload(false, seed, 2000, 24, scale, true);
      const Outcome got = run_workload(true, seed, 2000, 24, scale, true);
      INFO("scale " << scale << ", seed " << seed);
      REQUIRE(ref.completed == 2000);
      CHECK(ref.capped_group_rerates == 0);
      CHECK(got.log == ref.log);
      CHECK(got.events == ref.events);
      capped += got.capped_group_rerates;
    }
    INFO("scale " << scale);
    CHECK(capped > (scale > 100 ? 100u : 0u));
  }
}

TEST_CASE("deferred finish events: a capped route group, one burst") {
  // 100 flows of 1 MB, each capped at 1 GB/s, start together on a 1000 GB/s link: the fill gives each its cap (100
  // GB/s in all), so every one ends at 1 MB / 1 GB/s = 1 ms (ceil to the picosecond: within 1 ps). From the 16th start
  // on the route is a capped group: the other 84 starts, and the finishes down to 16 flows left (84), are re-rated
  // per class: 168 in all. Expectation: the reference's completions, order and event count.
  const BothModes b = run_both([](Simulator& sim) {
    const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(1000));
    CompletionLog burst;
    for (std::uint64_t i = 0; i < 100; ++i) sim.start_flow({&link, 1, 1e6, Time{0}, 1e9}, &burst, i);
    sim.run();
    return burst.log;
  });
  CHECK(b.got == b.ref);
  CHECK(b.events == b.events_ref);
  CHECK(b.capped_group_rerates_ref == 0);
  CHECK(b.capped_group_rerates == 168);
  std::size_t lines = 0;
  for (std::size_t at = b.ref.find('@'); at != std::string::npos; at = b.ref.find('@', at + 1), ++lines)
    CHECK(std::abs(std::stoll(b.ref.substr(at + 1)) - 1'000'000'000LL) <= 1);
  CHECK(lines == 100);
}

TEST_CASE("deferred finish events: hundreds of flows on one link, equal sizes, one burst") {
  // 256 flows of 1 MB start together on a 1 GB/s link and get 1/256 of it each: all would finish at the same
  // picosecond, so the order is the queue's sequence. The first to pop leaves 255 flows with 0 bytes left at a higher
  // share; the reference re-queues all of them (255 + 254 + ... stale events), the deferring engine one at a time.
  const BothModes b = run_both([](Simulator& sim) {
    const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(1));
    CompletionLog burst;
    for (std::uint64_t i = 0; i < 256; ++i) sim.start_flow({&link, 1, 1e6, Time{0}}, &burst, i);
    sim.run();
    return burst.log;
  });
  const std::string& ref = b.ref;
  CHECK(b.got == ref);
  CHECK(b.events == b.events_ref);
  // From the 16th start on, the route's flows form a group: the other 240 starts and the first 240 finishes (down
  // to 16 flows left) are re-rated per class.
  CHECK(b.group_rerates_ref == 0);
  CHECK(b.group_rerates == 480);
  // Flow k's arrival re-rates the k flows before it and itself: k + 1 new events of which k wait aside.
  CHECK(b.never_queued >= 255u * 256u / 2u - 256u);
  // 256 MB in total at 1 GB/s: the last completion at 0.256 s (within the rounding of 256 re-ratings).
  const std::string last = ref.substr(ref.rfind('@', ref.size() - 2) + 1);
  CHECK(std::stoll(last) == Approx(256e9).epsilon(1e-9));
}

TEST_CASE("deferred finish events: a flow whose rate stays when it is left alone keeps its deferred event") {
  // A (1 MB, no cap) and D (1.1 MB, capped at 0.25 GB/s) start together on a 1 GB/s link: D is held at its cap and A
  // gets the rest, 0.75 GB/s. Both get new events at D's start; A's is the earlier, so D's waits aside. When A leaves,
  // D is alone and its rate stays: its aside event must be queued as it was, time and sequence. Expectation (ceil to
  // ps): A at 1e6 / 0.75e9 s = 1,333,333,333.3 ps -> 1,333,333,334; D at 1.1e6 / 0.25e9 s = 4,400,000,000 ps
  // exactly (recomputed from D's progress at A's finish: 1,333,333,334 + 3,066,666,667 = 4,400,000,001). A timer for
  // 4,400,000,000 ps scheduled after both starts runs after D: D's event took its sequence number at D's start.
  struct Done : FlowObserver, EventHandler {
    std::string log;
    void on_flow_done(Simulator& sim, std::uint64_t tag) override {
      log += std::to_string(tag) + '@' + std::to_string(sim.now().ps) + ' ';
    }
    void on_event(Simulator& sim, std::uint64_t) override { log += "timer@" + std::to_string(sim.now().ps) + ' '; }
  };
  for (const bool defer : {false, true}) {
    Simulator sim;
    sim.set_defer_finishes(defer);
    const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(1));
    Done d;
    sim.start_flow({&link, 1, 1e6, Time{0}}, &d, 0);
    sim.start_flow({&link, 1, 1.1e6, Time{0}, 0.25e9}, &d, 1);
    sim.schedule(Time{4'400'000'000}, &d, 0);
    sim.run();
    INFO("deferral " << defer);
    CHECK(d.log == "0@1333333334 1@4400000000 timer@4400000000 ");
    CHECK(sim.finishes_never_queued() == 0);  // D's aside event was queued, not superseded
  }
}

TEST_CASE("deferred finish events: a flow whose rate stays in a wider re-rating gets its aside event queued") {
  // On a 1 GB/s link L: A (1 MB) and D (0.4 MB, capped at 0.25 GB/s) start at 0 on route {L}: D at its cap, A at
  // 0.75 GB/s; A's event (1.33 ms) is earlier than D's (1.6 ms), so D's waits aside. Then X (1 MB) starts at 0 on
  // route {L, M} (M: 10 GB/s): the component now holds two routes (the general search); D keeps 0.25 GB/s, A and X
  // get (1 - 0.25) / 2 = 0.375 GB/s, so A's new event (2.67 ms) is later than D's aside one, which must be queued now.
  // Expectation: D at 0.4e6 / 0.25e9 s = 1,600,000,000 ps exactly; then A and X share L at 0.5 GB/s with 1e6 -
  // 0.375e9 x 1.6e-3 = 400,000 B left each: both at 1.6 ms + 0.8 ms = 2.4 ms (to the rounding of two re-ratings).
  struct Done : FlowObserver {
    std::vector<std::pair<std::uint64_t, std::int64_t>> order;
    void on_flow_done(Simulator& sim, std::uint64_t tag) override { order.emplace_back(tag, sim.now().ps); }
  };
  std::vector<std::pair<std::uint64_t, std::int64_t>> ref;
  for (const bool defer : {false, true}) {
    Simulator sim;
    sim.set_defer_finishes(defer);
    const ResourceId L = sim.add_resource("L", Bandwidth::from_GBps(1));
    const ResourceId M = sim.add_resource("M", Bandwidth::from_GBps(10));
    const ResourceId a_route[] = {L}, x_route[] = {L, M};
    Done d;
    sim.start_flow({a_route, 1, 1e6, Time{0}}, &d, 0);
    sim.start_flow({a_route, 1, 0.4e6, Time{0}, 0.25e9}, &d, 1);
    sim.start_flow({x_route, 2, 1e6, Time{0}}, &d, 2);
    sim.run();
    INFO("deferral " << defer);
    REQUIRE(d.order.size() == 3);
    CHECK(d.order[0] == std::pair<std::uint64_t, std::int64_t>{1, 1'600'000'000});
    CHECK(std::abs(d.order[1].second - 2'400'000'000) <= 2);
    CHECK(std::abs(d.order[2].second - 2'400'000'000) <= 2);
    if (!defer) ref = d.order;
    CHECK(d.order == ref);
  }
}

TEST_CASE("deferred finish events: an event set aside after it was the earliest keeps its own sequence number") {
  // Six flows start at 0 on a 1 GB/s link, in this order (also their order on the link): i and k (1 MB each, capped
  // at 0.2 GB/s), j (0.5 MB), m1 (0.3 MB), m2 (2 MB), m3 (0.1 MB). Six share the link at 1/6 GB/s (below the caps).
  // m3 leaves first; five flows then get 0.2 GB/s each, all new rates: in link order i is the earliest so far, k ties
  // it, j and then m1 are earlier, so i, k and j go aside -- i after having been the earliest. m1 leaves next: i and
  // k stay at their cap, so their aside events are queued as they were; j and m2 get 0.3 GB/s, then m2 alone 0.6 GB/s
  // and leaves before them. i and k have moved the same bytes at the same rates, so they finish at the same
  // picosecond, in the order of their sequence numbers: i (taken before k's) first. (Had i's aside event taken a new
  // number when j beat it, k would come first.) Expected completions: m3, m1, j, m2, i, k -- with and without
  // deferral; i at 0.6 ms + 0.9 MB / 0.2 GB/s = 5.1 ms: 5,100,000,000 ps.
  struct Done : FlowObserver {
    std::vector<std::pair<std::uint64_t, std::int64_t>> order;
    void on_flow_done(Simulator& sim, std::uint64_t tag) override { order.emplace_back(tag, sim.now().ps); }
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  enum : std::uint64_t { I, K, J, M1, M2, M3 };
  for (const bool defer : {false, true}) {
    Simulator sim;
    sim.set_defer_finishes(defer);
    const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(1));
    Done d;
    const double bytes[] = {1e6, 1e6, 0.5e6, 0.3e6, 2e6, 0.1e6};
    const double caps[] = {0.2e9, 0.2e9, kInf, kInf, kInf, kInf};
    for (std::uint64_t f = I; f <= M3; ++f) sim.start_flow({&link, 1, bytes[f], Time{0}, caps[f]}, &d, f);
    sim.run();
    INFO("deferral " << defer);
    REQUIRE(d.order.size() == 6);
    const std::vector<std::uint64_t> tags{d.order[0].first, d.order[1].first, d.order[2].first,
                                          d.order[3].first, d.order[4].first, d.order[5].first};
    CHECK(tags == std::vector<std::uint64_t>{M3, M1, J, M2, I, K});
    CHECK(d.order[4].second == 5'100'000'000);
    CHECK(d.order[5].second == d.order[4].second);  // i and k at the same picosecond
  }
}

TEST_CASE("deferred finish events: one route, equal remaining bytes at unequal rates") {
  // The re-rating of a route reuses the previous flow's arithmetic when the inputs are equal; here flows have the
  // same bytes left at different rates, so reusing it on bytes alone would be wrong. On a 1 GB/s link: Z (1 MB)
  // starts at 0, then X (1 MB, capped at 0.4 GB/s) at 0: the fill holds X at 0.4 and gives Z 0.6 GB/s, new events
  // from 1e6 bytes at both rates (Z's queued, X's aside).
  // Alone: Z at 1e6 / 0.6e9 s = 1,666,666,666.7 -> 1,666,666,667 ps; X, then alone at its cap (its rate stays, its
  // aside event is queued as it was), at 1e6 / 0.4e9 s = 2,500,000,000 ps exactly.
  // With Y (1 MB) starting at 1 us: 1/3 GB/s is below X's cap, so all three take it (the one-pass re-rating), from
  // 1e6 - 600 and 1e6 - 400 bytes. Z at 1 us + 999,400 B / (1/3 GB/s) = 2.9992 ms; X, with 200 B more, then at its
  // cap 0.4 GB/s (Y gets 0.6) 0.5 us later: 2.9997 ms; Y, 600 - 300 B left, alone at 1 GB/s: 3.0000 ms (each to the
  // rounding of the re-ratings, a few ps). Both: the reference's log to the picosecond.
  struct Done : FlowObserver, EventHandler {
    const ResourceId* link = nullptr;
    std::vector<std::pair<std::uint64_t, std::int64_t>> log;
    void on_flow_done(Simulator& s, std::uint64_t tag) override { log.emplace_back(tag, s.now().ps); }
    void on_event(Simulator& s, std::uint64_t) override { s.start_flow({link, 1, 1e6, Time{0}}, this, 2); }
  };
  using Log = std::vector<std::pair<std::uint64_t, std::int64_t>>;
  auto run = [](bool defer, bool with_y) {
    Simulator sim;
    sim.set_defer_finishes(defer);
    const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(1));
    Done d;
    d.link = &link;
    sim.start_flow({&link, 1, 1e6, Time{0}}, &d, 0);         // Z
    sim.start_flow({&link, 1, 1e6, Time{0}, 0.4e9}, &d, 1);  // X
    if (with_y) sim.schedule(us(1), &d, 0);
    sim.run();
    return d.log;
  };
  for (const bool defer : {false, true}) {
    INFO("deferral " << defer);
    const Log alone = run(defer, false);
    CHECK(alone == Log{{0, 1'666'666'667}, {1, 2'500'000'000}});
    const Log log = run(defer, true);
    REQUIRE(log.size() == 3);
    CHECK(log[0].first == 0);
    CHECK(std::abs(log[0].second - 2'999'200'000) <= 3);
    CHECK(log[1].first == 1);
    CHECK(std::abs(log[1].second - 2'999'700'000) <= 3);
    CHECK(log[2].first == 2);
    CHECK(std::abs(log[2].second - 3'000'000'000) <= 3);
    if (defer) CHECK(log == run(false, true));
  }
}

TEST_CASE("deferred finish events: a route group is written back whenever something else reaches its flows") {
  // 24 flows of 1 MB start at 0 on link L (1 GB/s): from the 16th start on they form a route group, re-rated per
  // class. Then, each at its own time, what must end the group and hand its flows back to the per-flow path with the
  // records that path would have left: a zero-byte flow on their route finishing (at 100 us: it re-rates them, to
  // the same rates, so their aside events are queued as they were); 4 more flows (200 us: a group again); a 10 kB
  // flow on another route {L, M} joining L (300 us; 4 more flows at 400 us join the general component; when the
  // 10 kB flow leaves, a group again); a flow capped at 0.01 GB/s, below the share (1 ms: the fill picks the cap).
  // Expectation: the reference's completions to the picosecond and its event count. And the physics: the capped
  // flow ends at 1 ms + 1 MB / 0.01 GB/s = 101 ms; the others (24 + 0.01 + 8 x 0.5 = 28.01 MB, the link full while
  // any runs, 1 MB of it before 1 ms) at 1 ms + 27.01 MB / 0.99 GB/s = 28.2828 ms (both within the rounding of the
  // re-ratings, 1 ns).
  struct Run : FlowObserver, EventHandler {
    const ResourceId* route_l = nullptr;
    const ResourceId* route_lm = nullptr;
    std::string log;
    void on_flow_done(Simulator& sim, std::uint64_t tag) override {
      log += std::to_string(tag) + '@' + std::to_string(sim.now().ps) + '\n';
    }
    void on_event(Simulator& sim, std::uint64_t what) override {
      if (what == 0) sim.start_flow({route_l, 1, 0.0, Time{0}}, this, 100);          // zero bytes on L
      if (what == 1) sim.start_flow({route_lm, 2, 1e4, Time{0}}, this, 101);         // another route joins
      if (what == 2) sim.start_flow({route_l, 1, 1e6, Time{0}, 0.01e9}, this, 102);  // a binding cap
      if (what == 3)
        for (std::uint64_t i = 0; i < 4; ++i) sim.start_flow({route_l, 1, 0.5e6, Time{0}}, this, 200 + i);
    }
  };
  const BothModes b = run_both([](Simulator& sim) {
    const ResourceId l = sim.add_resource("L", Bandwidth::from_GBps(1));
    const ResourceId m = sim.add_resource("M", Bandwidth::from_GBps(10));
    const ResourceId route_l[] = {l};
    const ResourceId route_lm[] = {l, m};
    Run r;
    r.route_l = route_l;
    r.route_lm = route_lm;
    for (std::uint64_t i = 0; i < 24; ++i) sim.start_flow({route_l, 1, 1e6, Time{0}}, &r, i);
    sim.schedule(us(100), &r, 0);
    sim.schedule(us(200), &r, 3);
    sim.schedule(us(300), &r, 1);
    sim.schedule(us(400), &r, 3);
    sim.schedule(ms(1), &r, 2);
    sim.run();
    return r.log;
  });
  const std::string& ref = b.ref;
  CHECK(b.got == ref);
  CHECK(b.events == b.events_ref);
  CHECK(b.group_rerates > 0);
  CHECK(std::count(ref.begin(), ref.end(), '\n') == 35);  // 24, the zero-byte, crossing and capped flows, 8
  long long capped = 0, others = 0;
  for (std::size_t at = ref.find('@'); at != std::string::npos; at = ref.find('@', at + 1)) {
    const std::size_t line = ref.rfind('\n', at);
    const long long tag = std::stoll(ref.substr(line == std::string::npos ? 0 : line + 1));
    const long long ps = std::stoll(ref.substr(at + 1));
    (tag == 102 ? capped : others) = std::max(tag == 102 ? capped : others, ps);
  }
  CHECK(std::abs(capped - 101'000'000'000LL) <= 1000);
  CHECK(std::abs(others - 28'282'828'283LL) <= 1000);
}

TEST_CASE("deferred finish events: a route group ended while a member that waited aside is the queued one") {
  // 20 flows of 1 MB + i x 10 kB (20 classes) start at 0 on a 1 GB/s link and form a group; the smallest ends first
  // (1 MB at 0.05 GB/s: 20 ms), and the next smallest, aside until then, becomes the queued one. A zero-byte flow on
  // the link finishing at 20.1 ms ends the group: that member's event stays queued as it is, the others' aside
  // events are queued as they were (their rates stay). Expectation: the reference's completions to the picosecond
  // and its event count; the first completion at 20 ms, the last when the link has moved all 21.9 MB: 21.9 ms.
  struct Run : FlowObserver, EventHandler {
    const ResourceId* link = nullptr;
    std::string log;
    void on_flow_done(Simulator& sim, std::uint64_t tag) override {
      log += std::to_string(tag) + '@' + std::to_string(sim.now().ps) + '\n';
    }
    void on_event(Simulator& sim, std::uint64_t) override { sim.start_flow({link, 1, 0.0, Time{0}}, this, 100); }
  };
  const BothModes b = run_both([](Simulator& sim) {
    const ResourceId link = sim.add_resource("L", Bandwidth::from_GBps(1));
    Run r;
    r.link = &link;
    for (std::uint64_t i = 0; i < 20; ++i)
      sim.start_flow({&link, 1, 1e6 + 1e4 * static_cast<double>(i), Time{0}}, &r, i);
    sim.schedule(Time{20'100'000'000}, &r, 0);
    sim.run();
    return r.log;
  });
  const std::string& ref = b.ref;
  CHECK(b.got == ref);
  CHECK(b.events == b.events_ref);
  CHECK(b.group_rerates >= 5);  // the starts from the 16th on and the first finish
  CHECK(ref.substr(0, ref.find('\n')) == "0@20000000000");
  const long long last = std::stoll(ref.substr(ref.rfind('@') + 1));
  CHECK(std::abs(last - 21'900'000'000LL) <= 1000);
}
