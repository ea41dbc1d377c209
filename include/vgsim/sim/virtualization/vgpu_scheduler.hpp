// The vGPU time-slicing scheduler of every GPU of a cluster, run inside the engine: it turns "this context wants X of
// GPU time from now" into a completion time. Contexts are GPU endpoints (Cluster::endpoints()); only time-sliced vGPU
// endpoints (mode "vgpu") share a GPU; every other endpoint (bare metal, passthrough, MIG instance: neighbours never
// interfere) runs its work at once, back to back. Per shared GPU: round robin in endpoint order with slice
// `time_slice`; the first `switch_cost` of a slice given to a context other than the last one that ran is lost.
// Policies (NVIDIA vGPU knowledge base, docs/SOURCES.md#mig-vgpu): best_effort (only contexts with work get slices;
// a context that runs out of work yields at once), equal_share (a periodic grid of slices over the attached contexts,
// reserved even when idle), fixed_share (the grid covers every vGPU on the GPU, attached or not). Not a model of MPS or
// MIG. Units: Time (ps). Deterministic: events are ordered by the engine.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/kernel/simulator.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::sim::virt {

enum class VgpuPolicy : std::uint8_t { BestEffort, EqualShare, FixedShare };
const char* to_string(VgpuPolicy p);
VgpuPolicy parse_vgpu_policy(const std::string& s);  // "best_effort" | "equal_share" | "fixed_share"; UnitError else

// [recalled / verify] 2 ms: the upper end of the "about 1-2 ms" default slice of Equal/Fixed Share
// (docs/SOURCES.md#mig-vgpu, NVIDIA vGPU knowledge base); tunable like NVML's timeslice.
constexpr Time kDefaultTimeSlice = Time{2'000'000'000};
// [assumption] 50 us lost per switch to another context (save/restore of the GPU context). No measurement in the
// references (A4: "treat the scheduler overhead as a parameter ... to fit against the Mask R-CNN 1-7-VM curve").
// At the 2 ms slice it costs 2.5 % of each slice.
constexpr Time kDefaultSwitchCost = Time{50'000'000};

struct VgpuSchedulerOptions {
  VgpuPolicy policy = VgpuPolicy::BestEffort;  // NVIDIA's default on all architectures (A4)
  Time time_slice = kDefaultTimeSlice;
  Time switch_cost = kDefaultSwitchCost;
  std::string policy_source = "default: best_effort (NVIDIA's default scheduler, docs/SOURCES.md#mig-vgpu)";
  std::string time_slice_source = "default [recalled / verify]: 2 ms (A4: about 1-2 ms for Equal/Fixed Share)";
  std::string switch_cost_source = "default [assumption]: 50 us per context switch (no measurement in the references)";
};

// The scheduler's parameters, declared once here: vgpu.scheduler, vgpu.time_slice, vgpu.switch_cost.
const std::vector<ParamDecl>& vgpu_params();
// Applies checked values of those parameters (name, value) to `o`, recording `origin` as their source; then checks
// time_slice > switch_cost >= 0 (InputError naming `origin`).
void apply_vgpu_params(VgpuSchedulerOptions& o, const std::vector<std::pair<std::string, Json>>& values,
                       const std::string& origin);

class VgpuScheduler : public EventHandler {
 public:
  using Done = std::function<void()>;
  // `cluster` and `sim` must outlive the scheduler. Throws UnitError for a slice <= switch cost.
  VgpuScheduler(const topo::Cluster& cluster, Simulator& sim, VgpuSchedulerOptions options = {});

  // A job's rank starts / stops using an endpoint (equal_share counts attached contexts only).
  void attach(std::uint32_t endpoint);
  void detach(std::uint32_t endpoint);
  // Requests `work` of whole-GPU time for `endpoint` now; `done` runs when it is complete. Requests of one endpoint
  // run in submission order.
  void submit(std::uint32_t endpoint, Time work, Done done);

  bool time_sliced(std::uint32_t endpoint) const;
  const VgpuSchedulerOptions& options() const { return options_; }
  // GPU time lost to context switches so far, per GPU index (0 for GPUs that are not time-sliced).
  Time switch_time(std::uint32_t gpu) const;

  void on_event(Simulator& sim, std::uint64_t tag) override;

 private:
  struct Request {
    Time remaining;
    Done done;
  };
  struct Context {
    std::uint32_t endpoint = 0;
    bool attached = false;
    std::deque<Request> queue;
  };
  struct Gpu {
    std::vector<Context> contexts;  // the GPU's vGPU endpoints, in endpoint order
    int current = -1;               // context owning the current slice (-1: none)
    int last_ran = -1;              // context whose work ran last (switch cost when another one runs)
    Time slice_end{0};
    Time grid_epoch{0};                // equal/fixed share: slot k = [epoch + k T, epoch + (k+1) T)
    std::int64_t grid_first_slot = 0;  // slot index at the epoch
    std::vector<int> grid;             // contexts in slot order
    bool running = false;              // a request of `current` is executing
    Time run_start{0};                 // when it started (after any switch)
    std::uint64_t version = 0;         // invalidates stale events
    Time switch_total{0};
    Time slice_start_run_{0};  // the slice owner may run from here (after a context switch)
  };

  void dispatch(std::uint32_t g);
  void wake(std::uint32_t g, Time at);
  bool any_work(const Gpu& gpu) const;
  void rebuild_grid(std::uint32_t g);
  void enter_grid_slot(std::uint32_t g);

  const topo::Cluster& cluster_;
  Simulator& sim_;
  VgpuSchedulerOptions options_;
  std::vector<Gpu> gpus_;                   // per GPU index
  std::vector<std::pair<int, int>> where_;  // endpoint -> (gpu, context) for time-sliced endpoints, (-1,-1) else
  std::vector<std::pair<Done, std::uint32_t>> direct_;  // pending completions of dedicated endpoints
  std::vector<std::uint32_t> direct_free_;
  std::vector<Time> direct_busy_until_;  // per endpoint: dedicated endpoints run requests back to back
};

}  // namespace vgsim::sim::virt
