// Event loop and incremental max-min fair sharing (see include/vgsim/kernel/simulator.hpp).
//
// Fair share: progressive filling restricted to the connected component of the changed flow. Repeatedly take the
// tightest constraint, either the resource with the smallest remaining capacity per unfixed flow or the smallest
// per-flow cap, fix those flows at that rate and subtract it from every resource they cross. Flows whose rate did not
// change keep their pending finish event; the others get a new one (older events are recognised by their version).
// The rounds scan only the resources that can be picked (add_candidate): with several channels most links of a route
// carry one flow, and only the tightest of those matters; the picks, rates and events are those of a full scan. Each
// active flow keeps a mask of its shared hops and its tightest private hop (updated where a resource's flow count
// crosses 1 <-> 2), so the search and the fill do not even read its other private hops.
// A component whose flows all take one route array (the steps of one ring connection overlapping in NCCL's slots:
// 84 % of the re-ratings of a 1 GiB 8-channel ring at 256 and at 1,024 ranks) is recognised without the search
// (one_route_seed) and filled on the route's tightest link alone; its rates and finish events are bit-identical to the
// general path. Its flows' new finish events are queued one at a time (reschedule_one_route: the others wait aside
// under the sequence numbers they would have taken), with the times, order and event count of queueing them all.
// When no cap binds there (hundreds of NVLS chunks on one switch leg), every flow takes capacity / n and progress,
// rate and event are made in one pass, reusing the arithmetic of a flow whose inputs equal the previous one's; with
// 16 or more such flows the route becomes a group, re-rated per class of remaining bytes (route_groups.cpp); so it
// does when 16 or more flows all ride at one common cap that the route holds (a capped group: no member's rate moves).
#include "vgsim/kernel/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vgsim {

namespace {

// The position of the smallest of v[0, n) (n > 0; no NaN and no negative zero, as the fill's shares), the first one
// on ties: what `best = v[i] < v[best] ? i : best` over i = 1 .. n-1 picks. That scan makes every comparison wait for
// the previous one's load; here four independent minimum chains, then the first position holding the minimum.
std::size_t first_min(const double* v, std::size_t n) {
  double m0 = v[0], m1 = v[0], m2 = v[0], m3 = v[0];
  std::size_t i = 1;
  for (; i + 4 <= n; i += 4) {
    m0 = std::min(m0, v[i]);
    m1 = std::min(m1, v[i + 1]);
    m2 = std::min(m2, v[i + 2]);
    m3 = std::min(m3, v[i + 3]);
  }
  for (; i < n; ++i) m0 = std::min(m0, v[i]);
  const double m = std::min(std::min(m0, m1), std::min(m2, m3));
  std::size_t k = 0;
  while (v[k] != m) ++k;
  return k;
}

}  // namespace

ResourceId Simulator::add_resource(std::string name, Bandwidth capacity) {
  if (!(capacity.bytes_per_s > 0.0) || !std::isfinite(capacity.bytes_per_s))
    throw std::invalid_argument("resource '" + name + "' needs a positive finite capacity");
  resources_.emplace_back().capacity = capacity.bytes_per_s;
  names_.push_back(std::move(name));
  return static_cast<ResourceId>(resources_.size() - 1);
}

void Simulator::schedule(Time at, EventHandler* handler, std::uint64_t tag) {
  if (at < now_) throw std::logic_error("Simulator::schedule: event in the past");
  std::uint32_t idx = last_handler_;  // a run's timers almost always come from the handler of the previous one
  if (idx >= handlers_.size() || handlers_[idx] != handler) {
    idx = 0;
    while (idx < handlers_.size() && handlers_[idx] != handler) ++idx;
    if (idx == handlers_.size()) handlers_.push_back(handler);
    last_handler_ = idx;
  }
  queue_.push(at, kTimer, idx, tag);
}

FlowId Simulator::start_flow(const FlowSpec& spec, FlowObserver* observer, std::uint64_t tag) {
  if (spec.latency.ps < 0) throw std::logic_error("Simulator::start_flow: negative latency");
  if (!(spec.bytes >= 0.0)) throw std::logic_error("Simulator::start_flow: negative byte count");
  if (!(spec.max_rate > 0.0)) throw std::logic_error("Simulator::start_flow: non-positive rate cap");
  if (spec.hops > std::numeric_limits<std::uint16_t>::max())
    throw std::logic_error("Simulator::start_flow: a route of more than 65,535 hops");
  for (std::uint32_t i = 0; i < spec.hops; ++i)
    if (spec.route[i] >= resources_.size()) throw std::logic_error("Simulator::start_flow: unknown resource");
  FlowId f;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
    payloads_.emplace_back();
    aside_.emplace_back();
    group_of_.emplace_back(kNoGroup);
    class_of_.emplace_back(0);
  }
  Flow& fl = flows_[f];
  const std::uint32_t version = fl.version + 1;  // a slot's versions differ, so stale events are ignored
  fl = Flow{};
  fl.version = version;
  fl.route = spec.route;
  fl.hops = static_cast<std::uint16_t>(spec.hops);
  fl.remaining = spec.bytes;
  fl.max_rate = spec.max_rate;
  fl.in_use = true;
  payloads_[f] = FlowPayload{spec.bytes, observer, tag};
  if (spec.latency.ps > 0)
    queue_.push(now_ + spec.latency, kFlowActivate, f, version);
  else
    activate(f);
  return f;
}

