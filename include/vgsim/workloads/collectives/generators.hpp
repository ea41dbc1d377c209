// Collective algorithm generators: each returns a CollectiveSchedule (transfers between abstract ranks with CSR
// dependencies, topological order) that mirrors NCCL's step structure: rings (allreduce = reduce-scatter then
// allgather; allgather; reduce-scatter; broadcast/reduce pipelined along the ring), sendrecv (r -> r+1), and NCCL's
// double binary tree allreduce (two complementary binary trees over NODES, a chain through the GPUs of each node).
// Not here: costs (nccl_tuning.hpp), executing (sim/). Units: bytes are payload bytes.
//
// Data split (exact, no byte lost): per channel a ring moves one chunk per rank per step. NCCL's loopSize =
// channels * ranks * chunk_bytes (rings and NVLS: one shard chunk per rank) or channels * chunk_bytes (chain, tree,
// sendrecv). loops =
// max(1, ceil(size / loopSize)); every loop but the last moves full chunks; the last loop's remainder R is spread over
// its M pieces as floor(R/M) plus one byte for the first R % M pieces (pieces may be 0 bytes for tiny sizes; they
// still exist, as NCCL still posts those steps).
//
// Dependency rule (one transfer = one chunk sent on one connection src -> dst of one channel; a ring on Simple sends
// each chunk as CollectiveSchedule::slices slices and applies the rule per slice, ring_stream.hpp). A send waits for
//  (a) data:   the receive it forwards or reduces (ring: rank r-1's send of step s-1 in the same loop; chain: the
//              previous hop of the same chunk; tree up: every child's up-send of the chunk; tree down: the parent's
//              down-send of the chunk, or at the root all its children's up-sends);
//  (b) order:  the same connection's previous send (sends on a connection are FIFO);
//  (c) buffer: a free slot at the receiver. The receiver holds `slots` chunks per connection, so send k needs chunk
//              k - slots (on this connection) to be consumed, i.e. the receiver's send that forwarded it has
//              finished. A chunk the receiver does not forward (last ring step of a loop, chain/tree leaf, sendrecv)
//              is consumed on arrival, which (b) already covers. At the tree root a chunk is consumed by the root's
//              first down-send of it. slots must be >= 2 (with 1 slot a ring would wait on itself).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

// How a streamable schedule (a ring allreduce, allgather or reducescatter; the tree and NVLS Tree allreduces) comes
// back.
enum class StepStorage : std::uint8_t {
  Stored,    // every transfer stored (what other algorithms always are; the test oracle; fewer than 2^32)
  Streamed,  // a header without transfers (CollectiveSchedule::streamed): the engine generates each step as its
             // dependencies resolve (sim/ring_run, sim/tree_run, sim/nvls_tree_run), memory O(ranks x channels; NVLS
             // Tree: x ranks per node), no 2^32 limit
};

struct GenOptions {
  std::uint32_t channels = 1;  // data split evenly over channels; each is an independent ring / tree (tree: even)
  Bytes chunk_bytes = 0;       // payload bytes per step transfer; 0 = NCCL default for (op, algo, proto)
  std::uint32_t slots = 0;     // in-flight chunks per connection; 0 = NCCL default (NCCL_STEPS / chunk steps)
  std::uint32_t root = 0;      // broadcast / reduce root rank
  std::vector<std::uint32_t> ring_order;  // ring position -> rank (a permutation); empty = 0, 1, ..., n-1
  // Point-to-point geometry of alltoall (alltoall.cpp; the communicator derives it from NCCL's rules): `channels`
  // is NCCL's p2pnChannels (a power of two), p2p_channels_per_peer its p2pnChannelsPerPeer (a power of two, at most
  // `channels`), p2p_ops_per_batch NCCL_MAX_DEV_WORK_P2P_PER_BATCH. 0 = 2 and 8 (alltoall.cpp says where from).
  std::uint32_t p2p_channels_per_peer = 0;
  std::uint32_t p2p_ops_per_batch = 0;
  // Resource guard: a schedule of more transfers than this (about 64 B of memory each, plus the engine's events) is
  // refused before it is built, with an InputError naming --max-transfers and the estimate. 0 = no limit.
  std::uint64_t max_transfers = 0;
  // Stored or streamed (StepStorage); max_transfers bounds a streamed schedule's work too (about two engine events
  // per transfer). Other algorithms ignore it.
  StepStorage steps = StepStorage::Stored;
};

