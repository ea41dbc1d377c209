// The flow-level network: textbook max-min cases, completion times computed by hand, conservation, determinism,
// two simulators in one process, and the engine's filling against a full-scan reference (bit-identical rates).
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "vgsim/kernel/simulator.hpp"

using namespace vgsim;

namespace {
// Records completion times by tag.
struct Recorder : FlowObserver {
  std::map<std::uint64_t, Time> done;
  void on_flow_done(Simulator& sim, std::uint64_t tag) override { done[tag] = sim.now(); }
};
constexpr double GB = 1e9;
}  // namespace

TEST_CASE("single bottleneck: n flows share one link equally") {
  Simulator sim;
  const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(10));
  Recorder rec;
  const ResourceId route[] = {link};
  std::vector<FlowId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(sim.start_flow({route, 1, 1 * GB, Time{0}}, &rec, i));
  // Expectation: each of 4 flows gets 10/4 = 2.5 GB/s.
  for (FlowId f : ids) CHECK(sim.flow_rate(f) == Approx(2.5 * GB));
  CHECK(sim.resource_load(link) <= 10 * GB * (1 + 1e-12));
  sim.run();
  // All finish together at 1 GB / 2.5 GB/s = 0.4 s.
  for (int i = 0; i < 4; ++i) CHECK(rec.done[i].s() == Approx(0.4).epsilon(1e-9));
}

TEST_CASE("parking lot: the long flow gets the fair share of every link") {
  // Links L1, L2, L3 of 1 GB/s. Flow 0 crosses all three; flows 1, 2, 3 cross one link each.
  // Max-min: every link is shared by 2 flows -> every flow gets 0.5 GB/s.
  Simulator sim;
  ResourceId l[3];
  for (int i = 0; i < 3; ++i) l[i] = sim.add_resource("L" + std::to_string(i), Bandwidth::from_GBps(1));
  Recorder rec;
  const ResourceId long_route[] = {l[0], l[1], l[2]};
  const FlowId f0 = sim.start_flow({long_route, 3, 1 * GB, Time{0}}, &rec, 0);
  FlowId shorts[3];
  for (int i = 0; i < 3; ++i) shorts[i] = sim.start_flow({&l[i], 1, 0.5 * GB, Time{0}}, &rec, 1 + i);
  CHECK(sim.flow_rate(f0) == Approx(0.5 * GB));
  for (FlowId f : shorts) CHECK(sim.flow_rate(f) == Approx(0.5 * GB));
  sim.run();
  // Short flows: 0.5 GB at 0.5 GB/s = 1 s. Then flow 0 has 0.5 GB left alone at 1 GB/s: 1 + 0.5 = 1.5 s.
  for (int i = 1; i <= 3; ++i) CHECK(rec.done[i].s() == Approx(1.0).epsilon(1e-9));
  CHECK(rec.done[0].s() == Approx(1.5).epsilon(1e-9));
}

TEST_CASE("two bottlenecks: the leftover of a tight link goes to the other flows") {
  // A (1 GB/s) carries f0, f1; B (3 GB/s) carries f1, f2, f3.
  // Max-min: A is tightest (1/2): f0 = f1 = 0.5. B left 2.5 for f2, f3 -> 1.25 each.
  Simulator sim;
  const ResourceId a = sim.add_resource("A", Bandwidth::from_GBps(1));
  const ResourceId b = sim.add_resource("B", Bandwidth::from_GBps(3));
  Recorder rec;
  const ResourceId r0[] = {a}, r1[] = {a, b}, r2[] = {b};
  const FlowId f0 = sim.start_flow({r0, 1, GB, Time{0}}, &rec, 0);
  const FlowId f1 = sim.start_flow({r1, 2, GB, Time{0}}, &rec, 1);
  const FlowId f2 = sim.start_flow({r2, 1, GB, Time{0}}, &rec, 2);
  const FlowId f3 = sim.start_flow({r2, 1, GB, Time{0}}, &rec, 3);
  CHECK(sim.flow_rate(f0) == Approx(0.5 * GB));
  CHECK(sim.flow_rate(f1) == Approx(0.5 * GB));
  CHECK(sim.flow_rate(f2) == Approx(1.25 * GB));
  CHECK(sim.flow_rate(f3) == Approx(1.25 * GB));
  CHECK(sim.resource_load(a) <= 1 * GB * (1 + 1e-12));
  CHECK(sim.resource_load(b) <= 3 * GB * (1 + 1e-12));
}