void Simulator::activate(FlowId f) {
  Flow& fl = flows_[f];
  fl.active = true;
  fl.last = now_;
  ++active_flow_count_;
  if (fl.remaining <= 0.0 || (fl.hops == 0 && std::isinf(fl.max_rate))) {
    // Nothing to share: completes as soon as its latency is over.
    fl.rate = 0.0;
    fl.finish_queued = true;
    queue_.push(now_, kFlowFinish, f, fl.version);
    return;
  }
  // Alone on every resource of its route (the common case of a ring step): its rate is the smallest capacity or its
  // cap, and nobody else's rate changes, so the component search can be skipped. (A resource listed twice in a
  // route holds the flow twice, so the flow is not alone there, as when counted after all insertions.)
  bool alone = true;
  double rate = fl.max_rate;
  const bool masked = fl.hops <= kMaskHops;
  std::uint32_t shared = 0;
  std::uint8_t tight = kTightNone;
  double tight_capacity = std::numeric_limits<double>::infinity();
  bool repeated = false;  // a resource listed twice: its first hop was counted private
  for (std::uint32_t i = 0; i < fl.hops; ++i) {
    const ResourceId id = fl.route[i];
    Resource& r = resources_[id];
    r.flows.push_back(f);
    const auto count = static_cast<std::uint32_t>(r.flows.size());
    r.peak = std::max(r.peak, count);
    alone &= count == 1;
    rate = std::min(rate, r.capacity);
    if (count == 1) {
      if (r.capacity < tight_capacity) tight_capacity = r.capacity, tight = static_cast<std::uint8_t>(i);
      continue;
    }
    if (masked) shared |= 1u << i;
    if (count == 2) {
      const FlowId g = r.flows[0];
      if (g == f)
        repeated = true;
      else
        note_shared(g, id, fl.route, i);
    }
  }
  if (!masked) {
    fl.tight = kUnmasked;
  } else if (repeated) {
    shared = 0;
    for (std::uint32_t i = 0; i < fl.hops; ++i)
      if (resources_[fl.route[i]].flows.size() > 1) shared |= 1u << i;
    fl.shared = shared;
    fl.tight = tightest_private(fl);
  } else {
    fl.shared = shared;
    fl.tight = tight;
  }
  if (alone) {
    fl.rate = rate;
    schedule_finish(f);
    return;
  }
  if (live_groups_ > 0) [[unlikely]] {
    const std::uint32_t g = group_on(fl.route);
    if (g != kNoGroup) {
      if (rerate_group(g, f)) return;
      dissolve_group(g);
    }
  }
  if (const OneRoute one = one_route_seed(fl.route, fl.hops); one.first != kNoResource)
    rerate_one_route(one, f);
  else
    recompute(fl.route, fl.hops, f);
}

void Simulator::schedule_finish(FlowId f) {
  Flow& fl = flows_[f];
  ++fl.version;
  queue_.push(now_ + transfer_time(fl.remaining, Bandwidth{fl.rate}), kFlowFinish, f, fl.version);
  retire_finish(fl);
  fl.finish_queued = true;
}

void Simulator::remove_stale() {
  const std::size_t removed =
      queue_.remove_if([this](const Event& e) { return e.kind == kFlowFinish && !finish_is_live(e.a, e.b); });
  events_processed_ += removed;
  stale_queued_ -= removed;
}

std::uint32_t Simulator::hop_of(const Flow& g, ResourceId id, const ResourceId* route, std::uint32_t i) {
  if (g.route == route) return i;  // g holds `id` once, so on the same route array it is the same hop
  std::uint32_t h = 0;
  while (h + 1 < g.hops && g.route[h] != id) ++h;
  return h;
}

bool Simulator::shares_a_hop(const Flow& fl) const {
  if (fl.tight != kUnmasked) return fl.shared != 0;
  for (std::uint32_t h = 0; h < fl.hops; ++h)
    if (resources_[fl.route[h]].flows.size() > 1) return true;
  return false;
}

