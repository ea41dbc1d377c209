// The simulation engine: an event queue plus a flow-level network. Resources (directed links, shared devices such
// as a host-memory copy path or a pool of socket threads) have a capacity in bytes/s; a flow crosses a route of
// resources, starts after a latency, and shares capacity max-min fairly with the flows it meets. When a flow starts
// or finishes, rates are recomputed only for the connected component of flows that share resources with it, never
// for the whole network. Invariants: no resource is ever allocated above its capacity; the same calls produce the
// same event order and the same times (integer picoseconds). Knows nothing about GPUs or collectives.
// Finish events of flows that share one route are queued one at a time (set_defer_finishes; the order, times and
// event count are those of queueing every one, which set_defer_finishes(false) does as the reference), and many
// flows on one route at an equal share are re-rated per class of remaining bytes (route groups), not per flow.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/kernel/event_queue.hpp"
#include "vgsim/kernel/flow_list.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim {

using ResourceId = std::uint32_t;
using FlowId = std::uint32_t;

class Simulator;

// Receives a timer event scheduled with Simulator::schedule.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(Simulator& sim, std::uint64_t tag) = 0;
  // A hint, given one event ahead: on_event(tag) is next. May ask for the state it will read (a prefetch); never
  // changes anything.
  virtual void prefetch_event(std::uint64_t /*tag*/) const {}
};

// Receives the completion of a flow started with Simulator::start_flow.
class FlowObserver {
 public:
  virtual ~FlowObserver() = default;
  virtual void on_flow_done(Simulator& sim, std::uint64_t tag) = 0;
  // A hint, given when the flow's finish begins: on_flow_done(tag) follows. May prefetch; never changes anything.
  virtual void prefetch_flow_done(std::uint64_t /*tag*/) const {}
};

struct FlowSpec {
  const ResourceId* route = nullptr;  // caller-owned; must stay valid until the flow finishes
  std::uint32_t hops = 0;
  double bytes = 0.0;                                         // bytes to move (after any protocol overhead)
  Time latency{0};                                            // delay before the first byte moves
  double max_rate = std::numeric_limits<double>::infinity();  // per-flow cap in bytes/s (e.g. a protocol limit)
};

struct ResourceStats {
  std::string name;
  double capacity_bytes_per_s;
  double bytes_carried;  // sum of the bytes of all completed flows that crossed it
  std::uint64_t flows;   // completed flows that crossed it
  std::uint32_t peak_concurrent_flows;
};

class Simulator {
 public:
  Simulator() = default;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  ResourceId add_resource(std::string name, Bandwidth capacity);
  std::size_t resource_count() const { return resources_.size(); }
  const std::string& resource_name(ResourceId r) const { return names_[r]; }
  Bandwidth resource_capacity(ResourceId r) const { return Bandwidth{resources_[r].capacity}; }

  Time now() const { return now_; }

  // Calls handler->on_event(tag) at `at` (>= now()).
  void schedule(Time at, EventHandler* handler, std::uint64_t tag);
  // Starts a flow now; observer->on_flow_done(tag) runs when its last byte arrives.
  FlowId start_flow(const FlowSpec& spec, FlowObserver* observer, std::uint64_t tag);
  // Current max-min rate of an active flow in bytes/s (0 while it is still in its latency phase).
  double flow_rate(FlowId f) const { return flows_[f].grouped ? groups_[group_of_[f]].rate : flows_[f].rate; }

  // Runs events until the queue is empty or the next event is after `until`.
  void run(Time until = Time::max());
  // Whether the finish events of flows re-rated together on one route wait aside while an earlier one of theirs is
  // queued (default; see reschedule_one_route). Off: each is queued at once, the reference the tests compare against.
  // Neither changes a time, the event order or events_processed() after a run that empties the queue.
  void set_defer_finishes(bool on);