TEST_CASE("latency delays the start; per-flow caps bind before links") {
  Simulator sim;
  const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(10));
  Recorder rec;
  const ResourceId route[] = {link};
  // Flow 0: 2 us latency, capped at 2 GB/s, 2 GB -> done at 2 us + 1 s.
  // Flow 1: no cap, shares the remaining 8 GB/s; 8 GB -> 1 s + 2 us.
  sim.start_flow({route, 1, 2 * GB, us(2), 2 * GB}, &rec, 0);
  sim.start_flow({route, 1, 8 * GB, us(2)}, &rec, 1);
  sim.run();
  CHECK(rec.done[0].ps == (us(2) + Time::from_s(1)).ps);
  CHECK(rec.done[1].ps == (us(2) + Time::from_s(1)).ps);
}

TEST_CASE("a finishing flow releases bandwidth to the survivors") {
  // f0: 1 GB, f1: 3 GB on a 2 GB/s link. Both at 1 GB/s until f0 ends at 1 s; f1 then has 2 GB at 2 GB/s: 2 s.
  Simulator sim;
  const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(2));
  Recorder rec;
  const ResourceId route[] = {link};
  sim.start_flow({route, 1, GB, Time{0}}, &rec, 0);
  sim.start_flow({route, 1, 3 * GB, Time{0}}, &rec, 1);
  sim.run();
  CHECK(rec.done[0].s() == Approx(1.0).epsilon(1e-9));
  CHECK(rec.done[1].s() == Approx(2.0).epsilon(1e-9));
  CHECK(sim.resource_stats(link).bytes_carried == Approx(4 * GB));
}

namespace {
// Starts one flow per timer, `gap` apart, on one route.
struct Arrivals : EventHandler {
  const ResourceId* route;
  FlowObserver* obs;
  int count;
  Time gap;
  double bytes;
  int started = 0;
  Arrivals(const ResourceId* r, FlowObserver* o, int n, Time g, double b)
      : route(r), obs(o), count(n), gap(g), bytes(b) {}
  void on_event(Simulator& sim, std::uint64_t) override {
    sim.start_flow({route, 1, bytes, Time{0}}, obs, static_cast<std::uint64_t>(started));
    if (++started < count) sim.schedule(sim.now() + gap, this, 0);
  }
};
}  // namespace