std::uint8_t Simulator::tightest_private(const Flow& fl) const {
  std::uint8_t tight = kTightNone;
  double capacity = std::numeric_limits<double>::infinity();
  for (std::uint32_t h = 0; h < fl.hops; ++h) {
    if (fl.shared & (1u << h)) continue;
    const double c = resources_[fl.route[h]].capacity;
    if (c < capacity) capacity = c, tight = static_cast<std::uint8_t>(h);
  }
  return tight;
}

[[gnu::always_inline]] inline void Simulator::note_shared(FlowId g, ResourceId id, const ResourceId* route,
                                                          std::uint32_t i) {
  Flow& gl = flows_[g];
  if (gl.tight == kUnmasked) return;
  const std::uint32_t h = hop_of(gl, id, route, i);
  gl.shared |= 1u << h;
  if (gl.tight == h) gl.tight = kTightUnknown;
}

[[gnu::always_inline]] inline void Simulator::note_private(FlowId g, ResourceId id, const ResourceId* route,
                                                           std::uint32_t i) {
  Flow& gl = flows_[g];
  if (gl.tight == kUnmasked) return;
  const std::uint32_t h = hop_of(gl, id, route, i);
  gl.shared &= ~(1u << h);
  if (gl.tight == kTightUnknown) return;
  if (gl.tight == kTightNone) {
    gl.tight = static_cast<std::uint8_t>(h);
    return;
  }
  // the first hop with the smallest capacity: h takes over when smaller, or as small and earlier
  const double c = resources_[id].capacity, t = resources_[gl.route[gl.tight]].capacity;
  if (c < t || (c == t && h < gl.tight)) gl.tight = static_cast<std::uint8_t>(h);
}

void Simulator::queue_aside(FlowId f) {
  Flow& fl = flows_[f];
  queue_.push_reserved(aside_[f].at, aside_[f].seq, kFlowFinish, f, fl.version);
  fl.deferred = false;
  fl.finish_queued = true;
}

void Simulator::rerate_alone(FlowId f, FlowId fresh) {
  // A flow alone on its resources gets min(its cap, the smallest capacity on its route).
  Flow& fl = flows_[f];
  if (fl.rate > 0.0 && now_ > fl.last) fl.remaining = progressed(fl.remaining, fl.rate, now_ - fl.last);
  fl.last = now_;
  double rate = fl.max_rate;
  for (std::uint32_t h = 0; h < fl.hops; ++h) rate = std::min(rate, resources_[fl.route[h]].capacity);
  const double old = fl.rate;
  fl.rate = rate;
  if (f == fresh || rate_changed(rate, old))
    schedule_finish(f);
  else if (fl.deferred)
    queue_aside(f);
}

Simulator::OneRoute Simulator::one_route_seed(const ResourceId* seeds, std::uint32_t count) {
  constexpr OneRoute kNo{kNoResource, 0.0};
  ResourceId first = kNoResource;
  const ResourceId* route = nullptr;
  std::uint32_t hops = 0;
  std::size_t m = 0;
  for (std::uint32_t i = 0; i < count && first == kNoResource; ++i) {
    const FlowList& on = resources_[seeds[i]].flows;
    if (on.empty()) continue;
    first = seeds[i];
    route = flows_[on[0]].route;
    hops = flows_[on[0]].hops;
    m = on.size();
  }
  if (first == kNoResource) return kNo;
  // Every flow on the first seed is distinct (a resource listed twice in a route holds its flows twice).
  next_epoch();
  double min_cap = std::numeric_limits<double>::infinity();
  for (FlowId g : resources_[first].flows) {
    Flow& fl = flows_[g];
    if (fl.route != route || fl.mark == epoch_) return kNo;
    fl.mark = epoch_;
    min_cap = std::min(min_cap, fl.max_rate);
  }
  // The seeds reach only that route's flows (seeds equal to the route are checked below) ...
  if (seeds != route)
    for (std::uint32_t i = 0; i < count; ++i)
      for (FlowId g : resources_[seeds[i]].flows)
        if (flows_[g].route != route) return kNo;
  // ... and every resource of the route carries exactly those m flows: each of them crosses every resource of the
  // route (as often as the route lists it), so a resource holding m entries holds each of them once and nothing else.
  for (std::uint32_t h = 0; h < hops; ++h)
    if (resources_[route[h]].flows.size() != m) return kNo;
  return {first, min_cap};
}

