// nccl-tests busbw factors (shared/reference/nccl-model.md section 2 table, from nccl-tests doc/PERFORMANCE.md).
#include "vgsim/calibrate/bus_bandwidth.hpp"

#include <stdexcept>

namespace vgsim::calibrate {

double busbw_factor(const std::string& op, std::int64_t n) {
  if (n < 1) throw std::invalid_argument("busbw_factor: nranks must be >= 1, got " + std::to_string(n));
  const double nd = static_cast<double>(n);
  if (op == "allreduce") return 2.0 * (nd - 1.0) / nd;
  if (op == "allgather" || op == "reducescatter" || op == "alltoall") return (nd - 1.0) / nd;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return 1.0;
  throw std::invalid_argument("busbw_factor: unknown collective '" + op + "'");
}

double algbw_GBps(std::int64_t size_bytes, double time_us) {
  // bytes / us = 1e6 bytes/s; / 1e9 -> GB/s: S / t_us * 1e-3.
  return time_us > 0.0 ? static_cast<double>(size_bytes) / time_us * 1e-3 : 0.0;
}

}  // namespace vgsim::calibrate