TEST_CASE("processor sharing with hundreds of flows on one link, through the removal of stale finish events") {
  // 300 flows of 1 MB arrive 1 us apart on a 1 GB/s link. A flow alone would need 1 ms, so none leaves before the
  // last arrives (299 us): arrival k changes the rate of the k flows before it and makes their finish events stale,
  // 0 + 1 + ... + 299 = 44,850 stale events from arrivals alone (as many again from departures), far above the 4,096
  // at which the engine removes them from the queue in bulk. Expectation: processor sharing, computed here step by
  // step in long double: between two events each of the n active flows moves C/n; flows leave in arrival order.
  const int n = 300;
  const long double C = 1e9L, B = 1e6L, gap = 1e-6L;
  std::vector<long double> expect(n), left(n, B);
  long double t = 0;
  int next = 0, first = 0;  // next arrival; the oldest active flow (finishes first: it has the least left)
  while (first < n) {
    const int active = next - first;
    const long double t_arrive = next < n ? next * gap : 1e30L;
    const long double t_finish = active > 0 ? t + left[first] * active / C : 1e30L;
    const long double t1 = std::min(t_arrive, t_finish);
    for (int i = first; i < next; ++i) left[i] -= (t1 - t) * C / active;
    t = t1;
    if (t_finish <= t_arrive) {
      expect[first++] = t;
    } else {
      ++next;
    }
  }
  Simulator sim;
  const ResourceId link = sim.add_resource("link", Bandwidth::from_GBps(1));
  const ResourceId route[] = {link};
  Recorder rec;
  Arrivals arrivals(route, &rec, n, us(1), 1e6);
  sim.schedule(Time{0}, &arrivals, 0);
  sim.run();
  REQUIRE(rec.done.size() == static_cast<std::size_t>(n));
  long double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(rec.done[i].s() - expect[i]));
  // Integer picoseconds and per-event rounding: a few ps per event at most over ~600 events.
  CHECK(worst < 5e-9L);
  CHECK(sim.flows_completed() == static_cast<std::uint64_t>(n));
  CHECK(sim.resource_stats(link).bytes_carried == Approx(n * 1e6));
}

namespace {
// A pseudo-random workload of flows arriving over time on a small mesh; records every completion.
struct Chain : FlowObserver, EventHandler {
  std::vector<ResourceId> res;
  std::vector<std::vector<ResourceId>> routes;
  std::ostringstream log;
  double max_overload = 0.0;
  std::uint64_t state = 12345;
  int started = 0;
  std::uint64_t next() { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; }
  void check_conservation(Simulator& sim) {
    for (ResourceId r : res)
      max_overload = std::max(max_overload, sim.resource_load(r) / sim.resource_capacity(r).bytes_per_s - 1.0);
  }
  void on_event(Simulator& sim, std::uint64_t) override {
    if (started >= 300) return;
    const auto& route = routes[next() % routes.size()];
    const double bytes = 1e6 * (1 + next() % 100);
    sim.start_flow({route.data(), static_cast<std::uint32_t>(route.size()), bytes, ns(next() % 5000)}, this, started++);
    check_conservation(sim);
    sim.schedule(sim.now() + ns(next() % 20000), this, 0);
  }
  void on_flow_done(Simulator& sim, std::uint64_t tag) override {
    log << tag << '@' << sim.now().ps << '\n';
    check_conservation(sim);
  }
};

std::string run_chain(double* overload) {
  Simulator sim;
  Chain c;
  for (int i = 0; i < 6; ++i) c.res.push_back(sim.add_resource("r" + std::to_string(i), Bandwidth::from_GBps(1 + i)));
  c.routes = {{c.res[0]}, {c.res[0], c.res[1]}, {c.res[1], c.res[2], c.res[3]}, {c.res[3], c.res[4]},
              {c.res[5]}, {c.res[2], c.res[5]}, {c.res[0], c.res[4], c.res[5]}};
  sim.schedule(Time{0}, &c, 0);
  sim.run();
  *overload = c.max_overload;
  return c.log.str();
}
}  // namespace

TEST_CASE("conservation and determinism under random arrivals") {
  double overload1 = 0, overload2 = 0;
  const std::string a = run_chain(&overload1);
  const std::string b = run_chain(&overload2);  // a second simulator in the same process
  CHECK(a == b);                                // byte-identical reruns
  CHECK(std::count(a.begin(), a.end(), '\n') == 300);
  // No resource ever above its capacity (relative rounding slack 1e-9).
  CHECK(overload1 <= 1e-9);
}

