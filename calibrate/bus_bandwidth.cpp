// nccl-tests busbw factors for measurement records (op names as strings): delegates to the one
// definition in workloads/collectives (coll::busbw_factor, coll::algbw_GBps; docs/SOURCES.md#nccl-tests table).
#include "vgsim/calibrate/bus_bandwidth.hpp"

#include <stdexcept>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::calibrate {

double busbw_factor(const std::string& op, std::int64_t n) {
  if (n < 1) throw std::invalid_argument("busbw_factor: nranks must be >= 1, got " + std::to_string(n));
  try {
    return coll::busbw_factor(coll::parse_op(op), static_cast<std::uint32_t>(n));
  } catch (const UnitError&) {
    throw std::invalid_argument("busbw_factor: unknown collective '" + op + "'");
  }
}

double algbw_GBps(std::int64_t size_bytes, double time_us) { return coll::algbw_GBps(size_bytes, time_us); }

}  // namespace vgsim::calibrate