void Simulator::rerate_one_route(OneRoute one, FlowId fresh) {
  const FlowList& on = resources_[one.first].flows;
  // A group's flows reached here without a start or finish of theirs (a zero-byte flow on their route finished, for
  // one: it re-rates them all, usually to the same rates): written back, then re-rated per flow.
  if (live_groups_ > 0 && flows_[on[0]].grouped) [[unlikely]]
    dissolve_group(group_of_[on[0]]);
  if (on.size() == 1) {
    rerate_alone(on[0], fresh);
    return;
  }
  comp_flows_.assign(on.begin(), on.end());
  const Flow& head = flows_[comp_flows_[0]];
  double capacity = std::numeric_limits<double>::infinity();  // the tightest resource: the smallest share every round
  for (std::uint32_t h = 0; h < head.hops; ++h) capacity = std::min(capacity, resources_[head.route[h]].capacity);
  // The fill's first round: share = capacity / n, and a cap is picked first only when it is not above the share.
  // With every cap above it (the common case), every flow gets the share -- the fill's result without its rounds --
  // and the progress, the rates and the new events are made in one pass.
  const double even = capacity / static_cast<double>(comp_flows_.size());
  if (defer_finishes_ && one.min_cap > even) {
    // Flows on one route mostly share their remaining bytes (a burst of equal steps): a flow whose inputs equal the
    // previous flow's takes its result (bring_progress_up's arithmetic) instead of recomputing it.
    double key_remaining = -1.0, key_rate = 0.0, result = 0.0;  // remaining bytes are never negative: no first match
    Time key_last{0};
    const std::uint64_t seq0 = queue_.reserve(0);
    const std::size_t new_events = reschedule_one_route(fresh, [&](std::size_t, Flow& fl) {
      if (fl.rate > 0.0 && now_ > fl.last) {
        if (!(fl.remaining == key_remaining && fl.rate == key_rate && fl.last == key_last)) {
          key_remaining = fl.remaining, key_rate = fl.rate, key_last = fl.last;
          result = progressed(fl.remaining, fl.rate, now_ - fl.last);
        }
        fl.remaining = result;
      }
      fl.last = now_;
      const double old = fl.rate;
      fl.fixed = true;
      fl.rate = even;
      return old;
    });
    if (comp_flows_.size() >= kMinGroup && new_events == comp_flows_.size()) [[unlikely]]
      make_group(capacity, even, seq0);
    return;
  }
  bring_progress_up();
  // fill() on one resource: caps in ascending order while not above the share, then everyone left gets the share.
  double remaining = capacity;
  auto unfixed = static_cast<std::uint32_t>(comp_flows_.size());
  std::size_t cap_next = 0;
  while (unfixed > 0) {
    const double share = std::max(0.0, remaining) / unfixed;
    if (cap_next < cap_order_.size() && cap_order_[cap_next].first <= share) {
      Flow& fl = flows_[comp_flows_[cap_order_[cap_next].second]];
      fl.fixed = true;
      fl.rate = cap_order_[cap_next].first;
      remaining -= fl.rate;
      --unfixed;
      ++cap_next;
      continue;
    }
    for (FlowId f : comp_flows_) {
      Flow& fl = flows_[f];
      if (!fl.fixed) fl.fixed = true, fl.rate = share;
    }
    unfixed = 0;
  }
  if (!defer_finishes_) {
    reschedule_changed(fresh);
    return;
  }
  const std::size_t new_events = reschedule_one_route(fresh, [&](std::size_t i, Flow&) { return old_rates_[i]; });
  // Every flow at one common cap that the route's capacity holds, every event queued (at most the one new event,
  // queued as the earliest; the deferred ones whose rate stayed were queued above): a capped group.
  const auto n = static_cast<std::uint32_t>(comp_flows_.size());
  if (n >= kMinGroup && new_events <= 1 && cap_order_.size() == n &&
      cap_order_.front().first == cap_order_.back().first && caps_fit(n, cap_order_.front().first, capacity))
      [[unlikely]]
    make_group(capacity, cap_order_.front().first, 0, true);
}

void Simulator::next_epoch() {
  if (++epoch_ == 0) {  // wrapped: clear all marks once
    for (auto& r : resources_) r.mark = 0;
    for (auto& fl : flows_) fl.mark = fl.own_epoch = 0;
    epoch_ = 1;
  }
}

FlowId Simulator::sole_flow(const ResourceId* route, std::uint32_t hops) const {
  FlowId only = kNone;
  for (std::uint32_t i = 0; i < hops; ++i)
    for (FlowId g : resources_[route[i]].flows) {
      if (only != kNone && g != only) return kNone;
      only = g;
    }
  if (only == kNone) return kNone;
  return shares_a_hop(flows_[only]) ? kNone : only;
}

