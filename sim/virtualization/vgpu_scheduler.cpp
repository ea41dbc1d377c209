// vGPU time-slicing scheduler (see include/vgsim/sim/virtualization/vgpu_scheduler.hpp). One state machine per
// time-sliced GPU, woken by engine timer events; an event carries the GPU's version so that superseded wake-ups are
// ignored. Completion callbacks run before the next decision, and a submit made from inside a callback only queues.
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

#include <algorithm>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::sim::virt {

namespace {
constexpr std::uint64_t kDirect = std::uint64_t{1} << 63;
}

const char* to_string(VgpuPolicy p) {
  switch (p) {
    case VgpuPolicy::BestEffort:
      return "best_effort";
    case VgpuPolicy::EqualShare:
      return "equal_share";
    case VgpuPolicy::FixedShare:
      return "fixed_share";
  }
  return "?";
}

VgpuPolicy parse_vgpu_policy(const std::string& s) {
  if (s == "best_effort" || s == "best-effort") return VgpuPolicy::BestEffort;
  if (s == "equal_share" || s == "equal-share") return VgpuPolicy::EqualShare;
  if (s == "fixed_share" || s == "fixed-share") return VgpuPolicy::FixedShare;
  const std::string dym = did_you_mean(s, {"best_effort", "equal_share", "fixed_share"});
  throw UnitError("unknown vGPU scheduler '" + s + "'" + (dym.empty() ? "" : " (did you mean '" + dym + "'?)") +
                  ", expected best_effort, equal_share or fixed_share");
}

const std::vector<ParamDecl>& vgpu_params() {
  static const std::vector<ParamDecl> decls = [] {
    const VgpuSchedulerOptions defaults;
    ParamDecl policy;
    policy.name = "vgpu.scheduler";
    policy.type = ParamType::Choice;
    policy.choices = {"best_effort", "equal_share", "fixed_share"};
    policy.help = "NVIDIA vGPU time-slice scheduler of a shared GPU";
    policy.source = defaults.policy_source;
    ParamDecl slice;
    slice.name = "vgpu.time_slice";
    slice.type = ParamType::Time;
    slice.help = "time slice a vGPU context runs before the next";
    slice.source = defaults.time_slice_source;
    ParamDecl cost;
    cost.name = "vgpu.switch_cost";
    cost.type = ParamType::Time;
    cost.help = "time lost at the start of a slice given to another context";
    cost.source = defaults.switch_cost_source;
    return std::vector<ParamDecl>{policy, slice, cost};
  }();
  return decls;
}

void apply_vgpu_params(VgpuSchedulerOptions& o, const std::vector<std::pair<std::string, Json>>& values,
                       const std::string& origin) {
  for (const auto& [name, value] : values) {
    const std::string text = value.get<std::string>();
    if (name == "vgpu.scheduler") {
      o.policy = parse_vgpu_policy(text);
      o.policy_source = origin;
    } else if (name == "vgpu.time_slice") {
      o.time_slice = parse_time(text);
      o.time_slice_source = origin;
    } else if (name == "vgpu.switch_cost") {
      o.switch_cost = parse_time(text);
      o.switch_cost_source = origin;
    }
  }
  if (o.switch_cost.ps < 0 || o.time_slice.ps <= o.switch_cost.ps)
    throw InputError(origin, "vgpu.time_slice", "time slice not above the switch cost",
                     format_time(o.time_slice) + " vs " + format_time(o.switch_cost), "time_slice > switch_cost >= 0");
}

VgpuScheduler::VgpuScheduler(const topo::Cluster& cluster, Simulator& sim, VgpuSchedulerOptions options)
    : cluster_(cluster), sim_(sim), options_(std::move(options)) {
  if (options_.switch_cost.ps < 0 || options_.time_slice.ps <= options_.switch_cost.ps)
    throw UnitError("vGPU time slice " + format_time(options_.time_slice) + " must exceed the switch cost " +
                    format_time(options_.switch_cost) + " (and the switch cost must be >= 0)");
  const auto& eps = cluster_.endpoints();
  gpus_.resize(cluster_.gpus().size());
  where_.assign(eps.size(), {-1, -1});
  direct_busy_until_.assign(eps.size(), Time{0});
  for (std::uint32_t e = 0; e < eps.size(); ++e) {
    if (eps[e].mode != "vgpu") continue;
    Gpu& g = gpus_[eps[e].gpu];
    where_[e] = {static_cast<int>(eps[e].gpu), static_cast<int>(g.contexts.size())};
    Context c;
    c.endpoint = e;
    g.contexts.push_back(std::move(c));
  }
  for (std::uint32_t g = 0; g < gpus_.size(); ++g) rebuild_grid(g);
}

