// Private to the collectives library: the built-in algorithms' records (one file each: ring_algorithm.cpp,
// tree_algorithm.cpp, nvls_algorithm.cpp, nvls_tree_algorithm.cpp; algorithm_registry.cpp registers them) and the
// helpers they share with the generic code (geometry, validation's block split, analytical pieces).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builder.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"

namespace vgsim::coll::detail {

AlgorithmInfo ring_algorithm();       // ring allreduce / allgather / reducescatter, chains, and the p2p marker
AlgorithmInfo tree_algorithm();       // NCCL's double binary tree allreduce
AlgorithmInfo nvls_algorithm();       // NVLink SHARP allreduce on one node
AlgorithmInfo nvls_tree_algorithm();  // NVLS per node + node tree across nodes

// Buffer geometry (generate.cpp): ring allreduce / allgather / reducescatter with Simple use CHUNKSTEPS 4 chunks
// (2 slots, 1 MiB slices), the rest the protocol's; NVLS 128 KiB chunks, NVLS Tree one 512 KiB Simple step (lowered
// per call: AlgorithmInfo::call_chunk), both 8 slots.
Geometry ring_geometry(Op op, Proto proto);
Geometry nvls_geometry();
Geometry nvls_tree_geometry();

// Why a node's ranks cannot run NVLS there ("" = they can): a single rank, no NVLink P2P, older than Hopper, or a
// rank not a whole GPU on the NVSwitch (nvls_algorithm.cpp; NVLS Tree applies it to every node).
std::string nvls_node_missing(const CommShape& c);

// validate.cpp: bytes of block b (ring position b's slice, or NVLS shard b) under the documented split (loopSize =
// channels x n x chunk, piece c x n + b of each loop belongs to block b).
std::vector<Bytes> blocks(const CollectiveSchedule& s, std::uint32_t n);

// analytical.cpp: the time the bytes of one transfer occupy its connection (no latency); the node trees a c-channel
// tree call uses (deepest depth, most tree edges at one node); a pipeline of stages (a chunk walks them in turn,
// later chunks follow): the last stage's sent time + its latency.
Time send_time(const HopCost& h, Bytes bytes, double eff);
struct TreeShape {
  std::uint32_t depth = 0, degree = 0;
};
TreeShape tree_shape(std::uint32_t nodes, std::uint32_t channels);
Time pipeline_time(const std::vector<const HopCost*>& stages, const Partition& part, double eff);

}  // namespace vgsim::coll::detail
