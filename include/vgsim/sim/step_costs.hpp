// What one step transfer of a collective costs on the engine: StepCosts (chosen by the Communicator's NCCL model),
// the flow a transfer becomes over its route (step_flow) and the latency charged after its bytes have moved
// (delivery_latency). Shared by the stored-DAG executor (collective_run.hpp), the streamed ring and tree executors
// (sim/ring_run, sim/tree_run) and the analytical fidelity, so each charges a step the same way.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "vgsim/kernel/simulator.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/sim/fabric.hpp"

namespace vgsim::sim {

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
// any other leg) over the route, capped per channel (the protocol's cap and the route's per-connection cap, e.g. a
// socket connection's TCP streams); its latency is charged after the bytes (delivery_latency).
// Shared by CollectiveRun and the streamed ring and tree (ring_run.hpp, tree_run.hpp).
inline FlowSpec step_flow(const Route& r, Bytes payload, const StepCosts& c, double switch_eff = 1.0) {
  FlowSpec spec;
  spec.route = r.resources.data();
  spec.hops = static_cast<std::uint32_t>(r.resources.size());
  spec.bytes = static_cast<double>(payload) / (c.payload_efficiency * switch_eff);
  spec.latency = Time{0};
  spec.max_rate = std::min(c.max_rate_per_flow / switch_eff, r.connection_cap_bytes_per_s);
  return spec;
}

}  // namespace vgsim::sim