// The transfers of a streamed header (same schedule as generating it with StepStorage::Stored); throws
// std::invalid_argument for a schedule that is not streamed and InputError beyond `max_transfers` (0 = no limit).
CollectiveSchedule materialize(const CollectiveSchedule& streamed_header, std::uint64_t max_transfers = 0);

// NCCL's per-protocol buffer geometry (docs/SOURCES.md#nccl-tuning; enqueue.cc chunk rule):
//   Simple: BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB per step; ring allreduce/allgather/reducescatter use
//           CHUNKSTEPS 4 -> 2 MiB chunks, 8/4 = 2 slots; broadcast/reduce/tree use 1 step -> 512 KiB, 8 slots.
//   LL:     buffer 512 KiB / 8 = 64 KiB of lines per step, half of it payload -> 32 KiB chunks, 8 slots.
//   LL128:  buffer 120*640*8*8 B = 4,915,200 B / 8 = 614,400 B per step, 120/128 payload -> 576,000 B, 8 slots.
//   SendRecv (p2p): NCCL_P2P_NVL_CHUNKSIZE 512 KiB (use 128 KiB for NET / PCI paths), 8 slots.
//   AllToAll (p2p): NCCL_P2P_NET_CHUNKSIZE 128 KiB (the communicator passes the NVL / PCI size where it applies).
//   NVLS:   NCCL_NVLS_CHUNKSIZE 128 KiB per shard chunk (recalled from nvls.cc [verify]), 8 slots (assumption).
//   NVLS Tree: one Simple step (512 KiB) at most, adapted per call (call_chunk_bytes), 8 slots.
// These are the largest chunks; call_chunk_bytes gives the one a call of a given size runs with.
Bytes default_chunk_bytes(Op op, Algo algo, Proto proto);
// The chunk of one call (enqueue.cc adapts it to the size for some algorithms: AlgorithmInfo::call_chunk) and its
// slice (the geometry's slice, at most that chunk).
Bytes call_chunk_bytes(Op op, Algo algo, Proto proto, Bytes size, std::uint32_t channels, std::uint32_t ranks_per_node);
Bytes call_slice_bytes(Op op, Algo algo, Proto proto, Bytes size, std::uint32_t channels, std::uint32_t ranks_per_node);
std::uint32_t default_slots(Op op, Algo algo, Proto proto);
// The unit the proxy hands over at a time (net.cc: one isend/irecv per SLICESTEPS steps; the GPU advances tail per
// slice): ring allreduce/allgather/reducescatter Simple SLICESTEPS 2 of CHUNKSTEPS 4 -> 1 MiB; every other
// (algo, proto) one chunk (docs/SOURCES.md#nccl-paths).
Bytes default_slice_bytes(Op op, Algo algo, Proto proto);
// Sends per chunk step (CollectiveSchedule::slices): 2 for a ring allreduce/allgather/reducescatter on Simple
// (SlicePerChunk = CHUNKSTEPS 4 / SLICESTEPS 2), else 1. A user's chunk_bytes keeps it (NCCL_BUFFSIZE scales both).
std::uint32_t default_slices(Op op, Algo algo, Proto proto);

// Dispatch on (op, algo). ranks_per_node must divide ranks (node-major ranks). Throws std::invalid_argument on
// impossible combinations (Tree for anything but allreduce, odd tree channel counts, slots < 2, bad ring_order).
CollectiveSchedule generate(Op op, Algo algo, Proto proto, std::uint32_t ranks, std::uint32_t ranks_per_node,
                            Bytes size, const GenOptions& options = {});

