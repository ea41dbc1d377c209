// JSON dump of a CollectiveSchedule for debugging and tests (not an input format; nothing reads it back).
// Layout: {"op","algo","proto","ranks","ranks_per_node","channels","size_bytes","chunk_bytes","slots","loops","root",
//          "transfers":[{"i","src","dst","channel","step","bytes","deps":[...]}, ...]} with at most `max_transfers`
// transfers listed ("transfers_total" gives the real count). Deterministic: same schedule, same text.
#pragma once

#include <cstddef>
#include <string>

#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

std::string to_json(const CollectiveSchedule& s, std::size_t max_transfers = 1000000, int indent = -1);

}  // namespace vgsim::coll
