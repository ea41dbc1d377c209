// Open MPI's coll/base allreduce algorithms (coll_base_allreduce.c; the coll/tuned numbering 1..6 used by
// coll_tuned_allreduce_algorithm) as CollectiveSchedules over abstract ranks, for CPU-buffer MPI clusters. A
// separate entry point from generate(): coll::Algo stays NCCL's Ring/Tree; the schedule's algo field is Ring and
// its meaning is in OmpiSchedule::algorithm. Each transfer is one MPI message of its `bytes`; `reduces[t]` says the
// receiver combines those bytes into its buffer on arrival (the per-byte reduction cost gamma of Thakur et al. 2005,
// docs/SOURCES.md#cost-models). Not here: costs or the engine (calibrate/alpha_beta_replay). Units: bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

enum class OmpiAllreduce : std::uint8_t {
  BasicLinear = 1,        // linear reduce to rank 0 (receives in rank order, each reduced), then linear bcast
  Nonoverlapping = 2,     // reduce then bcast; modelled as binomial-tree reduce + binomial bcast (an assumption)
  RecursiveDoubling = 3,  // log2 p exchanges of the whole vector (non-powers of two fold the extra ranks first)
  Ring = 4,               // reduce-scatter ring (p-1 steps of n/p) + allgather ring (p-1 steps)
  SegmentedRing = 5,      // ring pipelined in segments of segment_bytes per block (0 = Open MPI's default: plain ring)
  Rabenseifner = 6,       // reduce-scatter by recursive halving + allgather by recursive doubling
};

// "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner".
const char* to_string(OmpiAllreduce a);
// Accepts those names and the numbers "1".."6"; throws UnitError listing them.
OmpiAllreduce parse_ompi_allreduce(const std::string& s);

struct OmpiSchedule {
  OmpiAllreduce algorithm = OmpiAllreduce::Ring;
  CollectiveSchedule schedule;        // transfers + deps (topological order); op AllReduce
  std::vector<std::uint8_t> reduces;  // per transfer: 1 = the receiver reduces the received bytes
};

// `size` bytes per rank (the vector being reduced), `elem_bytes` its element size (Open MPI splits by elements and
// applies coll_base's fallbacks: ring -> recursive doubling when count < p, rabenseifner -> basic_linear when
// count < pof2; ompi_decision.hpp).
// `segment_bytes` is the segmented ring's segment size (coll_tuned_allreduce_algorithm_segmentsize; 0 = default:
// coll_base then runs the plain ring). Throws std::invalid_argument for ranks == 0 or elem_bytes <= 0.
OmpiSchedule ompi_allreduce(OmpiAllreduce algorithm, std::uint32_t ranks, Bytes size, Bytes elem_bytes = 4,
                            Bytes segment_bytes = 0);

}  // namespace vgsim::coll