// The individual generators (same contract as generate()). `size` follows nccl-tests: allgather and
// reducescatter take the total array (n times the per-rank count).
CollectiveSchedule ring_allreduce(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                  const GenOptions& options = {});
CollectiveSchedule ring_allgather(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                  const GenOptions& options = {});
CollectiveSchedule ring_reducescatter(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                      const GenOptions& options = {});
CollectiveSchedule ring_broadcast(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                  const GenOptions& options = {});
CollectiveSchedule ring_reduce(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                               const GenOptions& options = {});
CollectiveSchedule sendrecv(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                            const GenOptions& options = {});
// nccl-tests alltoall_perf: every rank sends block d of its S-byte buffer (S/n, the first S % n blocks one byte more)
// to every other rank d, as NCCL runs it: one ncclSend / ncclRecv per peer in a group, scheduled in NCCL's p2p
// rounds over the p2p channels, each channel's operations in batches run one after the other (alltoall.cpp has the
// mechanism and its sources). Per rank r: bytes out = S - block_r, bytes in = (n-1) block_r ((n-1)/n S when n divides
// S); the self block is a local copy and moves nothing. Algo must be Ring (vgsim's marker for p2p), Simple protocol.
CollectiveSchedule alltoall(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                            const GenOptions& options = {});
// NCCL's p2p round order (init.cc p2pSchedule, NCCL >= 2.19): round i pairs a send to the rank (node + dn, local + dl)
// with a receive from (node - dn, local - dl), node deltas dn in the quadratic order (x^2 + x)/2 mod pow2Up(nodes)
// (values >= nodes skipped), within each the local deltas dl likewise over pow2Up(ranks_per_node). Round 0 is (0, 0),
// the rank itself. Returns the (dn, dl) of every round.
std::vector<std::pair<std::uint32_t, std::uint32_t>> p2p_rounds(std::uint32_t nodes, std::uint32_t ranks_per_node);
CollectiveSchedule tree_allreduce(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                  const GenOptions& options = {});
// NVLS (NVLink SHARP) allreduce on the ranks of ONE node behind one NVSwitch (nvls.cpp has the physics): transfers
// to and from coll::kSwitchRank. Per GPU r: bytes up = bytes down = S + block_r (= S(1 + 1/n) when n divides
// evenly). Simple protocol only; ranks_per_node must equal ranks. NCCL 2.19+ also runs allgather / reducescatter
// with NVLS: not modelled (generate() refuses them).
CollectiveSchedule nvls_allreduce(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                  const GenOptions& options = {});
// NVLS Tree allreduce across N >= 2 nodes of ranks_per_node GPUs behind each node's NVSwitch (nvls_tree.cpp has the
// physics): per node NVLS switch legs (coll::kSwitchRank is the GPU's own node's switch), across nodes GPU k of
// every node on NCCL's node tree (node_tree; channels [0, c/2) tree 0, [c/2, c) tree 1). Per GPU r: bytes up =
// bytes down = S + block_r (block_r: local index r's shard over the channels x ranks_per_node split); network
// bytes per GPU and direction block_r for N = 2. Simple protocol only; channels 1 or even.
CollectiveSchedule nvls_tree_allreduce(std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size, Proto proto,
                                       const GenOptions& options = {});
// Switch legs along one chunk's data chain in nvls_allreduce: up (read for the reduction), down (reduced shard),
// up (the reducer's multicast store), down (multicast delivery).
constexpr std::uint32_t kNvlsChainLegs = 4;

// NCCL's binary tree over `nodes` (trees.cc ncclGetBtree / ncclGetDtree): tree 0 is the btree rooted at node 0;
// tree 1 is its mirror (n-1-x) for even counts, or its shift by one (x+1 mod n) for odd counts. -1 = none.
struct NodeTree {
  std::vector<int> parent;                 // per node
  std::vector<std::vector<int>> children;  // per node, <= 2 each, ascending
  int root = 0;
};
NodeTree node_tree(std::uint32_t nodes, int which /* 0 or 1 */);

// The full rank-level tree a tree channel uses: node tree `which` with a chain through each node's GPUs.
// Both trees chain local 0 -> 1 -> ... -> ppn-1 (head local 0), as NCCL's connectTrees gives a channel and its
// duplicate the same intra-node chain. Which GPU (and so which NIC) heads a channel is the placement's business:
// the communicator rotates each channel's GPU order, so heads spread over all GPUs of a node (a reversed chain for
// tree 1 made that rotation put two channels' heads on one GPU and leave another GPU's NIC idle).
// Inter-node edges join node heads.
struct RankTree {
  std::vector<int> parent;                           // per rank, -1 at the root
  std::vector<std::vector<std::uint32_t>> children;  // per rank: intra-node child first, then node children
  std::vector<std::uint32_t> depth;                  // edges from the root
  std::uint32_t root = 0;
};
RankTree rank_tree(std::uint32_t ranks, std::uint32_t ranks_per_node, int which);

// Number of steps per loop of a ring op: allreduce 2(n-1), allgather/reducescatter n-1, broadcast/reduce n-1 hops.
std::uint32_t ring_steps(Op op, std::uint32_t ranks);

}  // namespace vgsim::coll
