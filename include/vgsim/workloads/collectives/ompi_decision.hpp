// Which Open MPI coll/tuned algorithm runs (issue 15): the fixed decision rules of each release, forcing with
// coll_tuned_use_dynamic_rules, and coll_base's internal fallbacks (which apply even to a forced algorithm). Facts and
// line numbers: data/measured/osu-openmpi/README.md and docs in the .cpp (docs/SOURCES.md#open-mpi,
// strength A unless marked). Domain layer: no costs, no engine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/ompi_allreduce.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

// Open MPI release families with distinct coll/tuned allreduce tables: v3.1.x = v4.0.x (one table; no rabenseifner
// in v3.1), v4.1.x = v5.0.x (another table; op/avx from v4.1.0).
enum class OmpiRelease : std::uint8_t { V3_1, V4_0, V4_1, V5_0 };
const char* to_string(OmpiRelease r);                  // "3.1", "4.0", "4.1", "5.0"
OmpiRelease parse_ompi_release(const std::string& s);  // "3.1", "3.1.6", "v4.0.7", "4.1", "5.0.9" ...; UnitError
bool has_op_avx(OmpiRelease r);                        // op/avx component (v4.1.0 and later)

// coll/tuned allgather algorithm ids (coll_tuned_allgather_algorithm): 1 linear, 2 bruck, 3 recursive doubling,
// 4 ring, 5 neighbor exchange, 6 two_proc.
enum class OmpiAllgather : std::uint8_t {
  Linear = 1,
  Bruck = 2,
  RecursiveDoubling = 3,
  Ring = 4,
  NeighborExchange = 5,
  TwoProcs = 6,
};
const char* to_string(OmpiAllgather a);
OmpiAllgather parse_ompi_allgather(const std::string& s);  // names or "1".."6"; UnitError listing them

struct OmpiAllreduceChoice {
  OmpiAllreduce requested = OmpiAllreduce::Ring;  // the rule's or the forced choice
  OmpiAllreduce runs = OmpiAllreduce::Ring;       // after coll_base's fallbacks
  Bytes segment_bytes = 0;                        // segmented ring segment (0 = none)
  std::string reason;                             // the rule cell / forcing and fallbacks, one line
};

// The fixed rule (ompi_coll_tuned_allreduce_intra_dec_fixed) for `p` ranks and `total_bytes` per rank.
OmpiAllreduceChoice ompi_allreduce_fixed(OmpiRelease release, std::uint32_t p, Bytes total_bytes, Bytes elem_bytes,
                                         bool commutative = true);
// What runs: the forced algorithm only with dynamic rules on (otherwise the fixed rule; a forced algorithm without
// dynamic rules is ignored, as Open MPI does), then the fallbacks of coll_base. Forcing rabenseifner on v3.1 is a
// UnitError (the id is out of range there).
OmpiAllreduceChoice ompi_allreduce_decide(OmpiRelease release, bool dynamic_rules, std::optional<OmpiAllreduce> forced,
                                          Bytes forced_segment_bytes, std::uint32_t p, Bytes total_bytes,
                                          Bytes elem_bytes, bool commutative = true);
// coll_base's fallbacks alone: ring with count < p -> recursive doubling; segmented ring with count < p * segcount
// (or no usable segment) -> ring (-> recursive doubling); rabenseifner with count < p' or a non-commutative op ->
// basic_linear.
OmpiAllreduceChoice ompi_allreduce_fallbacks(OmpiAllreduceChoice c, std::uint32_t p, Bytes total_bytes,
                                             Bytes elem_bytes, bool commutative = true);

struct OmpiAllgatherChoice {
  OmpiAllgather runs = OmpiAllgather::Ring;
  std::string reason;
};
// Allgather: `block_bytes` per rank. The fixed rule is the v3.1 one for every release (grade D: recalled, see .cpp).
OmpiAllgatherChoice ompi_allgather_decide(OmpiRelease release, bool dynamic_rules, std::optional<OmpiAllgather> forced,
                                          std::uint32_t p, Bytes block_bytes);

// Allgather schedule (OmpiSchedule with op AllGather; no transfer reduces): each rank contributes `block_bytes`.
OmpiSchedule ompi_allgather(OmpiAllgather algorithm, std::uint32_t ranks, Bytes block_bytes);

}  // namespace vgsim::coll