[[gnu::always_inline]] inline void Simulator::add_candidate(ResourceId id, Resource& r) {
  // A resource that can never be the first with the smallest share is left out of the rounds (the picks are the
  // same): one with no flow (infinite share); a private one (a single flow j: share = its capacity until j is fixed,
  // then infinite) unless it is j's first tightest; one whose flow list equals the previous candidate's while its
  // capacity is not below (rounding is monotone, so the same subtractions in the same order keep its share >= the
  // earlier one's).
  r.comp_index = kNoCandidate;
  const auto n = static_cast<std::uint32_t>(r.flows.size());
  if (n == 0) return;
  if (n == 1) {
    Flow& fl = flows_[r.flows[0]];
    if (fl.own_epoch != epoch_) {
      fl.own_epoch = epoch_;
    } else {
      if (!(r.capacity < share_[fl.own])) return;
      share_[fl.own] = std::numeric_limits<double>::infinity();  // superseded: looser while the flow is unfixed
    }
    fl.own = static_cast<std::uint32_t>(candidates_.size());
  } else if (!candidates_.empty()) {
    const Resource& prev = resources_[candidates_.back()];
    if (prev.flows.size() == n && prev.capacity <= r.capacity) {
      // std::equal, as a loop: the lists are a few entries long, shorter than a call of memcmp
      const FlowId* const a = r.flows.data();
      const FlowId* const b = prev.flows.data();
      std::uint32_t k = 0;
      while (k < n && a[k] == b[k]) ++k;
      if (k == n) return;
    }
  }
  r.unfixed = n;
  r.comp_index = static_cast<std::uint32_t>(candidates_.size());
  candidates_.push_back(id);
  remaining_.push_back(r.capacity);
  share_.push_back(r.capacity / n);
}

void Simulator::add_private(Flow& fl, ResourceId id, const Resource& r) {
  // What add_candidate's private case leaves standing after visiting all of fl's private hops in route order: the
  // tightest one (the looser hops before it would have been appended and superseded: never picked), unless a private
  // seed of fl (visited before: own set) is as tight -- as when the tightest is itself a seed.
  if (fl.own_epoch != epoch_) {
    fl.own_epoch = epoch_;
  } else {
    if (!(r.capacity < share_[fl.own])) return;
    share_[fl.own] = std::numeric_limits<double>::infinity();
  }
  fl.own = static_cast<std::uint32_t>(candidates_.size());
  candidates_.push_back(id);
  remaining_.push_back(r.capacity);
  share_.push_back(r.capacity);
}

void Simulator::collect_component(const ResourceId* seeds, std::uint32_t count) {
  next_epoch();
  comp_resources_.clear();
  comp_flows_.clear();
  candidates_.clear();
  share_.clear();
  remaining_.clear();
  if (share_.capacity() < resources_.size())
    share_.reserve(resources_.size()), candidates_.reserve(resources_.size()), remaining_.reserve(resources_.size());
  for (std::uint32_t i = 0; i < count; ++i) {
    Resource& r = resources_[seeds[i]];
    if (r.mark == epoch_) continue;
    r.mark = epoch_;
    comp_resources_.push_back(seeds[i]);
    add_candidate(seeds[i], r);
  }
  // Breadth-first over resources that can lead to other flows: the seeds and resources crossed by two or more flows
  // (a private resource holds only the flow that reached it).
  for (std::size_t ri = 0; ri < comp_resources_.size(); ++ri) {
    const Resource& r = resources_[comp_resources_[ri]];
    for (FlowId f : r.flows) {
      Flow& fl = flows_[f];
      if (fl.mark == epoch_) continue;
      fl.mark = epoch_;
      comp_flows_.push_back(f);
      if (fl.tight == kUnmasked) {
        for (std::uint32_t h = 0; h < fl.hops; ++h) {
          const ResourceId id = fl.route[h];
          Resource& rr = resources_[id];
          if (rr.mark == epoch_) continue;
          rr.mark = epoch_;
          if (rr.flows.size() > 1) comp_resources_.push_back(id);
          add_candidate(id, rr);
        }
        continue;
      }
      // Only its shared hops and its tightest private one, in route order: its other private hops carry it alone
      // and only it reaches them, so add_candidate would skip them as looser (they need not be read).
      if (fl.tight == kTightUnknown) fl.tight = tightest_private(fl);
      const std::uint32_t tight = fl.tight;
      std::uint32_t visit = fl.shared | (tight != kTightNone ? 1u << tight : 0u);
      // At scale the resource records a flow leads to are rarely in cache: all of its hops to visit are requested
      // before the first is read, so their misses overlap instead of waiting behind each hop's branches.
      for (std::uint32_t m = visit; m != 0; m &= m - 1) __builtin_prefetch(&resources_[fl.route[__builtin_ctz(m)]]);
      for (; visit != 0; visit &= visit - 1) {
        const auto h = static_cast<std::uint32_t>(__builtin_ctz(visit));
        const ResourceId id = fl.route[h];
        Resource& rr = resources_[id];
        if (h == tight) {
          add_private(fl, id, rr);
          continue;
        }
        if (rr.mark == epoch_) continue;
        rr.mark = epoch_;
        comp_resources_.push_back(id);
        add_candidate(id, rr);
      }
    }
  }
}