  // Popped events, with the stale finish events removed in bulk or never queued (each counted as if it had been
  // queued and popped: the count is the same with or without deferral once the queue is empty).
  std::uint64_t events_processed() const { return events_processed_; }
  // Of those, the finish events that were deferred and went out of date without ever being queued.
  std::uint64_t finishes_never_queued() const { return never_queued_; }
  // Re-ratings made per class in a route group (rerate_group), not per flow.
  std::uint64_t group_rerates() const { return group_rerates_; }
  // Re-ratings made per class in a capped route group (every member at its cap; rerate_capped_group).
  std::uint64_t capped_group_rerates() const { return capped_group_rerates_; }
  // Fills of a component large enough to keep block minima (kBlockFillMin candidates or more).
  std::uint64_t block_fills() const { return block_fills_; }
  std::uint64_t flows_completed() const { return flows_completed_; }
  std::size_t active_flows() const { return active_flow_count_; }
  ResourceStats resource_stats(ResourceId r) const;
  // Sum of rates of active flows on `r` (bytes/s); never above its capacity (the conservation invariant).
  double resource_load(ResourceId r) const;

 private:
  enum EventKind : std::uint32_t { kTimer = 0, kFlowActivate = 1, kFlowFinish = 2 };

  // The records the search, the fill and every event touch are one 64-byte line each (a resource's flow list holds
  // up to four ids in place); names, a flow's payload and the fill's per-candidate arithmetic are kept apart. At
  // 100,000 GPUs the resources and flows an event touches are rarely in cache, so each line read is a miss.
  struct alignas(64) Resource {
    double capacity = 0.0;
    double bytes_carried = 0.0;  // sum of the bytes of all completed flows that crossed it
    std::uint64_t flow_count = 0;
    std::uint32_t peak = 0;
    // scratch for the fair-share fill
    std::uint32_t mark = 0;
    std::uint32_t comp_index = 0;  // position among the fill's candidates (kNoCandidate: never picked)
    std::uint32_t unfixed = 0;
    FlowList flows;  // active flows crossing it
  };
  struct alignas(64) Flow {
    const ResourceId* route = nullptr;
    double remaining = 0.0;
    double rate = 0.0;
    double max_rate = 0.0;
    Time last{0};
    std::uint32_t mark = 0;
    std::uint32_t own = 0;        // scratch for the fill: the candidate of its tightest private resource
    std::uint32_t own_epoch = 0;  // search in which `own` was set
    // A stale event matches only after 2^32 reschedules of one slot while it waits in the queue.
    std::uint32_t version = 0;
    // While active, with a route of at most kMaskHops hops: bit h is set when route[h] carries another flow (or this
    // one twice), and `tight` is the first of its other (private) hops with the smallest capacity, kTightNone when
    // there is none, kTightUnknown when it is to be found again. The search and the fill read only those hops.
    std::uint32_t shared = 0;
    std::uint16_t hops = 0;
    std::uint8_t tight = kTightNone;  // kUnmasked: a longer route, every hop read
    bool active : 1 = false;
    bool fixed : 1 = false;
    bool in_use : 1 = false;
    bool finish_queued : 1 = false;  // a finish event of it is in the queue (earlier ones are stale)
    // Its current finish event waits aside (not queued; its time and sequence in aside_[slot]); an earlier finish
    // event of a flow on the same route is queued.
    bool deferred : 1 = false;
    // Member of a route group: its progress, rate and deferred event are kept by the group (RouteGroup), not here.
    bool grouped : 1 = false;
  };
  static_assert(sizeof(Resource) == 64 && sizeof(Flow) == 64, "one cache line per record");
  // What only a flow's start and completion read.
  struct FlowPayload {
    double bytes = 0.0;
    FlowObserver* observer = nullptr;
    std::uint64_t tag = 0;
  };

  static constexpr std::uint32_t kMaskHops = 32;
  static constexpr std::uint8_t kTightNone = 0xFF;
  static constexpr std::uint8_t kTightUnknown = 0xFE;
  static constexpr std::uint8_t kUnmasked = 0xFD;

