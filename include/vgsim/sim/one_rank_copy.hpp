// NCCL on a communicator of one rank runs no algorithm: ncclAllReduce, ncclBroadcast, ncclReduce, ncclAllGather,
// ncclReduceScatter (and ncclAlltoAll) call ncclLaunchOneRank (NVIDIA/nccl src/enqueue.cc, "if (comm->nRanks == 1)";
// src/device/onerank.cu), which copies the send buffer into the receive buffer with cudaMemcpyAsync when they differ
// and does nothing in place (PreMulSum alone runs a copy kernel instead). updateCollCostTable (enqueue.cc) gives
// Ring/Simple cost 0 for nRanks == 1. vgsim charges that device-local copy: a launch latency plus the bytes at the
// GPU's copy bandwidth (its device-memory bandwidth / 2: a copy reads and writes every byte).
#pragma once

#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/virtualization.hpp"

namespace vgsim::sim {

// Per call: the host-side cost of issuing one cudaMemcpyAsync, 6 us = the midpoint of the 5-7 us per call measured
// by Wu et al., "DualPath" (arXiv:2602.21548, 2026), section 5.2 [assumption: their copies, not NCCL's call path;
// grade C: the figure was read in a summary of the paper, not checked in the paper itself].
constexpr double kOneRankLaunchLatencyUs = 6.0;
// Device-memory traffic per byte copied: one read plus one write (the CUDA samples' bandwidthTest counts its
// device-to-device bandwidth as 2 x bytes / time for the same reason).
constexpr double kCopyTrafficPerByte = 2.0;

// Bytes per second a device-local copy moves on this endpoint: the catalog's memory bandwidth / 2, times the
// endpoint's memory slices / 8 on a MIG instance (the share of the memory system it owns). Time-sliced vGPUs and
// whole GPUs copy at the full rate (nothing else runs during a collective sweep).
double one_rank_copy_bytes_per_s(const topo::GpuModel& gpu, const topo::GpuEndpoint& endpoint);
// kOneRankLaunchLatencyUs + bytes / one_rank_copy_bytes_per_s.
Time one_rank_copy_time(const topo::GpuModel& gpu, const topo::GpuEndpoint& endpoint, Bytes bytes);

}  // namespace vgsim::sim
