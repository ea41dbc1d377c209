// A collective as plain data: a DAG of transfers between abstract ranks, produced by the algorithm generators
// (ring, tree, ...) and run by the engine in sim/. Dumpable and testable without the engine.
// Invariant: transfers are in a topological order (every dependency has a smaller index).
// Units: bytes are payload bytes (protocol overhead is applied by the executor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"

namespace vgsim::coll {

// AllToAll: nccl-tests alltoall_perf, a group of ncclSend / ncclRecv to every peer (generators.hpp alltoall).
enum class Op : std::uint8_t { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv, AllToAll };
// A collective algorithm: an id into the algorithm registry (algorithm_registry.hpp), which holds each algorithm's
// name, generator, validation, availability, NCCL cost-model hooks and analytical form. The built-in algorithms have
// fixed ids (registered first, in NCCL's order; their ids are also the rows of NcclTuning's latency tables); an
// algorithm registered later (coll::register_algorithm) gets the next id. Default: Ring.
// NVLS = NVLink SHARP (Hopper+ NVSwitch multicast/reduction, one node, allreduce only; generators.hpp nvls_allreduce).
// NVLSTree = NVLS inside each node plus a tree across nodes (NCCL_ALGO=NVLSTree; generators.hpp nvls_tree_allreduce).
struct Algo {
  std::uint8_t id = 0;
  constexpr Algo() = default;
  constexpr explicit Algo(std::uint8_t registry_id) : id(registry_id) {}
  constexpr explicit operator int() const { return id; }
  friend constexpr bool operator==(Algo, Algo) = default;
  friend constexpr auto operator<=>(Algo, Algo) = default;
  static const Algo Ring, Tree, NVLS, NVLSTree;
};
inline constexpr Algo Algo::Ring{0};
inline constexpr Algo Algo::Tree{1};
inline constexpr Algo Algo::NVLS{2};
inline constexpr Algo Algo::NVLSTree{3};
enum class Proto : std::uint8_t { LL, LL128, Simple };

const char* to_string(Op o);
const char* to_string(Algo a);  // the registered name ("ring", "nvlstree"); "?" for an unknown id
const char* to_string(Proto p);
// Parsers accept NCCL's spellings case-insensitively ("allreduce", "all_reduce", "alltoall", "all_to_all", "Ring",
// "LL128", "simple"); they throw UnitError listing the accepted values. parse_algo looks the name up in the
// algorithm registry (algorithm_registry.cpp).
Op parse_op(const std::string& s);
Algo parse_algo(const std::string& s);
Proto parse_proto(const std::string& s);

// NVLS endpoint: the NVSwitch of the communicator's node. A transfer to it (dst == kSwitchRank) uses only the sender
// GPU's NVLink "up" resource, one from it (src == kSwitchRank) only the receiver GPU's "down" resource; exactly one
// side of a transfer may be the switch, and only in NVLS and NVLS Tree schedules (validate.hpp). In a multi-node
// NVLS Tree schedule the switch is the one of the GPU's own node (the leg never leaves the GPU's node).
constexpr std::uint32_t kSwitchRank = 0xffffffffu;

struct Transfer {
  std::uint32_t src = 0;  // sending rank, or kSwitchRank (NVLS)
  std::uint32_t dst = 0;  // receiving rank, or kSwitchRank (NVLS)
  std::uint32_t channel = 0;
  std::uint32_t dep_begin = 0;  // dependencies: deps[dep_begin, dep_begin + dep_count)
  std::uint32_t dep_count = 0;
  std::uint32_t step = 0;  // algorithm step inside its loop (ring: 0..nsteps-1; chain: hop; tree: 0 up, 1 down)
  Bytes bytes = 0;         // payload bytes
};
static_assert(sizeof(Transfer) == 32, "Transfer must stay small: millions of them are generated");

// What a dependency of `t` on an earlier transfer `dep` waits for (generators.hpp dependency rule). A data
// dependency (a) is one whose chunk arrives where t departs (dep.dst == t.src): t forwards or reduces it, so t waits
// until dep is delivered (bytes moved and latency elapsed). Order (b, same sender) and buffer (c, the receiver's
// forwarding send) dependencies only need dep's bytes to have left its sender. When both hold (a two-rank ring,
// where the forwarding send of the receiver is also the data), data wins. NVLS: the switch reduces or multicasts
// what arrived at it, so a send from the switch depending on a send to it is a data dependency by the same rule.
enum class DepKind : std::uint8_t { Data, Sent };
inline DepKind dependency_kind(const Transfer& dep, const Transfer& t) {
  return dep.dst == t.src ? DepKind::Data : DepKind::Sent;
}

struct CollectiveSchedule {
  Op op = Op::AllReduce;
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  std::uint32_t ranks = 0;
  std::uint32_t channels = 1;
  Bytes size = 0;                    // the collective's message size as nccl-tests counts it
  std::uint32_t ranks_per_node = 0;  // ranks are node-major: rank = node * ranks_per_node + local
  std::uint32_t root = 0;            // broadcast / reduce root (0 otherwise)
  Bytes chunk_bytes = 0;             // payload bytes per transfer (at most; the last loop may be smaller)
  std::uint32_t slots = 0;           // in-flight chunks per connection (buffer slots)
  // Sends per chunk step: NCCL's SlicePerChunk (prims_simple.h). A ring allreduce / allgather / reducescatter on
  // Simple sends each chunk as CHUNKSTEPS 4 / SLICESTEPS 2 = 2 slices, each forwarded as soon as it arrives
  // (RingStream); 1 = the chunk is one send (every other algorithm and protocol).
  std::uint32_t slices = 1;
  std::uint32_t loops = 0;  // iterations of the algorithm over the data (NCCL's loopSize rule)
  std::vector<std::uint32_t>
      ring_order;  // rings and chains: ring position -> rank (empty for tree, sendrecv, alltoall)
  std::vector<Transfer> transfers;
  std::vector<std::uint32_t> deps;
  // true: a ring or tree allreduce whose transfers are not stored (GenOptions::steps); the header fields
  // above define them (RingStream, ring_stream.hpp; TreeStream, tree_stream.hpp), the engine generates them as it
  // runs, coll::materialize stores them.
  bool streamed = false;
};

}  // namespace vgsim::coll
