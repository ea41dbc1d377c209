// Structural and byte-accounting check of a CollectiveSchedule, independent of how it was generated: indices in
// range, CSR dependencies contiguous and pointing backwards (topological order), no self-sends, and every rank
// receiving exactly what the collective's semantics require (e.g. ring allreduce: 2S minus its own two blocks, i.e.
// 2(n-1)/n * S when S divides evenly; broadcast: S at every non-root; tree: every rank ends up with all S bytes;
// NVLS: the NVSwitch (kSwitchRank) on exactly one side of every transfer, each GPU S + its shard up and down;
// NVLS Tree: the same switch legs per node, plus GPU-to-GPU transfers only between the GPUs of one local index on
// different nodes, forming one tree per channel and local index that leaves every GPU with its shard's result;
// alltoall: every pair (r, d) carries exactly block d of r's buffer).
#pragma once

#include <string>
#include <vector>

#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

// Returns the problems found (empty = valid). At most `max_errors` messages are collected.
std::vector<std::string> validate(const CollectiveSchedule& s, std::size_t max_errors = 20);

// Total payload bytes the collective must put on the wire: allreduce (ring and tree) 2(n-1)S; allgather,
// reducescatter, broadcast, reduce, alltoall (n-1)S; sendrecv nS (nccl-tests size conventions). NVLS allreduce counts
// both switch legs of every byte: (n+1)S up plus (n+1)S down = 2(n+1)S. NVLS Tree (needs ranks_per_node): every node's
// switch legs 2(n_l+1)S plus S up and S down per node-tree edge: N 2(n_l+1)S + 2(N-1)S.
Bytes required_total_bytes(Op op, std::uint32_t ranks, Bytes size, Algo algo = Algo::Ring,
                           std::uint32_t ranks_per_node = 0);

}  // namespace vgsim::coll
