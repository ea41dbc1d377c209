// An NCCL-like communicator on a modeled cluster: ranks mapped to GPUs, the transports NCCL would use between them,
// and for each call the algorithm x protocol (NCCL's cost argmin, or forced like NCCL_ALGO / NCCL_PROTO), the channel
// count, the step schedule (from workloads/collectives) and the step costs the executor charges. What differs by
// algorithm (availability, channels, step efficiencies, latencies, the schedule) comes from the algorithm's record
// (workloads/collectives/algorithm_registry.hpp); the communicator supplies the cluster's facts (coll::CommShape).
// Also runs a single collective on a fresh engine for nccl-tests style sweeps.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/sim/collective_run.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::sim {

struct CommOptions {
  std::optional<coll::Algo> algo;                        // NCCL_ALGO
  std::optional<coll::Proto> proto;                      // NCCL_PROTO
  std::optional<std::uint32_t> channels;                 // NCCL_MIN/MAX_NCHANNELS pinned to one value
  topo::PathOptions path;                                // NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL, NCCL_IB_DISABLE, ...
  coll::NcclTuning nccl = coll::NcclTuning::defaults();  // NCCL's model constants (2.30 tables)
  // Capacity multiplier per resource kind (Fabric's capacity_scale; e.g. {"nvlink", 0.78} from a calibration
  // profile, calibrate::apply_profile). Empty = catalog capacities. Used by simulate_collective.
  std::map<std::string, double> capacity_scale;
  // Per-call host overhead charged once before the first step (StepCosts::launch_overhead): kernel launch without
  // CUDA graphs, net-plugin progress. Default 0: no cited per-call figure exists for it (docs/SOURCES.md#nccl-tuning
  // gives none; the EFA / TCPX plugin latencies the notes mention are per inter-node hop and marked [verify]).
  Time launch_overhead{0};
  // false: host-staged store-and-forward copies are not charged (StepCosts::staged_copies; counterfactual only).
  bool staged_copies = true;
  // Resource guard (coll::GenOptions::max_transfers): a call whose schedule needs more step transfers is refused
  // before it is built. 0 = no limit (the library default); the CLI and jobs use kDefaultMaxTransfers.
  std::uint64_t max_transfers = 0;
  // Rings (allreduce, allgather, reducescatter), the tree and the NVLS Tree allreduce are streamed
  // (coll::StepStorage): the engine generates each step as its dependencies resolve, memory O(ranks x channels;
  // NVLS Tree: x ranks per node), same times to the picosecond as the stored step DAG. Stored: every schedule is
  // materialized (a test oracle; analytical fidelity materializes a streamed schedule itself).
  coll::StepStorage steps = coll::StepStorage::Streamed;
  // Opt-in approximation: a streamed ring or tree of several channels simulates its representative channels only (the
  // first of each run of channels with one rank->GPU map, else one per ring or tree), each resource's capacity
  // divided among the channels that cross it (sim/channel_fold.hpp): channels / representatives times fewer flows
  // and events, slower than the full run by what channels drifting out of lockstep would hide. Its error against the
  // full simulation is measured in docs/BENCHMARKS.md. Default off.
  bool fold_channels = false;
};

// The commands' default for CommOptions::max_transfers: 128 Mi transfers. A stored schedule of that many is about
// 8 GiB of schedule and executor state (~64 B each, docs/BENCHMARKS.md), which fits the 24 GiB development machines
// with the engine's own state; a streamed one (rings, trees) keeps O(ranks x channels) and costs about two events per
// transfer. It was 64 Mi until a ring's chunk became 2 slice transfers (issue 39): doubled with them, so the same
// collectives run.
constexpr std::uint64_t kDefaultMaxTransfers = std::uint64_t{128} << 20;

// What a call will do.
struct CallPlan {
  coll::Op op;
  coll::Algo algo;
  coll::Proto proto;
  std::uint32_t channels = 1;
  Bytes size = 0;
  double model_time_us = 0.0;  // NCCL's own cost-model estimate for the chosen pair (for reference)
  StepCosts costs;
  std::shared_ptr<const coll::CollectiveSchedule> schedule;
  // Per channel, rank -> endpoint: channel c rotates each node's GPU order by c * ranks_per_node / channels, so that
  // the channels' rings leave every node through different GPUs (and so different NICs), as NCCL's per-channel rings
  // do.
  std::vector<std::vector<std::uint32_t>> channel_gpus;
  // Whether the call runs folded (CommOptions::fold_channels asked, and the schedule is a streamed ring or tree of
  // several channels): CollectiveRun's fold_channels.
  bool fold_channels = false;
};