bool VgpuScheduler::time_sliced(std::uint32_t endpoint) const { return where_.at(endpoint).first >= 0; }

Time VgpuScheduler::switch_time(std::uint32_t gpu) const { return gpus_.at(gpu).switch_total; }

void VgpuScheduler::rebuild_grid(std::uint32_t g) {
  Gpu& G = gpus_[g];
  G.grid.clear();
  for (int c = 0; c < static_cast<int>(G.contexts.size()); ++c)
    if (options_.policy == VgpuPolicy::FixedShare || G.contexts[c].attached) G.grid.push_back(c);
  // Re-anchor the slot grid now (equal share re-divides the GPU when a vGPU starts or stops).
  G.grid_epoch = sim_.now();
  G.grid_first_slot = 0;
  G.current = -1;
  G.running = false;  // callers account the running request first (dispatch), so nothing is lost
}

void VgpuScheduler::attach(std::uint32_t endpoint) {
  const auto [g, c] = where_.at(endpoint);
  if (g < 0 || gpus_[g].contexts[c].attached) return;
  gpus_[g].contexts[c].attached = true;
  if (options_.policy == VgpuPolicy::EqualShare) {
    dispatch(static_cast<std::uint32_t>(g));  // account the running request before re-dividing
    rebuild_grid(static_cast<std::uint32_t>(g));
    dispatch(static_cast<std::uint32_t>(g));
  }
}

void VgpuScheduler::detach(std::uint32_t endpoint) {
  const auto [g, c] = where_.at(endpoint);
  if (g < 0 || !gpus_[g].contexts[c].attached) return;
  gpus_[g].contexts[c].attached = false;
  if (options_.policy == VgpuPolicy::EqualShare) {
    dispatch(static_cast<std::uint32_t>(g));
    rebuild_grid(static_cast<std::uint32_t>(g));
    dispatch(static_cast<std::uint32_t>(g));
  }
}

void VgpuScheduler::submit(std::uint32_t endpoint, Time work, Done done) {
  if (work.ps < 0) work = Time{0};
  const auto [g, c] = where_.at(endpoint);
  if (g < 0) {
    // Dedicated endpoint: requests run back to back at full speed.
    const Time start = std::max(sim_.now(), direct_busy_until_[endpoint]);
    direct_busy_until_[endpoint] = start + work;
    std::uint32_t slot;
    if (!direct_free_.empty()) {
      slot = direct_free_.back();
      direct_free_.pop_back();
      direct_[slot] = {std::move(done), endpoint};
    } else {
      slot = static_cast<std::uint32_t>(direct_.size());
      direct_.emplace_back(std::move(done), endpoint);
    }
    sim_.schedule(start + work, this, kDirect | slot);
    return;
  }
  Gpu& G = gpus_[g];
  if (!G.contexts[c].attached) attach(endpoint);
  // Account the running request before the queue changes; then queue and decide.
  dispatch(static_cast<std::uint32_t>(g));
  G.contexts[c].queue.push_back({work, std::move(done)});
  dispatch(static_cast<std::uint32_t>(g));
}

bool VgpuScheduler::any_work(const Gpu& G) const {
  for (const auto& c : G.contexts)
    if (!c.queue.empty()) return true;
  return false;
}

void VgpuScheduler::wake(std::uint32_t g, Time at) {
  Gpu& G = gpus_[g];
  ++G.version;
  sim_.schedule(at, this, (static_cast<std::uint64_t>(g) << 32) | (G.version & 0xffffffffu));
}