namespace {
// Reference progressive filling by full scans over the component reachable from `seeds`, in the order the engine
// visits it: the seeds, then for each resource in that list its flows in list order (`on`: the engine's order, flows
// appended on start and a finished one replaced by the last), each adding the resources of its route. Every resource
// and flow of the component is scanned each round. Returns the rates of the component's flows (others: -1).
std::vector<double> scan_component(const std::vector<double>& capacity, const std::vector<std::vector<std::size_t>>& on,
                                   const std::vector<std::vector<ResourceId>>& routes, const std::vector<double>& caps,
                                   const std::vector<ResourceId>& seeds) {
  const std::size_t nflows = routes.size();
  std::vector<ResourceId> res;
  std::vector<std::size_t> flows;
  std::vector<bool> seen_r(capacity.size()), seen_f(nflows);
  for (ResourceId r : seeds)
    if (!seen_r[r]) seen_r[r] = true, res.push_back(r);
  for (std::size_t i = 0; i < res.size(); ++i)
    for (std::size_t f : on[res[i]]) {
      if (seen_f[f]) continue;
      seen_f[f] = true, flows.push_back(f);
      for (ResourceId r : routes[f])
        if (!seen_r[r]) seen_r[r] = true, res.push_back(r);
    }
  std::vector<double> remaining(capacity), rate(nflows, -1.0);
  std::vector<std::size_t> unfixed(capacity.size());
  for (ResourceId r : res) unfixed[r] = on[r].size();
  std::vector<bool> fixed(nflows);
  std::size_t left = flows.size();
  auto fix = [&](std::size_t f, double x) {
    fixed[f] = true, rate[f] = x, --left;
    for (ResourceId r : routes[f]) remaining[r] -= x, --unfixed[r];
  };
  while (left > 0) {
    double best_share = std::numeric_limits<double>::infinity(), best_cap = best_share;
    ResourceId best_res = 0;
    bool found = false;
    for (ResourceId r : res) {
      if (unfixed[r] == 0) continue;
      const double share = std::max(0.0, remaining[r]) / static_cast<double>(unfixed[r]);
      if (share < best_share) best_share = share, best_res = r, found = true;
    }
    std::size_t cap_flow = nflows;
    for (std::size_t f : flows)
      if (!fixed[f] && caps[f] < best_cap) best_cap = caps[f], cap_flow = f;
    if (cap_flow != nflows && (!found || best_cap <= best_share))
      fix(cap_flow, best_cap);
    else
      for (std::size_t f : on[best_res])
        if (!fixed[f]) fix(f, best_share);
  }
  return rate;
}

// All flows active, started in index order: the newest flow's route is the search's seeds.
std::vector<double> scan_fill(const std::vector<double>& capacity, const std::vector<std::vector<ResourceId>>& routes,
                              const std::vector<double>& caps) {
  std::vector<std::vector<std::size_t>> on(capacity.size());  // flows per resource, arrival order
  for (std::size_t f = 0; f < routes.size(); ++f)
    for (ResourceId r : routes[f]) on[r].push_back(f);
  return scan_component(capacity, on, routes, caps, routes.back());
}
}  // namespace

namespace {
// A 64-bit LCG: rnd(mod) is uniform enough in [0, mod) for picking test shapes.
struct Lcg {
  std::uint64_t state;
  std::uint64_t operator()(std::uint64_t mod) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % mod;
  }
};

struct ArrivalCheck {
  std::size_t mismatches;
  std::uint64_t block_fills;
};