// The cluster's OS instances in order (a bare-metal host, or a VM), each with its GPU endpoints (indices into
// Cluster::endpoints()). NCCL's "node" is one OS instance: two VMs on one host talk through the network.
std::vector<std::vector<std::uint32_t>> os_instances(const topo::Cluster& cluster);
// InputError naming the cluster file and its first host template's "gpus" when the cluster has no GPU endpoint.
void require_gpu_endpoints(const topo::Cluster& cluster);

// Ranks on the first `nodes` OS instances x their first `gpus_per_node` endpoints, node-major (endpoint indices).
// Throws InputError naming --nodes / --gpus-per-node when the cluster is too small.
std::vector<std::uint32_t> place_ranks(const topo::Cluster& cluster, std::uint32_t nodes, std::uint32_t gpus_per_node);

class Communicator {
 public:
  // rank_to_endpoint[r]: index into Cluster::endpoints() (== GPU index on bare-metal clusters).
  Communicator(const topo::Cluster& cluster, std::vector<std::uint32_t> rank_to_endpoint, CommOptions options);

  std::uint32_t ranks() const { return static_cast<std::uint32_t>(rank_to_endpoint_.size()); }
  std::uint32_t nodes() const { return nodes_; }
  std::uint32_t ranks_per_node() const { return ranks_per_node_; }
  const std::vector<std::uint32_t>& rank_to_endpoint() const { return rank_to_endpoint_; }
  const CommOptions& options() const { return options_; }
  const topo::Cluster& cluster() const { return cluster_; }
  // The topology facts NCCL's tuning sees (link classes, per-channel bandwidths, GPU arch).
  const coll::CommShape& shape() const { return shape_; }
  // Human-readable transports, e.g. "intra-node: P2P/NVL (NVLink); inter-node: NET/IB with GPUDirect RDMA".
  std::string describe_transports() const;
  // Which network transport and devices NCCL takes between nodes and by which rules (topo::Cluster::nccl_net of rank
  // 0's endpoint), e.g. "NET/Socket on [0]ens192 (vmxnet3, 10 Gb/s as the OS reports it); bootstrap on ens192; why:
  // no ACTIVE RDMA port ...". "" on one node.
  std::string describe_net() const;
  // "why: ..." lines for the ring-neighbour routes whose transport a user may not expect (GPUDirect RDMA not in use,
  // sockets instead of IB, SHM instead of P2P): topo::why_lines, each distinct line once. Empty when none.
  std::vector<std::string> transport_reasons() const;

  CallPlan plan(coll::Op op, Bytes size, std::uint32_t root = 0) const;

  // NCCL's point-to-point geometry for this communicator (alltoall): p2pnChannels, p2pnChannelsPerPeer, the p2p
  // chunk and the works per batch, from the nccl.p2p.* parameters (sim/communicator.cpp says which NCCL rule each
  // follows). InputError naming the parameter when one is out of range.
  struct P2pGeometry {
    std::uint32_t channels = 1, channels_per_peer = 1, ops_per_batch = 8;
    Bytes chunk_bytes = 0;
  };
  P2pGeometry p2p_geometry() const;

 private:
  const topo::Cluster& cluster_;
  std::vector<std::uint32_t> rank_to_endpoint_;
  CommOptions options_;
  std::uint32_t nodes_ = 1;
  std::uint32_t ranks_per_node_ = 1;
  // Per node: the ring's visit order of its local ranks when it must enter and leave through the GPUs nearest the
  // NIC (nic_ring_order.hpp; every channel then takes it), empty = the rank order rotated per channel.
  std::vector<std::vector<std::uint32_t>> node_ring_order_;
  // The endpoint at ring position r of a channel whose rotation is `shift` (channel_gpus).
  std::uint32_t ring_endpoint(std::uint32_t r, std::uint32_t shift) const;
  coll::CommShape shape_;
  double total_intra_GBps_ = 0, total_inter_GBps_ = 0;  // ring-neighbour route bottlenecks
  std::optional<topo::Path> intra_path_, inter_path_;   // a ring-neighbour path of each kind, for descriptions
};

struct CollectiveResult {
  CallPlan plan;
  Time time{0};
  std::uint64_t events = 0;
  std::uint64_t flows = 0;
};

// Simulates one call on a fresh engine (nothing else running) and returns its duration.
CollectiveResult simulate_collective(const Communicator& comm, coll::Op op, Bytes size, std::uint32_t root = 0);

}  // namespace vgsim::sim
