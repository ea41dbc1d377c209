// Open MPI collectives on CPU buffers, simulated on the engine over a topo::Cluster (issue 15). One call = one
// collective of `size_per_rank` bytes on nodes x ranks_per_node ranks (ranks placed by slot: ranks 0..k-1 on node 0).
// What runs: Open MPI's coll/tuned choice for the release (fixed decision rules, or the forced algorithm when
// dynamic rules are on, then coll_base's fallbacks: workloads/collectives/ompi_decision.hpp). How long it takes: each
// message runs three stages in sequence: the sender's copy on its progress core, the transfer (inter-node: the
// node's NIC tx and the peer node's NIC rx, shared max-min, after the one-way latency, plus rendezvous round trips
// above the transport's eager limit; shared memory, vader: latency only), the receiver's copy plus the reduction of
// the received bytes on its progress core (in-cache or DRAM rate by the collective's working set). RDMA transports
// skip the copies above their eager limit; vader makes one CMA copy above its eager limit. Not modelled: contention
// for the node's DRAM bandwidth, the kernel's TCP window.
//
// For callers (training on CPU clusters, helper "cpu"): simulate_mpi_collective is deterministic (same inputs, same
// Time) and memoized per (config, op, size, nodes, ranks per node) inside the process, so calling it ~100 times per
// training simulation at up to 100 nodes x 4 ranks costs one engine run per distinct size. The signatures below are
// kept stable. Parameters: `--set mpi.NAME=value` (mpi_param_decls(); `vgsim params --library mpi`).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/collectives/ompi_decision.hpp"

namespace vgsim::sim {

// Inter-node point-to-point path of Open MPI: pml ob1 + btl tcp, ob1 + btl openib (verbs, v3.1-v4.1), pml ucx, or
// pml cm + mtl psm2 (Omni-Path). Ranks on one node always use shared memory (btl vader).
enum class MpiTransport : std::uint8_t { Tcp, Openib, Ucx, Psm2 };
const char* to_string(MpiTransport t);
MpiTransport parse_mpi_transport(const std::string& s);  // "tcp", "openib", "ucx", "psm2"; UnitError otherwise

// Physical parameters (names as in `--set mpi.NAME`): each one is declared with bounds and source in
// mpi_param_decls(); the defaults come from the transport, the cluster's NIC and CPU (catalog) or are ASSUMPTIONs.
struct MpiPhysics {
  double latency_us = 0;              // mpi.latency: one-way time of a small inter-node message (stack + wire)
  double shm_latency_us = 0;          // mpi.shm_latency: one-way time of a small shared-memory message
  double wire_efficiency = 1;         // mpi.wire_efficiency: payload share of the NIC line rate
  double copy_GBps = 0;               // mpi.copy_bandwidth: bytes/s (GB/s) a progress core copies in cache
  double reduce_GBps = 0;             // mpi.reduce_bandwidth: bytes/s (GB/s) of vector a core reduces in cache
  double core_dram_GBps = 0;          // mpi.core_memory_bandwidth: one core's streaming DRAM bandwidth (GB/s)
  double cache_MiB = 0;               // mpi.cache_size: working set (MiB) above which the DRAM rates apply
  double rendezvous_round_trips = 1;  // mpi.rendezvous_round_trips: extra round trips of a rendezvous message
  bool operator==(const MpiPhysics&) const = default;
};

struct MpiConfig {
  coll::OmpiRelease release = coll::OmpiRelease::V4_0;  // mpi.release: decision table and op/avx (>= 4.1)
  MpiTransport transport = MpiTransport::Tcp;           // mpi.transport
  bool dynamic_rules = false;                           // mpi.dynamic_rules (coll_tuned_use_dynamic_rules)
  std::string forced_algorithm;                         // mpi.algorithm: "" / "default" = none, else a name or id
  Bytes segment_bytes = 0;                              // mpi.segment_size (coll_tuned_*_algorithm_segmentsize)
  Bytes elem_bytes = 4;                                 // MPI_FLOAT (OSU's default)
  Bytes eager_limit = 0;                                // mpi.eager_limit: inter-node eager/rendezvous switch
  Bytes shm_eager_limit = 0;                            // mpi.shm_eager_limit (vader)
  MpiPhysics physics;
  // Node resources taken from the cluster's first host (its first NIC port and CPU; every node of the run is taken
  // to be like it, so --nodes may exceed the cluster's hosts): NIC line rate per direction, DRAM bandwidth (sockets x
  // catalog; reported, not yet a contended resource).
  Bandwidth nic_speed;
  Bandwidth node_memory_bandwidth;
  std::string cluster_name;
  // `mpi.NAME` -> "value (source)" for every parameter, in declaration order (reports, `vgsim params`).
  std::vector<std::pair<std::string, std::string>> provenance;
};

// Every `mpi.*` parameter (name, type, unit, bounds or choices, help, source).
const std::vector<ParamDecl>& mpi_param_decls();

// The configuration for `cluster` (its first host's NIC and CPU from `catalog`), then `sets` ("mpi.NAME=value",
// checked against mpi_param_decls(): InputError naming `origin`, the name, the value and the expectation).
// Transport default: psm2 on an Omni-Path NIC, openib on other RDMA NICs with release < 5.0 (ucx from 5.0), else tcp.
MpiConfig mpi_config_from(const topo::Cluster& cluster, const topo::Catalog& catalog,
                          const std::vector<std::string>& sets = {}, const std::string& origin = "--set");

struct MpiCollectiveResult {
  Time time{0};
  std::string algorithm;  // what ran after the decision rule and coll_base's fallbacks ("ring", ...)
  std::string requested;  // what was asked ("default" or the forced name)
  std::string reason;     // one line: why this algorithm (rule cell or fallback)
  std::uint64_t messages = 0;
};

// One collective (op: AllReduce or AllGather; bcast and reduce are not modelled). `size_per_rank`: the bytes each
// rank contributes (allreduce: the vector; allgather: each rank's block). Throws InputError when nodes x
// ranks_per_node is 0 or the op is not modelled.
MpiCollectiveResult simulate_mpi_collective(const topo::Cluster& cluster, const MpiConfig& config, coll::Op op,
                                            Bytes size_per_rank, std::uint32_t nodes, std::uint32_t ranks_per_node);

}  // namespace vgsim::sim