// One engine over `capacity`; `flows` flows of 1 GB start at time 0, flow k on route_of(k) then a cap (1 in 4
// uncapped, else 0.1 GB/s x (1..3) / 7, none exact in binary). After every `every`-th arrival, each flow's engine
// rate is compared with scan_fill's of the flows so far, bit for bit.
template <class RouteOf>
ArrivalCheck fill_against_scan(Lcg& rnd, const std::vector<double>& capacity, int flows, int every, RouteOf route_of) {
  Simulator sim;
  for (std::size_t i = 0; i < capacity.size(); ++i) sim.add_resource("r" + std::to_string(i), Bandwidth{capacity[i]});
  std::vector<std::vector<ResourceId>> routes;
  routes.reserve(static_cast<std::size_t>(flows));  // the engine keeps pointers to the route arrays
  std::vector<double> caps;
  std::vector<FlowId> ids;
  Recorder rec;
  std::size_t mismatches = 0;
  for (int k = 0; k < flows; ++k) {
    routes.push_back(route_of(k));
    const std::uint64_t c = rnd(4);
    caps.push_back(c == 3 ? std::numeric_limits<double>::infinity() : 0.1 * GB * static_cast<double>(1 + c) / 7.0);
    ids.push_back(sim.start_flow(
        {routes.back().data(), static_cast<std::uint32_t>(routes.back().size()), GB, Time{0}, caps.back()}, &rec,
        static_cast<std::uint64_t>(k)));
    if ((k + 1) % every != 0) continue;
    const std::vector<double> expected = scan_fill(capacity, routes, caps);
    for (std::size_t f = 0; f < ids.size(); ++f) mismatches += sim.flow_rate(ids[f]) != expected[f];
  }
  return {mismatches, sim.block_fills()};
}

// `first` then up to `extra` distinct other resources drawn from [0, pool) + offset.
std::vector<ResourceId> route_with(Lcg& rnd, std::vector<ResourceId> first, std::uint64_t extra, std::uint64_t pool,
                                   ResourceId offset) {
  const std::size_t size = first.size() + rnd(extra + 1);
  while (first.size() < size) {
    const auto r = static_cast<ResourceId>(offset + rnd(pool));
    if (std::find(first.begin(), first.end(), r) == first.end()) first.push_back(r);
  }
  return first;
}
}  // namespace

// The engine keeps each resource's share and visits caps in sorted order instead of rescanning every round. The
// rates must be bit-identical to a full scan's, ties included (equal capacities, equal caps, infinite caps): every
// flow crosses a hub resource, so all flows form one component, and after the k-th arrival, for every flow f,
//   engine rate(f) == scan_fill(first k flows)(f)   (exact equality, not approximate).
TEST_CASE("cached shares and sorted caps fill exactly like a full scan") {
  Lcg rnd{777};
  for (int trial = 0; trial < 40; ++trial) {
    // Few distinct values (share ties), none exact in binary (the order of subtractions shows in the last bits).
    std::vector<double> capacity;
    for (int i = 0; i < 24; ++i) capacity.push_back(GB * static_cast<double>(1 + rnd(4)) / 3.0);
    // the hub, then up to 3 distinct other resources
    const ArrivalCheck c = fill_against_scan(rnd, capacity, 30, 1, [&](int) { return route_with(rnd, {0}, 3, 23, 1); });
    CHECK(c.mismatches == 0);
  }
}

// The same comparison on components of hundreds of candidates, where the fill keeps per block of 64 candidates its
// smallest share and rescans only the blocks a round changed. 400 resources of 50 capacities (many rounds), 300 flows:
// flow k crosses resources k and k + 1 (a chain: one component) and up to 4 others (about 1,100 hops, so most
// resources carry two flows or more and the later components hold more than the 256 candidates from which the
// blocks are kept). Expectation, after every tenth arrival (the reference scan is quadratic), for every flow f:
//   engine rate(f) == scan_fill(first k flows)(f)   (exact), and block fills were made.
TEST_CASE("block minima fill large components exactly like a full scan") {
  Lcg rnd{4242};
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> capacity;
    for (int i = 0; i < 400; ++i) capacity.push_back(GB * static_cast<double>(1 + rnd(50)) / 37.0);
    const ArrivalCheck c = fill_against_scan(rnd, capacity, 300, 10, [&](int k) {
      return route_with(rnd, {static_cast<ResourceId>(k), static_cast<ResourceId>(k + 1)}, 4, 400, 0);
    });
    INFO("trial " << trial);
    CHECK(c.mismatches == 0);
    CHECK(c.block_fills > 100);
  }
}