void Simulator::fill() {
  // Each round takes the tightest constraint: the candidate resource with the smallest share max(0, remaining) /
  // unfixed (the first in component order on ties) or the smallest cap of an unfixed flow (the first in component
  // order on ties). A share changes only when a flow crossing the resource is fixed, so it is kept per candidate
  // (share_) and recomputed there; caps never change, so the flows are visited once in cap order (cap_order_). Both
  // pick exactly what a scan of all resources and flows would.
  std::size_t cap_next = 0;
  std::size_t left = comp_flows_.size();
  const double* const share = share_.data();
  const std::size_t n = share_.size();
  // With thousands of candidates (a tree's whole fabric in one component at scale) and hundreds of rounds, the scan
  // per round dominated; a round changes the shares of a few blocks only.
  const bool blocked = n >= kBlockFillMin;
  const std::size_t blocks = blocked ? ((n - 1) >> kFillBlockBits) + 1 : 0;
  if (blocked) {
    ++block_fills_;
    block_min_.resize(blocks);
    block_arg_.resize(blocks);
    block_dirty_.assign(blocks, 1);
    dirty_blocks_.resize(blocks);
    for (std::uint32_t b = 0; b < blocks; ++b) dirty_blocks_[b] = b;
  }
  const auto changed = [&](std::uint32_t c) {
    const std::uint32_t b = c >> kFillBlockBits;
    if (!block_dirty_[b]) block_dirty_[b] = 1, dirty_blocks_.push_back(b);
  };
  auto fix = [&](FlowId f, double rate) {
    Flow& fl = flows_[f];
    fl.fixed = true;
    fl.rate = rate;
    --left;
    auto subtract = [&](ResourceId id) {
      Resource& rr = resources_[id];
      const std::uint32_t c = rr.comp_index;
      if (c == kNoCandidate) return;
      remaining_[c] -= rate;
      --rr.unfixed;
      share_[c] = rr.unfixed > 0 ? std::max(0.0, remaining_[c]) / rr.unfixed : std::numeric_limits<double>::infinity();
      if (blocked) changed(c);
    };
    if (fl.tight == kUnmasked) {
      for (std::uint32_t h = 0; h < fl.hops; ++h) subtract(fl.route[h]);
      return;
    }
    for (std::uint32_t m = fl.shared; m != 0; m &= m - 1) subtract(fl.route[__builtin_ctz(m)]);
    // its private candidate (if any) carries it alone: once it is fixed, no round can pick that one
    if (fl.own_epoch == epoch_) {
      share_[fl.own] = std::numeric_limits<double>::infinity();
      if (blocked) changed(fl.own);
    }
  };
  while (left > 0) {
    // resources with every flow fixed have an infinite share and are never picked
    std::size_t best = 0;
    double best_share = std::numeric_limits<double>::infinity();
    if (blocked) {
      for (const std::uint32_t b : dirty_blocks_) {
        const std::size_t lo = std::size_t{b} << kFillBlockBits;
        const std::size_t k =
            lo + first_min(share + lo, std::min<std::size_t>(n - lo, std::size_t{1} << kFillBlockBits));
        block_min_[b] = share[k];
        block_arg_[b] = static_cast<std::uint32_t>(k);
        block_dirty_[b] = 0;
      }
      dirty_blocks_.clear();
      best = block_arg_[first_min(block_min_.data(), blocks)];
      best_share = share[best];
    } else if (n > 0) {
      best = first_min(share, n);
      best_share = share[best];
    }
    const bool found_res = best_share < std::numeric_limits<double>::infinity();
    while (cap_next < cap_order_.size() && flows_[comp_flows_[cap_order_[cap_next].second]].fixed) ++cap_next;
    if (cap_next < cap_order_.size() && (!found_res || cap_order_[cap_next].first <= best_share)) {
      fix(comp_flows_[cap_order_[cap_next].second], cap_order_[cap_next].first);
    } else {
      const Resource& r = resources_[candidates_[best]];
      for (FlowId f : r.flows)
        if (!flows_[f].fixed) fix(f, best_share);
    }
  }
}

