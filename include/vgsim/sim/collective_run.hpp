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
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::sim {

class StreamedRun;  // streamed_run.hpp (private): the streamed ring and tree executors

struct StepCosts {
  double payload_efficiency = 1.0;  // payload bytes / wire bytes (LL 0.5, LL128 120/128, Simple 1)
  // Extra payload factor of NVSwitch legs (coll::kSwitchRank on one side) alone: NCCL's NVLS efficiency for NVLS Tree,
  // whose network legs run at payload_efficiency. 1 = none (NVLS folds it into payload_efficiency: all its legs are
  // switch legs). A switch leg moves bytes / (payload_efficiency x switch_efficiency), capped at
  // max_rate_per_flow / switch_efficiency.
  double switch_efficiency = 1.0;
  std::array<Time, 3> hop_latency{};  // per step, indexed by topo::LinkClass (NVLink, PCIe, Net)
  double max_rate_per_flow = std::numeric_limits<double>::infinity();  // bytes/s of payload+overhead per channel
  Time base_latency{0};                                                // once per collective, before the first step
  // Once per call, before the first step, on top of base_latency: host-side launch / plugin overhead that NCCL's
  // model does not include (kernel launch without CUDA graphs, net-plugin progress). 0 = none modelled.
  Time launch_overhead{0};
  // Bytes a host-staged copy waits for before the peer may take them (Route::staged_s_per_byte): NCCL's slice, the
  // unit the GPU hands to the proxy (coll::default_slice_bytes). 0 = the whole transfer.
  Bytes staging_granule = 0;
  // false: host-staged copies are not charged (the exposure breakdown's "no host staging" counterfactual).
  bool staged_copies = true;
};

// Latency charged after a transfer's bytes have moved (see the file comment): the route's wire/switch/PCIe latency,
// NCCL's per-hop software latency of its link class, and for host-staged routes the store-and-forward copies of one
// staging granule (Route::staged_s_per_byte). Shared by the engine and the analytical fidelity.
inline Time delivery_latency(const Route& r, Bytes transfer_bytes, const StepCosts& c) {
  Time latency = r.latency + c.hop_latency[static_cast<std::size_t>(r.link_class)];
  if (c.staged_copies && r.staged_s_per_byte > 0.0) {
    const Bytes unit = c.staging_granule > 0 ? std::min(transfer_bytes, c.staging_granule) : transfer_bytes;
    latency += Time::from_s(static_cast<double>(unit) / c.payload_efficiency * r.staged_s_per_byte);
  }
  return latency;
}

// The flow of one step transfer: its payload at the protocol's efficiency (and a switch leg's, `switch_eff`, 1 for
// any other leg) over the route, capped per channel; its latency is charged after the bytes (delivery_latency).
// Shared by CollectiveRun and the streamed ring (ring_run.hpp).
inline FlowSpec step_flow(const Route& r, Bytes payload, const StepCosts& c, double switch_eff = 1.0) {
  FlowSpec spec;
  spec.route = r.resources.data();
  spec.hops = static_cast<std::uint32_t>(r.resources.size());
  spec.bytes = static_cast<double>(payload) / (c.payload_efficiency * switch_eff);
  spec.latency = Time{0};
  spec.max_rate = c.max_rate_per_flow / switch_eff;
  return spec;
}

class CollectiveRun : public FlowObserver, public EventHandler {
 public:
  // `schedule` and `fabric` must outlive the run. rank_to_endpoint[r] is the cluster endpoint of rank r.
  CollectiveRun(const coll::CollectiveSchedule& schedule, std::vector<std::uint32_t> rank_to_endpoint, StepCosts costs,
                Fabric& fabric);
  // Per-channel placement: channel c maps rank r to endpoint channel_gpus[c % size][r]. NCCL builds a different ring
  // (or tree) per channel so that channels leave a node through different GPUs and NICs; a per-channel rank->GPU map
  // over the same abstract schedule expresses exactly that.
  CollectiveRun(const coll::CollectiveSchedule& schedule, std::vector<std::vector<std::uint32_t>> channel_gpus,
                StepCosts costs, Fabric& fabric);

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
  // Set for a streamed schedule (CollectiveSchedule::streamed: RingRun or TreeRun); the DAG is then unused.
  std::unique_ptr<StreamedRun> stream_;
};

}  // namespace vgsim::sim