namespace {
// Chains like the rails of a multi-NIC host: slot k's route is private links, then the two links it shares with slot
// k-1 (same flows, so the same flow list), a private link, the two it shares with slot k+1, and two more private
// links. Several flows may take the same slot (a group with identical routes), so "private" links are sometimes
// shared and shared pairs carry up to four flows. Capacities come from three values, none exact in binary.
struct ChainCheck : FlowObserver, EventHandler {
  std::vector<double> capacity;
  std::vector<std::vector<ResourceId>> routes;  // per flow, in start order (reserved: the engine keeps pointers)
  std::vector<double> caps;
  std::vector<FlowId> ids;
  std::vector<std::vector<std::size_t>> on;  // the engine's per-resource flow order, mirrored
  std::vector<std::vector<ResourceId>> slot_routes;
  std::uint64_t state = 99;
  std::size_t checks = 0, mismatches = 0, finished = 0;
  bool share_routes = false;  // flows of one slot pass the engine one route array (as ring steps on one connection)
  std::uint64_t next() { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; }
  // Engine rates of the component reached from `seeds` must equal the full scan's, bit for bit.
  void compare(Simulator& sim, const std::vector<ResourceId>& seeds) {
    const std::vector<double> expected = scan_component(capacity, on, routes, caps, seeds);
    for (std::size_t f = 0; f < expected.size(); ++f)
      if (expected[f] >= 0.0) ++checks, mismatches += sim.flow_rate(ids[f]) != expected[f];
  }
  void on_event(Simulator& sim, std::uint64_t) override {
    if (routes.size() == 60) return;
    const std::size_t f = routes.size();
    const std::size_t slot = next() % slot_routes.size();
    routes.push_back(slot_routes[slot]);
    const std::uint64_t c = next() % 3;
    caps.push_back(c == 2 ? std::numeric_limits<double>::infinity() : GB * static_cast<double>(2 + c) / 3.0);
    for (ResourceId r : routes[f]) on[r].push_back(f);
    const double bytes = 1e6 * static_cast<double>(1 + next() % 50);
    const ResourceId* route = share_routes ? slot_routes[slot].data() : routes[f].data();
    ids.push_back(
        sim.start_flow({route, static_cast<std::uint32_t>(routes[f].size()), bytes, Time{0}, caps[f]}, this, f));
    compare(sim, routes[f]);
    sim.schedule(sim.now() + ns(next() % 3000), this, 0);
  }
  // Starts the 60 flows over slot_routes (set, with capacity, before) and runs them to the end.
  void drive(Simulator& sim) {
    on.resize(capacity.size());
    routes.reserve(60);
    sim.schedule(Time{0}, this, 0);
    sim.run();
  }
  void on_flow_done(Simulator& sim, std::uint64_t tag) override {
    ++finished;
    for (ResourceId r : routes[tag]) {  // remove the first occurrence, the last entry taking its place
      auto it = std::find(on[r].begin(), on[r].end(), static_cast<std::size_t>(tag));
      *it = on[r].back();
      on[r].pop_back();
    }
    compare(sim, routes[tag]);  // the survivors were re-rated before the observer is called
  }
};
}  // namespace

namespace {
// Runs ChainCheck's 60 flows over 6 slots: `joined` slots share link pairs with their neighbours (components span
// slots), else each slot is on its own; `share_routes` passes one route array per slot to the engine.
ChainCheck run_chain_check(bool joined, bool share_routes) {
  Simulator sim;
  ChainCheck c;
  c.share_routes = share_routes;
  const double shared[] = {GB / 3.0, 2.0 * GB / 3.0, 0.7 * GB}, own[] = {GB / 7.0, 2.0 * GB / 7.0, GB / 3.0};
  auto link = [&](const double* values) {
    c.capacity.push_back(values[c.next() % 3]);
    return sim.add_resource("l" + std::to_string(c.capacity.size()), Bandwidth{c.capacity.back()});
  };
  constexpr int kSlots = 6;
  std::vector<std::pair<ResourceId, ResourceId>> pair_of(kSlots + 1);  // pair k joins slot k-1 and slot k
  for (auto& p : pair_of) p = {link(shared), link(shared)};
  for (int k = 0; k < kSlots; ++k) {
    const ResourceId a = link(own), b = link(own), d = link(own), e = link(own);
    const auto& left = pair_of[joined ? k : 0];
    const auto& right = joined ? pair_of[k + 1] : std::pair<ResourceId, ResourceId>{link(shared), link(shared)};
    c.slot_routes.push_back({a, joined ? left.first : link(shared), joined ? left.second : link(shared), b, right.first,
                             right.second, d, e});
  }
  c.drive(sim);
  return c;
}
}  // namespace