void Simulator::recompute(const ResourceId* seeds, std::uint32_t count, FlowId fresh) {
  // 1. Collect the component (active flows reachable through shared resources) and the fill's candidates.
  collect_component(seeds, count);
  if (comp_flows_.empty()) return;  // the last flow on these resources just finished: nothing to share
  if (live_groups_ > 0)  // the search reached a group's flows (a flow on another route joined them): written back
    for (FlowId f : comp_flows_)
      if (flows_[f].grouped) dissolve_group(group_of_[f]);
  // One flow alone on each of its resources takes min(cap, capacities); one that crosses a resource twice uses it
  // twice as fast as it moves, which the fill accounts for (half the capacity each time).
  // (alone in its component, a flow shares a hop only with itself)
  if (comp_flows_.size() == 1 && !shares_a_hop(flows_[comp_flows_[0]])) {
    rerate_alone(comp_flows_[0], fresh);
    return;
  }
  // 2. Bring every flow's progress up to now at its old rate.
  bring_progress_up();
  // 3. Progressive filling.
  fill();
  // 4. Reschedule finish events for flows whose rate changed.
  reschedule_changed(fresh);
}

void Simulator::bring_progress_up() {
  const auto n = static_cast<std::uint32_t>(comp_flows_.size());
  old_rates_.resize(n);
  cap_order_.clear();
  bool sorted = true;  // std::is_sorted's test, made while appending: no entry below its predecessor
  for (std::uint32_t i = 0; i < n; ++i) {
    Flow& fl = flows_[comp_flows_[i]];
    if (fl.rate > 0.0 && now_ > fl.last) fl.remaining = progressed(fl.remaining, fl.rate, now_ - fl.last);
    fl.last = now_;
    old_rates_[i] = fl.rate;
    fl.fixed = false;
    fl.rate = 0.0;
    if (std::isfinite(fl.max_rate)) {
      const std::pair<double, std::uint32_t> entry{fl.max_rate, i};
      if (!cap_order_.empty() && entry < cap_order_.back()) sorted = false;
      cap_order_.push_back(entry);
    }
  }
  if (!sorted) std::sort(cap_order_.begin(), cap_order_.end());
}

void Simulator::reschedule_changed(FlowId fresh) {
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    const FlowId f = comp_flows_[i];
    const Flow& fl = flows_[f];
    const double o = old_rates_[i];
    if (f == fresh || rate_changed(fl.rate, o))
      schedule_finish(f);
    else if (fl.deferred)
      queue_aside(f);  // its rate stays: its aside event is queued as it was
  }
}

template <class Rerate>
std::size_t Simulator::reschedule_one_route(FlowId fresh, Rerate rerate) {
  // Deferral, on one route: the new events take their sequence numbers in this order, as if queued; only the first
  // with the earliest time is queued (when it is pushed, the events behind it are aside, so its number is the newest
  // queued). The others are later than it, and before it pops nothing reaches them without re-rating the route (they
  // share every resource with it); its own pop is a finish that re-rates the route. Each re-rating decides again: a
  // deferred flow is given a new event (the aside one counted as a stale pop) or, when its rate stays, its aside one
  // is queued. Nothing in the loop takes a new sequence number (an aside event is queued under its own), so the new
  // events' numbers are counted here and taken from the queue at the end.
  FlowId first = kNone;
  Time first_at{0};
  const std::uint64_t seq0 = queue_.reserve(0);
  std::uint64_t seq = seq0, first_seq = 0, never_queued = 0;
  double key_remaining = -1.0, key_rate = 0.0;  // remaining bytes are never negative: no first match
  Time key_at{0};
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    const FlowId f = comp_flows_[i];
    Flow& fl = flows_[f];
    const double o = rerate(i, fl);
    if (f != fresh && !rate_changed(fl.rate, o)) {
      if (fl.deferred) queue_aside(f);
      continue;
    }
    if (fl.deferred)  // retire_finish's never-queued case, counted once after the loop
      fl.deferred = false, ++never_queued;
    else
      retire_finish(fl);
    ++fl.version;
    if (!(fl.remaining == key_remaining && fl.rate == key_rate)) {  // as the previous flow's: the same time
      key_remaining = fl.remaining, key_rate = fl.rate;
      key_at = now_ + transfer_time(fl.remaining, Bandwidth{fl.rate});
    }
    const Time at = key_at;
    if (first != kNone && !(at < first_at)) {  // later than the earliest so far (or as late, with a larger number)
      aside_[f] = Aside{at, seq++};
      fl.deferred = true;
      continue;
    }
    if (first != kNone) {  // the earliest so far goes aside
      aside_[first] = Aside{first_at, first_seq};
      flows_[first].deferred = true;
    }
    first = f, first_at = at, first_seq = seq++;
  }
  queue_.reserve(seq - seq0);
  events_processed_ += never_queued;
  never_queued_ += never_queued;
  if (first != kNone) {
    queue_.push_reserved(first_at, first_seq, kFlowFinish, first, flows_[first].version);
    flows_[first].finish_queued = true;
  }
  return static_cast<std::size_t>(seq - seq0);
}

