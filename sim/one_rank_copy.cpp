// The device-local copy NCCL runs for a one-rank collective (see include/vgsim/sim/one_rank_copy.hpp).
#include "vgsim/sim/one_rank_copy.hpp"

#include <stdexcept>

namespace vgsim::sim {

double one_rank_copy_bytes_per_s(const topo::GpuModel& gpu, const topo::GpuEndpoint& endpoint) {
  const double share = endpoint.mode == "mig" ? endpoint.memory_fraction : 1.0;
  const double bytes_per_s = gpu.memory_bandwidth.bytes_per_s * share / kCopyTrafficPerByte;
  if (!(bytes_per_s > 0))
    throw std::invalid_argument("one-rank copy: GPU '" + gpu.key + "' has no memory bandwidth in the catalog");
  return bytes_per_s;
}

Time one_rank_copy_time(const topo::GpuModel& gpu, const topo::GpuEndpoint& endpoint, Bytes bytes) {
  return Time::from_us(kOneRankLaunchLatencyUs) +
         Time::from_s(static_cast<double>(bytes) / one_rank_copy_bytes_per_s(gpu, endpoint));
}

}  // namespace vgsim::sim