// The fill leaves out resources no round could pick (a flow's private links other than its tightest one, a link
// whose flow list repeats the previous candidate's at no lower capacity), the search does not revisit private
// links, and a component whose flows all take one route array (the same pointer: steps of one ring connection) is
// filled on that route's tightest link without the search. All must keep the picks of the full scan: after every
// start and every finish, for every flow f of the component re-rated,
//   engine rate(f) == scan_component(state after the event, seeds = that flow's route)(f).
TEST_CASE("pruned candidates fill exactly like a full scan, on starts and finishes") {
  for (const bool joined : {true, false})
    for (const bool share_routes : {false, true}) {
      const ChainCheck c = run_chain_check(joined, share_routes);
      INFO("joined slots " << joined << ", one route array per slot " << share_routes);
      CHECK(c.finished == 60);
      CHECK(c.checks > 300);  // starts and finishes with components of several flows were compared
      CHECK(c.mismatches == 0);
    }
}

namespace {
// Routes the chains above lack: longer than the 32 hops whose sharing the engine keeps per flow (such a flow is read
// hop by hop), resources listed twice in one route (shared by one flow), and both mixed with short routes on the
// same resources. 40 resources, capacities from three values.
ChainCheck run_mixed_check(bool share_routes) {
  Simulator sim;
  ChainCheck c;
  c.share_routes = share_routes;
  const double values[] = {GB / 3.0, 2.0 * GB / 3.0, 0.7 * GB};
  for (int i = 0; i < 40; ++i) {
    c.capacity.push_back(values[c.next() % 3]);
    sim.add_resource("m" + std::to_string(i), Bandwidth{c.capacity.back()});
  }
  std::vector<ResourceId> long_repeating, long_distinct;
  for (ResourceId k = 0; k < 40; ++k) long_repeating.push_back((k * 3) % 10);  // 40 hops over 0..9, each four times
  for (ResourceId k = 5; k < 38; ++k) long_distinct.push_back(k);              // 33 distinct hops
  c.slot_routes = {long_repeating, {1, 2, 1, 3}, {4, 5, 6}, {6, 7, 8, 9}, {0, 9}, long_distinct, {37, 38, 39}, {39}};
  c.drive(sim);
  return c;
}
}  // namespace

// The engine reads a flow's shared hops and its tightest private hop only (kept per flow as flows start and finish);
// routes of more than 32 hops are read hop by hop, and a resource a route lists twice is a shared hop of its flow.
// For every flow f of every component re-rated after a start or a finish: engine rate(f) ==
// scan_component(...)(f), bit for bit.
TEST_CASE("long routes and repeated resources fill exactly like a full scan") {
  for (const bool share_routes : {false, true}) {
    const ChainCheck c = run_mixed_check(share_routes);
    INFO("one route array per slot " << share_routes);
    CHECK(c.finished == 60);
    CHECK(c.checks > 300);
    CHECK(c.mismatches == 0);
  }
}

