// Element counts and nccl-tests bandwidth factors of one collective at one sweep size, and the deterministic input
// pattern with its expected outputs (used for the #wrong check). Pure host code, no CUDA.
// Pattern: rank r, element i holds ((7 i + 13 r + 1) mod 16) - 8, a small integer, so every sum of up to 2^20 ranks
// is exact in float32 whatever the reduction order; the expected value is then compared exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgsim::probe {

struct CollectiveShape {
  std::string op;
  std::int64_t size_bytes = 0;  // nccl-tests "size": the whole array for allgather / reducescatter
  std::int64_t count = 0;       // nccl-tests "count": elements per rank
  std::int64_t send_count = 0;  // elements in each rank's send buffer
  std::int64_t recv_count = 0;  // elements in each rank's receive buffer
  double bus_factor = 1.0;      // busbw = algbw x bus_factor
  std::string redop;            // "sum" or "none"
  int root = -1;                // broadcast root; -1 where it does not apply
};

// nccl-tests' shapes and factors (docs/SOURCES.md#nccl-tests): allreduce 2(n-1)/n; allgather and
// reducescatter (n-1)/n over the whole array; broadcast and sendrecv 1. count is 0 when `requested_bytes` is too
// small for one float per rank (the size is then skipped).
CollectiveShape collective_shape(const std::string& op, std::int64_t requested_bytes, int nranks);

inline float pattern_value(int rank, std::int64_t i) {
  return static_cast<float>(static_cast<int>((7 * (i % 16) + 13 * (rank % 16) + 1) % 16) - 8);
}

// Fills `send` (send_count elements) with rank `rank`'s input.
void fill_input(const CollectiveShape& s, int rank, float* send);

// Number of elements of `recv` (recv_count elements, as received by `rank` of `nranks`) that differ from the expected
// result.
std::int64_t count_wrong(const CollectiveShape& s, int rank, int nranks, const float* recv);

}  // namespace vgsim::probe