void Simulator::finish(FlowId f) {
  Flow& fl = flows_[f];
  const std::uint32_t group = fl.grouped ? leave_group(f) : kNoGroup;
  fl.active = false;
  fl.in_use = false;
  fl.remaining = 0.0;
  fl.rate = 0.0;
  --active_flow_count_;
  ++flows_completed_;
  if (payloads_[f].observer) payloads_[f].observer->prefetch_flow_done(payloads_[f].tag);  // fetched while we work
  bool shared = false;  // a flow that was alone leaves nobody whose rate could rise
  for (std::uint32_t i = 0; i < fl.hops; ++i) __builtin_prefetch(&resources_[fl.route[i]]);  // misses in parallel
  for (std::uint32_t i = 0; i < fl.hops; ++i) {
    Resource& r = resources_[fl.route[i]];
    // Remove the first occurrence by moving the last entry into its place (the order recompute() then visits).
    FlowId* const first = r.flows.data();
    FlowId* const end = first + r.flows.size();
    FlowId* it = first;
    while (it != end && *it != f) ++it;
    if (it != end) {
      *it = end[-1];
      r.flows.pop_back();
      r.bytes_carried += payloads_[f].bytes;
      ++r.flow_count;
      if (r.flows.size() == 1 && r.flows[0] != f) note_private(r.flows[0], fl.route[i], fl.route, i);
    }
    shared |= !r.flows.empty();  // only ever too early for a resource listed twice: checked again below
  }
  if (shared) {
    shared = false;
    for (std::uint32_t i = 0; i < fl.hops && !shared; ++i) shared = !resources_[fl.route[i]].flows.empty();
  }
  if (group != kNoGroup) [[unlikely]] {
    if (shared && rerate_group(group, kNone))
      shared = false;  // re-rated by its group
    else
      dissolve_group(group);  // written back: the per-flow path below
  }
  if (shared) {
    // Usually one flow stayed (the next step on the same connection) and it is now alone on its whole route: its
    // component is itself, and the search that recompute() would make is skipped.
    const FlowId only = sole_flow(fl.route, fl.hops);
    if (only != kNone)
      rerate_alone(only, kNone);
    else if (const OneRoute one = one_route_seed(fl.route, fl.hops); one.first != kNoResource)
      rerate_one_route(one, kNone);
    else
      recompute(fl.route, fl.hops, kNone);
  }
  FlowObserver* obs = payloads_[f].observer;
  const std::uint64_t tag = payloads_[f].tag;
  free_flows_.push_back(f);
  if (obs) obs->on_flow_done(*this, tag);
}

void Simulator::run(Time until) {
  while (!queue_.empty() && queue_.top_time() <= until) {
    const Event e = queue_.pop();
    now_ = e.at;
    ++events_processed_;
    // What the next event reads first is fetched while this one runs (at scale it is rarely in cache): its flow
    // record and payload, or its handler's state.
    if (!queue_.empty()) {
      const EventQueue::Head next = queue_.top();
      if (next.kind == kTimer) {
        handlers_[next.a]->prefetch_event(next.b);
      } else {
        __builtin_prefetch(&flows_[next.a]);
        if (next.kind == kFlowFinish) __builtin_prefetch(&payloads_[next.a]);
      }
    }
    switch (e.kind) {
      case kTimer:
        handlers_[e.a]->on_event(*this, e.b);
        break;
      case kFlowActivate:
        if (flows_[e.a].in_use && flows_[e.a].version == e.b && !flows_[e.a].active) activate(e.a);
        break;
      case kFlowFinish:
        if (finish_is_live(e.a, e.b))
          finish(e.a);
        else
          --stale_queued_;
        break;
    }
  }
}

ResourceStats Simulator::resource_stats(ResourceId r) const {
  const Resource& res = resources_[r];
  return ResourceStats{names_[r], res.capacity, res.bytes_carried, res.flow_count, res.peak};
}

double Simulator::resource_load(ResourceId r) const {
  double s = 0.0;
  for (FlowId f : resources_[r].flows) s += flow_rate(f);
  return s;
}

}  // namespace vgsim