// A tie the fill breaks by position: flow j crosses U, P1, R, P2; P1 and P2 have capacity s = X/3 and R has X with
// three flows (share X/3 = s). When P1 becomes private to j (flow x on it finishes), P1 is j's first tightest private
// hop, ahead of R in the search. A full scan over the component reached from U then picks P1 first (j = s), leaving
// R (X - s)/2 for y1 and y2: 333,333,333.3333334 bytes/s for X = 1e9, not s = 333,333,333.3333333. Picking R first
// (as when P2 stood for j's private hops) would give y1 and y2 s.
TEST_CASE("a private hop that frees up keeps its place among the candidates") {
  const double X = GB, s = X / 3.0;
  REQUIRE((X - s) / 2.0 != s);  // the case separates the two picks
  Simulator sim;
  const ResourceId U = sim.add_resource("U", Bandwidth{100 * GB}), P1 = sim.add_resource("P1", Bandwidth{s}),
                   R = sim.add_resource("R", Bandwidth{X}), P2 = sim.add_resource("P2", Bandwidth{s});
  const std::vector<ResourceId> rx{P1}, rj{U, P1, R, P2}, ry{R}, rk{U};
  Recorder rec;
  sim.start_flow({rx.data(), 1, 1e3, Time{0}}, &rec, 0);  // x: done long before k starts
  const FlowId j = sim.start_flow({rj.data(), 4, 1e12, Time{0}}, &rec, 1);
  const FlowId y1 = sim.start_flow({ry.data(), 1, 1e12, Time{0}}, &rec, 2);
  const FlowId y2 = sim.start_flow({ry.data(), 1, 1e12, Time{0}}, &rec, 3);
  sim.run(Time{1'000'000'000});  // 1 ms: x has finished
  REQUIRE(rec.done.count(0) == 1);
  const FlowId k = sim.start_flow({rk.data(), 1, 1e12, Time{0}}, &rec, 4);
  const std::vector<double> capacity{100 * GB, s, X, s};
  const std::vector<std::vector<std::size_t>> on{{1, 4}, {1}, {1, 2, 3}, {1}};  // per resource, the engine's order
  const std::vector<std::vector<ResourceId>> routes{rx, rj, ry, ry, rk};
  const std::vector<double> caps(5, std::numeric_limits<double>::infinity());
  const std::vector<double> expected = scan_component(capacity, on, routes, caps, rk);
  CHECK(expected[2] == (X - s) / 2.0);
  CHECK(sim.flow_rate(j) == expected[1]);
  CHECK(sim.flow_rate(y1) == expected[2]);
  CHECK(sim.flow_rate(y2) == expected[3]);
  CHECK(sim.flow_rate(k) == expected[4]);
}

// A flow that crosses a resource twice uses it at twice its own rate, alone in its component as well: route A, B, A
// gets min(cap(A) / 2, cap(B)) -- here 3 GB/s / 2 = 1.5 GB/s below B's 2 GB/s. The same through a route of 34 hops
// (B then 33 distinct hops, A twice among them; the engine reads such routes hop by hop).
TEST_CASE("a flow alone that crosses a resource twice gets half its capacity") {
  for (const bool long_route : {false, true}) {
    Simulator sim;
    const ResourceId A = sim.add_resource("A", Bandwidth::from_GBps(3)),
                     B = sim.add_resource("B", Bandwidth::from_GBps(2));
    std::vector<ResourceId> route{A, B, A};
    if (long_route) {
      route = {B};
      for (int i = 0; i < 31; ++i) route.push_back(sim.add_resource("x" + std::to_string(i), Bandwidth::from_GBps(10)));
      route.insert(route.begin() + 5, A);
      route.push_back(A);
    }
    INFO("hops " << route.size());
    REQUIRE(route.size() == (long_route ? 34u : 3u));
    Recorder rec;
    const FlowId f = sim.start_flow({route.data(), static_cast<std::uint32_t>(route.size()), 3 * GB, Time{0}}, &rec, 0);
    CHECK(sim.flow_rate(f) == 1.5 * GB);
    sim.run();
    CHECK(rec.done.at(0) == Time{2'000'000'000'000});  // 3 GB at 1.5 GB/s: 2 s
  }
}
