// Route groups (see Simulator::RouteGroup in include/vgsim/kernel/simulator.hpp): many flows on one route at an
// equal share, or all at one common cap (capped), re-rated per class of equal remaining bytes instead of per flow,
// and written back into the flows' records whenever anything else would read them. Each step repeats the per-flow
// path's arithmetic, sequence numbers and event counts (Simulator::rerate_one_route and reschedule_one_route in
// simulator.cpp), so no time, event order or count differs; tests/kernel/test_deferred_finishes.cpp compares both
// against the eager reference.
#include <algorithm>
#include <cmath>
#include <limits>

#include "vgsim/kernel/simulator.hpp"

namespace vgsim {

void Simulator::set_defer_finishes(bool on) {
  if (!on)
    for (std::uint32_t g = 0; g < groups_.size(); ++g)
      if (groups_[g].alive) dissolve_group(g);
  defer_finishes_ = on;
}

std::uint32_t Simulator::group_on(const ResourceId* route) const {
  // A new flow is appended to the lists, so the first flow on the route's first resource is an older one: if the
  // route carries a group, it is a member.
  const FlowList& on = resources_[route[0]].flows;
  if (on.size() < 2) return kNoGroup;
  const FlowId head = on[0];
  if (!flows_[head].grouped) return kNoGroup;
  const std::uint32_t g = group_of_[head];
  return groups_[g].route == route ? g : kNoGroup;
}

bool Simulator::caps_fit(std::uint32_t n, double cap, double capacity) {
  // The fill on the route's tightest resource (rerate_one_route) fixes n equal caps c while c <= share_k =
  // max(0, r_k) / (n - k), r_0 = C, r_k = r_{k-1} - c rounded. Each subtraction errs by at most u C (u = 2^-53), so
  // r_k >= C - k c - k u C and share_k >= (C - k c - k u C)(1 - u) >= C (1 - (k + 1) u) - k c, which is >= (n - k) c
  // (every round picks the cap) when n c <= C (1 - (n + 1) u). With n < 2^23, (n + 1) u < 1e-9: the margin below
  // (also covering the rounding of n x c) proves it.
  return n < (1u << 23) && std::isfinite(cap) && static_cast<double>(n) * cap <= capacity * (1.0 - 2e-9);
}

void Simulator::make_group(double capacity, double share, std::uint64_t seq0, bool capped) {
  // comp_flows_ is the route's flow list, every flow just given `share` and a new event: the one queued, the others
  // aside under seq0 + position (capped: every flow at its cap `share`, its own event queued). A route listing a
  // resource twice holds its flows twice there: no group (nor for a route longer than a mask, where that check would
  // cost hops^2).
  const Flow& head = flows_[comp_flows_[0]];
  if (head.hops > kMaskHops) return;
  for (std::uint32_t i = 0; i < head.hops; ++i)
    for (std::uint32_t j = i + 1; j < head.hops; ++j)
      if (head.route[i] == head.route[j]) return;
  std::uint32_t gi;
  if (!free_groups_.empty()) {
    gi = free_groups_.back();
    free_groups_.pop_back();
  } else {
    gi = static_cast<std::uint32_t>(groups_.size());
    groups_.emplace_back();
  }
  RouteGroup& g = groups_[gi];
  g.route = head.route;
  g.capped = capped;
  g.hops = head.hops;
  g.n = static_cast<std::uint32_t>(comp_flows_.size());
  g.capacity = capacity;
  g.rate = share;
  g.last = now_;
  g.seq0 = seq0;
  g.queued = kNone;
  g.left_pos = kNone;
  g.min_cap = std::numeric_limits<double>::infinity();
  g.min_cap_count = 0;
  g.classes.clear();
  g.order.assign(comp_flows_.begin(), comp_flows_.end());
  for (std::uint32_t p = 0; p < comp_flows_.size(); ++p) {
    const FlowId f = comp_flows_[p];
    const Flow& fl = flows_[f];
    std::size_t c = 0;
    while (c < g.classes.size() && !(g.classes[c].remaining == fl.remaining)) ++c;
    if (c == g.classes.size()) {
      if (c == kMaxClasses) {  // too varied to gain: the flows keep their records
        free_groups_.push_back(gi);
        return;
      }
      g.classes.push_back({fl.remaining, now_ + transfer_time(fl.remaining, Bandwidth{share}), 0});
    }
    ++g.classes[c].members;
    class_of_[f] = static_cast<std::uint16_t>(c);
    if (!fl.deferred) g.queued = f, g.queued_pos = p;
    count_cap(fl.max_rate, g.min_cap, g.min_cap_count);
  }
  for (FlowId f : comp_flows_) {
    flows_[f].grouped = true;
    group_of_[f] = gi;
  }
  g.alive = true;
  ++live_groups_;
}

std::uint32_t Simulator::leave_group(FlowId f) {
  // Only the queued member finishes (the others' events are not queued; in a capped group any member, each has its
  // own); the group keeps its other members.
  Flow& fl = flows_[f];
  const std::uint32_t gi = group_of_[f];
  RouteGroup& g = groups_[gi];
  --g.n;
  --g.classes[class_of_[f]].members;
  if (g.capped) {
    fl.grouped = false;
    return gi;
  }
  if (fl.max_rate == g.min_cap) --g.min_cap_count;  // at 0, recounted by rerate_group
  g.left_pos = g.queued_pos;
  g.left_class = class_of_[f];
  g.queued = kNone;
  fl.grouped = false;
  return gi;
}

bool Simulator::rerate_capped_group(std::uint32_t gi, FlowId fresh, std::uint32_t n) {
  RouteGroup& g = groups_[gi];
  // rerate_one_route's capped path on the same route: every flow, the fresh one too, gets the common cap, so no
  // member's rate changes (no event of theirs is touched) and the fresh flow gets its finish event.
  if (fresh != kNone && !(flows_[fresh].max_rate == g.rate)) return false;
  if (!caps_fit(n, g.rate, g.capacity)) return false;
  // Progress, as bring_progress_up per flow. Kept should the fresh flow then find no class: the write-back leaves
  // the records as the per-flow path's own progress to now would.
  if (now_ > g.last)
    for (GroupClass& c : g.classes)
      if (c.members > 0) c.remaining = progressed(c.remaining, g.rate, now_ - g.last);
  g.last = now_;
  std::size_t fresh_class = 0;
  if (fresh != kNone) {  // the first class holding its bytes, else the first free one (it has no progress: rate 0)
    const double bytes = flows_[fresh].remaining;
    std::size_t free_class = g.classes.size();
    for (; fresh_class < g.classes.size(); ++fresh_class) {
      const GroupClass& c = g.classes[fresh_class];
      if (c.members > 0 && c.remaining == bytes) break;
      if (c.members == 0 && free_class == g.classes.size()) free_class = fresh_class;
    }
    if (fresh_class == g.classes.size()) {
      fresh_class = free_class;
      if (fresh_class == kMaxClasses) return false;
      if (fresh_class == g.classes.size()) g.classes.push_back({bytes, Time{0}, 0});
      g.classes[fresh_class].remaining = bytes;
    }
  }
  ++capped_group_rerates_;
  if (fresh != kNone) {
    Flow& fl = flows_[fresh];
    fl.last = now_;
    fl.fixed = true;
    fl.rate = g.rate;
    schedule_finish(fresh);
    ++g.classes[fresh_class].members;
    class_of_[fresh] = static_cast<std::uint16_t>(fresh_class);
    group_of_[fresh] = gi;
    fl.grouped = true;
    ++g.n;
  }
  return true;
}

bool Simulator::rerate_group(std::uint32_t gi, FlowId fresh) {
  RouteGroup& g = groups_[gi];
  // The route still carries the group's flows alone (and `fresh`): each of its resources holds n entries.
  const std::uint32_t n = g.n + (fresh != kNone ? 1 : 0);
  if (n < kMinGroup) return false;
  for (std::uint32_t h = 0; h < g.hops; ++h)
    if (resources_[g.route[h]].flows.size() != n) return false;
  if (g.capped) return rerate_capped_group(gi, fresh, n);
  // The members' smallest cap, recounted when its last holder left (a read of every member's record).
  double min_cap = g.min_cap;
  std::uint32_t min_cap_count = g.min_cap_count;
  const FlowList& on = resources_[g.route[0]].flows;
  if (min_cap_count == 0) {
    min_cap = std::numeric_limits<double>::infinity();
    for (FlowId f : on)
      if (f != fresh) count_cap(flows_[f].max_rate, min_cap, min_cap_count);
  }
  if (fresh != kNone) count_cap(flows_[fresh].max_rate, min_cap, min_cap_count);
  // The one-pass path's conditions: the fill picks no cap, and every member's rate changes (so each gets a new event).
  const double share = g.capacity / static_cast<double>(n);
  if (!(min_cap > share)) return false;
  const double old = g.rate;
  if (!rate_changed(share, old)) return false;
  // A free class for the fresh flow, should its bytes match no class (checked before anything changes).
  std::size_t free_class = 0;
  while (free_class < g.classes.size() && g.classes[free_class].members > 0) ++free_class;
  if (fresh != kNone && free_class == kMaxClasses) return false;
  // Progress, as bring_progress_up per flow: the members share their rate and last re-rating; the fresh flow has
  // none (rate 0), and then joins the class holding its bytes.
  if (now_ > g.last)
    for (GroupClass& c : g.classes)
      if (c.members > 0) c.remaining = progressed(c.remaining, old, now_ - g.last);
  std::size_t fresh_class = free_class;
  if (fresh != kNone) {
    const double bytes = flows_[fresh].remaining;
    for (std::size_t c = 0; c < g.classes.size(); ++c)
      if (g.classes[c].members > 0 && g.classes[c].remaining == bytes) {
        fresh_class = c;
        break;
      }
    if (fresh_class == g.classes.size()) g.classes.push_back({bytes, Time{0}, 0});
    if (g.classes[fresh_class].members == 0) g.classes[fresh_class].remaining = bytes;
  }
  ++group_rerates_;
  g.last = now_;
  g.rate = share;
  g.min_cap = min_cap;
  g.min_cap_count = min_cap_count;
  // The per-flow path's retirements: the queued member's event goes stale (it is still queued), every other member's
  // aside event is replaced (counted as processed where the queue would have popped it).
  const std::uint64_t aside = g.n - (g.queued != kNone ? 1 : 0);
  events_processed_ += aside;
  never_queued_ += aside;
  if (g.queued != kNone) {
    Flow& q = flows_[g.queued];
    retire_finish(q);
    ++q.version;
  }
  if (fresh != kNone) {
    ++g.classes[fresh_class].members;
    class_of_[fresh] = static_cast<std::uint16_t>(fresh_class);
    group_of_[fresh] = gi;
    flows_[fresh].grouped = true;
    ++g.n;
  }
  // The member queued before (or the one that left) was the first in list order of its class, and no member before
  // it had an earlier or equal event time. If its class is again the only earliest one, no member before its place
  // can be first now: the search for the first member starts there.
  std::uint32_t from = 0;
  std::size_t from_class = kMaxClasses;
  if (fresh == kNone && g.left_pos != kNone) {
    from = g.left_pos, from_class = g.left_class;
    g.order[g.left_pos] = g.order.back();  // Simulator::finish's removal
    g.order.pop_back();
  } else if (fresh != kNone) {
    from = g.queued_pos, from_class = g.queued != kNone ? class_of_[g.queued] : kMaxClasses;
    g.order.push_back(fresh);
  }
  g.left_pos = kNone;
  // New events per class; every member takes a sequence number in list order, the earliest (first on ties) queued.
  Time first_at = Time::max();
  std::size_t first_class = kMaxClasses, ties = 0;
  for (std::size_t c = 0; c < g.classes.size(); ++c) {
    GroupClass& k = g.classes[c];
    if (k.members == 0) continue;
    k.at = now_ + transfer_time(k.remaining, Bandwidth{share});
    if (k.at < first_at)
      first_at = k.at, first_class = c, ties = 1;
    else if (k.at == first_at)
      ++ties;
  }
  if (ties != 1 || first_class != from_class) from = 0;
  g.seq0 = queue_.reserve(n);
  std::uint32_t p = from;
  while (g.classes[class_of_[g.order[p]]].at != first_at) ++p;
  const FlowId q = g.order[p];
  Flow& ql = flows_[q];
  ++ql.version;
  ql.deferred = false;  // (its record may still say so from before the group)
  queue_.push_reserved(first_at, g.seq0 + p, kFlowFinish, q, ql.version);
  ql.finish_queued = true;
  g.queued = q;
  g.queued_pos = p;
  return true;
}

void Simulator::dissolve_group(std::uint32_t gi) {
  RouteGroup& g = groups_[gi];
  if (!g.alive) return;
  if (g.capped) {  // the members are the route's flows of this group (a member leaves the route's lists only later)
    for (FlowId f : resources_[g.route[0]].flows) {
      Flow& fl = flows_[f];
      if (!fl.grouped || group_of_[f] != gi) continue;
      fl.remaining = g.classes[class_of_[f]].remaining;
      fl.last = g.last;
      fl.rate = g.rate;
      fl.fixed = true;
      fl.grouped = false;
      group_of_[f] = kNoGroup;
    }
    g.alive = false;
    --live_groups_;
    free_groups_.push_back(gi);
    return;
  }
  for (std::uint32_t p = 0; p < g.order.size(); ++p) {
    const FlowId f = g.order[p];
    Flow& fl = flows_[f];
    if (!fl.grouped || group_of_[f] != gi) continue;  // left since (finished)
    const GroupClass& c = g.classes[class_of_[f]];
    fl.remaining = c.remaining;
    fl.last = g.last;
    fl.rate = g.rate;
    fl.fixed = true;
    fl.grouped = false;
    group_of_[f] = kNoGroup;
    if (f == g.queued) continue;  // its event is queued, its record up to date
    fl.deferred = true;
    fl.finish_queued = false;
    aside_[f] = Aside{c.at, g.seq0 + p};
  }
  g.alive = false;
  --live_groups_;
  free_groups_.push_back(gi);
}

}  // namespace vgsim