void VgpuScheduler::on_event(Simulator&, std::uint64_t tag) {
  if (tag & kDirect) {
    const auto slot = static_cast<std::uint32_t>(tag & ~kDirect);
    Done d = std::move(direct_[slot].first);
    direct_free_.push_back(slot);
    if (d) d();
    return;
  }
  const auto g = static_cast<std::uint32_t>(tag >> 32);
  if ((gpus_[g].version & 0xffffffffu) != (tag & 0xffffffffu)) return;  // superseded
  dispatch(g);
}

void VgpuScheduler::dispatch(std::uint32_t g) {
  Gpu& G = gpus_[g];
  const Time now = sim_.now();
  const Time T = options_.time_slice;
  // 1. Progress of the running request; completed requests' callbacks run (they may queue more work).
  if (G.running) {
    Context& c = G.contexts[G.current];
    c.queue.front().remaining -= now - G.run_start;
    G.run_start = now;
    if (c.queue.front().remaining.ps <= 0) {
      Done d = std::move(c.queue.front().done);
      c.queue.pop_front();
      G.running = false;
      if (d) d();   // may submit more work (a nested dispatch(g) decides with it)
      dispatch(g);  // decide (again): harmless when the nested submit already did
      return;
    }
  }
  if (G.running && now < G.slice_end &&
      !(options_.policy == VgpuPolicy::BestEffort && G.contexts[G.current].queue.empty())) {
    // Still running inside its slice: just re-arm the wake-up (the queue may have changed).
    const Time end = std::min(G.slice_end, now + G.contexts[G.current].queue.front().remaining);
    wake(g, end);
    return;
  }
  G.running = false;
  const int n = static_cast<int>(G.contexts.size());
  if (options_.policy == VgpuPolicy::BestEffort) {
    // 2a. Round robin over contexts with work; the owner keeps the GPU until its slice ends or its queue empties.
    if (G.current >= 0 && now < G.slice_end && !G.contexts[G.current].queue.empty()) {
      // keep the slice
    } else {
      const int from = G.current >= 0 ? G.current : G.last_ran;
      int pick = -1;
      for (int i = 1; i <= n; ++i) {
        const int c = ((from < 0 ? -1 : from) + i + n) % n;
        if (!G.contexts[c].queue.empty()) {
          pick = c;
          break;
        }
      }
      G.current = pick;
      if (pick < 0) return;  // idle until the next submit
      G.slice_end = now + T;
      if (pick != G.last_ran) {
        G.last_ran = pick;
        G.switch_total += options_.switch_cost;
        G.slice_start_run_ = now + options_.switch_cost;
      } else {
        G.slice_start_run_ = now;
      }
    }
  } else {
    // 2b. Reserved grid: the slot at `now` belongs to grid[k mod size], whether or not it has work.
    if (G.grid.empty()) return;
    const std::int64_t k = (now - G.grid_epoch).ps / T.ps;
    const int owner =
        G.grid[static_cast<std::size_t>((G.grid_first_slot + k) % static_cast<std::int64_t>(G.grid.size()))];
    const Time slot_end = G.grid_epoch + T * (k + 1);
    if (G.current != owner || G.slice_end != slot_end) {
      G.current = owner;
      G.slice_end = slot_end;
      G.slice_start_run_ = now;
    }
    if (G.contexts[owner].queue.empty()) {
      if (any_work(G)) wake(g, slot_end);  // reserved: the GPU idles until the next slot
      return;
    }
    if (owner != G.last_ran) {
      G.last_ran = owner;
      G.switch_total += options_.switch_cost;
      G.slice_start_run_ = now + options_.switch_cost;
    }
  }
  // 3. Run the owner's head request from the end of any context switch to the end of the slice.
  const Time start = std::max(now, G.slice_start_run_);
  if (start >= G.slice_end) {
    wake(g, G.slice_end);
    return;
  }
  if (start > now) {
    wake(g, start);
    return;
  }
  G.running = true;
  G.run_start = now;
  wake(g, std::min(G.slice_end, now + G.contexts[G.current].queue.front().remaining));
}

}  // namespace vgsim::sim::virt
