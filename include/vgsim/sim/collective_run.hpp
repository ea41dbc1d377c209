// Runs one CollectiveSchedule (plain data from workloads/collectives) on the engine: every Transfer becomes one flow
// from the GPU of its source rank to the GPU of its destination rank over the Fabric's route, started when all its
// dependencies have finished. Several runs can share one Simulator (and so contend for links). The step costs
// (protocol payload efficiency, per-hop software latency by link class, per-flow rate cap, base latency) come from
// the NCCL model chosen by the Communicator; this file knows nothing about how they were chosen. NVLS transfers to or
// from coll::kSwitchRank run over the GPU's NVSwitch up or down resource alone (Fabric::switch_route).
// Timing of one transfer: its bytes move first (sharing links max-min), then its latency (route + per-hop software)
// elapses before it is delivered. A dependent that reads the data (the receiver forwarding or reducing it) waits
// for delivery; a dependent that only needs the sender's connection or the receiver's buffer slot (FIFO order,
// credits) waits for the bytes to have left, so consecutive sends on a connection overlap their latencies as
// NCCL's NCCL_STEPS slots do (coll::dependency_kind decides which is which).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "vgsim/kernel/simulator.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/step_costs.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::sim {

class StreamedRun;  // streamed_run.hpp (private): the streamed ring, tree and NVLS Tree executors

class CollectiveRun : public FlowObserver, public EventHandler {
 public:
  // `schedule` and `fabric` must outlive the run. rank_to_endpoint[r] is the cluster endpoint of rank r.
  CollectiveRun(const coll::CollectiveSchedule& schedule, std::vector<std::uint32_t> rank_to_endpoint, StepCosts costs,
                Fabric& fabric);
  // Per-channel placement: channel c maps rank r to endpoint channel_gpus[c % size][r]. NCCL builds a different ring
  // (or tree) per channel so that channels leave a node through different GPUs and NICs; a per-channel rank->GPU map
  // over the same abstract schedule expresses exactly that. fold_channels (CallPlan::fold_channels): a streamed ring
  // or tree runs its representative channels only, over folded routes (sim/channel_fold.hpp; an opt-in approximation).
  CollectiveRun(const coll::CollectiveSchedule& schedule, std::vector<std::vector<std::uint32_t>> channel_gpus,
                StepCosts costs, Fabric& fabric, bool fold_channels = false);

  // Starts the collective at the simulator's current time (or at `at`); `on_done` runs when the last transfer ends.
  void start(std::function<void(Time finish)> on_done = {});
  void start_at(Time at, std::function<void(Time finish)> on_done = {});

  bool finished() const { return remaining_ == 0; }
  Time start_time() const { return start_time_; }
  Time finish_time() const { return finish_time_; }
  std::uint64_t transfers() const;
  ~CollectiveRun() override;

  void on_flow_done(Simulator& sim, std::uint64_t tag) override;
  void on_event(Simulator& sim, std::uint64_t tag) override;

 private:
  void launch(std::uint32_t t);
  void release(std::uint32_t t, bool delivered);  // frees the dependents of t that wait for this stage
  void deliver(Simulator& sim, std::uint32_t t);
  const Route& route_of(std::uint32_t t) const;

  const coll::CollectiveSchedule& schedule_;
  std::vector<std::vector<std::uint32_t>> channel_gpus_;
  StepCosts costs_;
  Fabric& fabric_;
  std::vector<std::uint32_t> pending_;           // unfinished dependencies per transfer
  std::vector<std::uint32_t> dependents_begin_;  // CSR of reverse edges
  std::unique_ptr<std::uint32_t[]> dependents_;  // dependents_begin_[n] entries: index | kDataEdge for data edges
  static constexpr std::uint32_t kDataEdge = 0x80000000u;  // the dependent reads the data (waits for delivery)
  std::vector<const Route*> routes_;        // the distinct routes this collective uses (NVLS legs included)
  std::vector<std::uint32_t> route_index_;  // per transfer: its route in routes_
  std::uint64_t remaining_ = 0;
  Time start_time_{0}, finish_time_{0};
  std::function<void(Time)> on_done_;
  // Set for a streamed schedule (CollectiveSchedule::streamed: RingRun, TreeRun or NvlsTreeRun); the DAG is then
  // unused.
  std::unique_ptr<StreamedRun> stream_;
};

}  // namespace vgsim::sim
