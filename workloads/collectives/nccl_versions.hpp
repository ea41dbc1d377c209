// NCCL's tuning constants of the releases before the 2.30 HEAD tables (internal to nccl_tuning.cpp): which known tag
// each version 2.4 .. 2.29 takes its constants from, and the one-line statement of what is approximated.
#pragma once

#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::coll::detail {

// Overwrites the HEAD tables in `t` with those of NCCL 2.<minor> (4 <= minor < 30) and sets its availability flags,
// `approximation` and `sources`.
void apply_version_tables(NcclTuning& t, int minor);

}  // namespace vgsim::coll::detail