  void activate(FlowId f);
  // Keep Flow::shared and Flow::tight of flow g true when resource `id` (hop `i` of `route`) becomes shared (a second
  // flow arrived) or private to g (the other one left).
  void note_shared(FlowId g, ResourceId id, const ResourceId* route, std::uint32_t i);
  void note_private(FlowId g, ResourceId id, const ResourceId* route, std::uint32_t i);
  // The hop of g's route where `id` (hop i of `route`, held by g once) is.
  static std::uint32_t hop_of(const Flow& g, ResourceId id, const ResourceId* route, std::uint32_t i);
  // Whether a resource of fl's route carries another flow, or fl twice.
  bool shares_a_hop(const Flow& fl) const;
  // The first private hop of fl with the smallest capacity (kTightNone when none).
  std::uint8_t tightest_private(const Flow& fl) const;
  // The search reaching fl's tightest private hop (the only one of its private hops a round can pick).
  void add_private(Flow& fl, ResourceId id, const Resource& r);
  void finish(FlowId f);
  // Recomputes max-min rates for the component reachable from the given resources; `fresh` (may be kNone) is a
  // flow that just became active and always gets a finish event.
  void recompute(const ResourceId* seeds, std::uint32_t count, FlowId fresh);
  // Fills comp_flows_ with the component reachable from the seeds, in breadth-first order, and candidates_/share_
  // with the resources a round of the fill can pick, in the order they are reached.
  void collect_component(const ResourceId* seeds, std::uint32_t count);
  // Called once per resource the search reaches: appends it to the candidates unless no round could pick it.
  void add_candidate(ResourceId id, Resource& r);
  // Search marks of a new search (all marks cleared once when the counter wraps).
  void next_epoch();
  // The component's flows (comp_flows_): progress brought up to now at the old rates (kept in old_rates_), unfixed;
  // and cap_order_: their finite per-flow caps with their component position, ascending (collected in the same pass).
  void bring_progress_up();
  // A finish event for `fresh` and for every component flow whose rate changed (old_rates_); a deferred flow whose
  // rate did not change has its aside event queued.
  void reschedule_changed(FlowId fresh);
  // The same with deferral on, when every component flow takes one route array: only the earliest of the new events
  // is queued and the others wait aside: any event that could touch them (that one's pop first of all) re-rates the
  // whole route, which decides again. rerate(i, flow) is called first for each comp_flows_[i] and returns its old
  // rate (old_rates_[i] after a fill; or it brings the progress up and sets the rate itself, in the same pass).
  // Returns how many new events it made.
  template <class Rerate>
  std::size_t reschedule_one_route(FlowId fresh, Rerate rerate);
  // Progressive filling of the collected component's flows (their rates; progress already brought up to now).
  void fill();
  void schedule_finish(FlowId f);
  // The flow's previous finish event goes out of date: counted as stale in the queue, or as processed when it was
  // never queued (where popping it stale would have counted it).
  void retire_finish(Flow& fl);
  void remove_stale();  // drops the stale finish events from the queue (counted as processed)
  // Queues a deferred flow's aside event, with its time and sequence number.
  void queue_aside(FlowId f);
  // Whether a finish event (flow slot, version) is the flow's current one; the others are stale.
  bool finish_is_live(FlowId f, std::uint64_t version) const {
    const Flow& fl = flows_[f];
    return fl.in_use && fl.active && fl.version == version;
  }
  // The component is the single flow f: brings its progress up to now and gives it min(cap, route capacities).
  void rerate_alone(FlowId f, FlowId fresh);
  // When every flow on the seed resources takes one route array (the same pointer) and each resource of that route
  // carries exactly those flows, once each, the component is those flows: returns the first seed holding them (its
  // flow list is the search's visiting order) and their smallest cap; else first = kNoResource. The common case of a
  // ring connection whose next step starts while the previous one drains (two or three flows on one route), and of
  // the hundreds of NVLS chunks on one GPU's switch leg.
  struct OneRoute {
    ResourceId first;
    double min_cap;  // bytes/s (infinite when no flow has a cap)
  };
  OneRoute one_route_seed(const ResourceId* seeds, std::uint32_t count);
  // Re-rates such a component without the search: the fill restricted to the route's tightest resource, which picks
  // exactly what the fill over all its resources would (they see the same subtractions in the same order).
  void rerate_one_route(OneRoute one, FlowId fresh);
  // The one flow on these resources if it is alone on its whole route too (its component is itself); else kNone.
  FlowId sole_flow(const ResourceId* route, std::uint32_t hops) const;

