// nccl-tests' bus-bandwidth convention (docs/SOURCES.md#nccl-tests, from nccl-tests doc/PERFORMANCE.md):
// algbw = S / t (GB = 1e9 bytes) and busbw = algbw x factor(op, n). The factor turns algbw into the per-rank link
// rate of an ideal ring; it is not a wire speed for tree/NVLS/CollNet. Pure functions, no state.
#pragma once

#include <cstdint>
#include <string>

namespace vgsim::calibrate {

// allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
// Throws std::invalid_argument for an unknown op or n < 1.
double busbw_factor(const std::string& op, std::int64_t nranks);

// algbw in GB/s of `size_bytes` moved in `time_us` (0 when time_us <= 0).
double algbw_GBps(std::int64_t size_bytes, double time_us);

}  // namespace vgsim::calibrate