  // A route group: a one-route component of at least kMinGroup flows, all re-rated together at the last start or
  // finish on the route, every one at the equal share (no cap binding), every one with a new finish event. Its flows
  // then differ only in their remaining bytes, which take a few values (a burst of equal steps, NVLS chunks on a
  // switch leg): each value is a class. While the route carries only the group's flows, the next start or finish
  // on it is re-rated per class (rerate_group), with the same arithmetic on the same inputs as per flow, so the
  // rates, times, events and counts are those of the per-flow path; the flows' own records wait. Anything else
  // that reaches a member (a flow on another route joining, a binding cap, the general search) first writes the
  // group back into its flows' records (dissolve_group), as the per-flow path would have left them.
  // A capped group is the other steady state of such a route: every member has the same per-flow cap, the caps sum
  // below the route's capacity (caps_fit), so the fill gives each its cap and a start or finish changes no member's
  // rate: the members keep their own queued events, and only their progress (per class) and the fresh flow's event
  // are made (rerate_capped_group). The latency-only replays of the calibration fit (capacities x 1e6) run there.
  struct GroupClass {
    double remaining;  // bytes left at `last`
    Time at;           // finish time of its members' events
    std::uint32_t members;
  };
  struct RouteGroup {
    const ResourceId* route = nullptr;
    bool capped = false;  // every member at its cap, `rate` (see above); the event fields below are unused then
    std::uint32_t hops = 0;
    std::uint32_t n = 0;    // members
    double capacity = 0.0;  // the route's smallest, bytes/s
    double rate = 0.0;      // every member's, bytes/s
    double min_cap = 0.0;   // the members' smallest cap and how many have it
    std::uint32_t min_cap_count = 0;
    Time last{0};
    std::uint64_t seq0 = 0;        // the member at position p of `order` took sequence number seq0 + p
    FlowId queued = kNone;         // the member whose event is queued (the others' wait aside)
    std::uint32_t queued_pos = 0;  // its position in `order`
    // The member that left since the last re-rating (always the queued one): its position and class, kNone if none.
    std::uint32_t left_pos = kNone;
    std::uint16_t left_class = 0;
    bool alive = false;
    std::vector<GroupClass> classes;
    // The route's flow list at the last re-rating. Between two re-ratings the list changes by one start (appended)
    // or one finish (its last entry moved into the finished flow's place, as Simulator::finish removes it), so
    // rerate_group updates it by that one change instead of copying the list.
    std::vector<FlowId> order;
  };
  // Forms a group of comp_flows_ (the route's flows, just re-rated by the one-pass path with these values); capped:
  // just given their common cap `rate` by the fill, every one's finish event queued (seq0 unused).
  void make_group(double capacity, double rate, std::uint64_t seq0, bool capped = false);
  // Whether the fill on a route of smallest capacity `capacity` gives each of n flows capped at `cap` its cap (see
  // route_groups.cpp for the bound).
  static bool caps_fit(std::uint32_t n, double cap, double capacity);
  // Re-rates group g after `fresh` joined the route (kNone: a member left), per class; false when the group's
  // conditions no longer hold (nothing changed then).
  bool rerate_group(std::uint32_t g, FlowId fresh);
  // The same for a capped group, called by rerate_group once the route holds n = members (+ fresh) flows alone.
  bool rerate_capped_group(std::uint32_t g, FlowId fresh, std::uint32_t n);
  // The finishing flow f leaves its group; returns the group.
  std::uint32_t leave_group(FlowId f);
  // Writes group g back into its members' records (progress, rate, aside events) and ends it.
  void dissolve_group(std::uint32_t g);
  // The group of the flows on `route` if they form one, else kNoGroup.
  std::uint32_t group_on(const ResourceId* route) const;
  static constexpr std::uint32_t kNoGroup = std::numeric_limits<std::uint32_t>::max();
  // Smallest component kept as a group. An engineering threshold, not a model parameter: groups change speed only,
  // never a result; below it the per-flow pass is as cheap. Chosen, not tuned.
  static constexpr std::uint32_t kMinGroup = 16;
  // A group with more distinct remaining byte counts is not kept (the per-class work would approach the per-flow
  // work). An engineering threshold like kMinGroup, chosen, not tuned: NVLS switch legs measured 2-9 classes.
  static constexpr std::size_t kMaxClasses = 64;

  // The arithmetic every re-rating path shares (the per-flow, one-pass and group paths must agree to the bit):
  // bytes left after moving at `rate` for `elapsed`;
  static double progressed(double remaining, double rate, Time elapsed) {
    return std::max(0.0, remaining - rate * elapsed.s());
  }
  // whether a flow's rate changed enough to need a new finish event;
  static bool rate_changed(double rate, double old) { return std::abs(rate - old) > 1e-12 * std::max(rate, old); }
  // the smallest cap seen so far and how many flows have it, with one more flow's cap.
  static void count_cap(double cap, double& min_cap, std::uint32_t& count) {
    if (cap < min_cap) min_cap = cap, count = 0;
    if (cap == min_cap) ++count;
  }

  static constexpr FlowId kNone = std::numeric_limits<FlowId>::max();
  static constexpr ResourceId kNoResource = std::numeric_limits<ResourceId>::max();
  static constexpr std::uint32_t kNoCandidate = std::numeric_limits<std::uint32_t>::max();
  // Stale finish events are removed in bulk only above this many (and when they are most of the queue), so a small
  // queue is never rescanned. An engineering threshold, not a model parameter: it changes speed only, never a result
  // (the live events keep their order); chosen, not tuned (no other value was measured).
  static constexpr std::size_t kStaleRemovalMin = 4096;

  EventQueue queue_;
  Time now_{0};
  std::vector<Resource> resources_;
  std::vector<std::string> names_;  // per resource
  std::vector<Flow> flows_;
  std::vector<FlowPayload> payloads_;  // per flow slot
  struct Aside {                       // a deferred finish event's key
    Time at;
    std::uint64_t seq;
  };
  std::vector<Aside> aside_;  // per flow slot
  std::vector<RouteGroup> groups_;
  std::vector<std::uint32_t> free_groups_;
  std::uint32_t live_groups_ = 0;
  std::vector<std::uint32_t> group_of_;  // per flow slot, while grouped
  std::vector<std::uint16_t> class_of_;  // per flow slot, while grouped
  std::uint64_t group_rerates_ = 0;
  std::uint64_t capped_group_rerates_ = 0;
  std::uint64_t block_fills_ = 0;
  bool defer_finishes_ = true;
  std::vector<FlowId> free_flows_;
  std::vector<EventHandler*> handlers_;
  std::uint32_t last_handler_ = 0;      // index of the handler of the last timer (a lookup hint)
  std::uint64_t events_processed_ = 0;  // popped events, plus stale ones removed before their time or never queued
  std::size_t stale_queued_ = 0;        // superseded finish events still in the queue
  std::uint64_t never_queued_ = 0;      // deferred finish events superseded before they were queued
  std::uint64_t flows_completed_ = 0;
  std::size_t active_flow_count_ = 0;
  std::uint32_t epoch_ = 0;
  // scratch buffers reused by recompute()
  std::vector<ResourceId> comp_resources_;  // the search's queue: seeds and resources shared by several flows
  std::vector<FlowId> comp_flows_;
  std::vector<double> old_rates_;
  std::vector<ResourceId> candidates_;  // the component's resources that a round of the fill can pick
  std::vector<double> share_;           // per candidate: max(0, remaining) / unfixed (infinite once all are fixed)
  std::vector<double> remaining_;       // per candidate: capacity not yet given to fixed flows
  // A large component's fill keeps the smallest share of each block of kFillBlock candidates (value and first
  // position), rescanning only the blocks whose shares changed since the last round, then the block minima: the
  // same pick as a scan of all candidates (the smallest share, the first in component order on ties).
  std::vector<double> block_min_;
  std::vector<std::uint32_t> block_arg_;
  std::vector<std::uint8_t> block_dirty_;
  std::vector<std::uint32_t> dirty_blocks_;
  // Engineering thresholds, not model parameters: they change speed only, never a pick; chosen, not tuned.
  static constexpr std::uint32_t kFillBlockBits = 6;         // blocks of 64 candidates
  static constexpr std::size_t kBlockFillMin = 256;          // candidates from which the fill keeps block minima
  std::vector<std::pair<double, std::uint32_t>> cap_order_;  // finite caps with their component position, sorted
};

// Inline: on every re-rating's path (simulator.cpp and route_groups.cpp).
[[gnu::always_inline]] inline void Simulator::retire_finish(Flow& fl) {
  if (fl.deferred) {  // never queued: counted now, where the reference pops it as stale
    fl.deferred = false;
    ++events_processed_;
    ++never_queued_;
  } else if (fl.finish_queued) {
    fl.finish_queued = false;
    // The flow's previous finish event is now stale. When stale events are most of the queue (many flows re-rated at
    // every start and finish, as on a multicast switch), they are removed at once instead of being popped one by one
    // through the heap; the live events keep their keys and order, and the removed ones count as processed, as they
    // would have when popped.
    if (++stale_queued_ > kStaleRemovalMin && stale_queued_ > queue_.size() / 2) remove_stale();
  }
}

}  // namespace vgsim
