// Process exit statuses of vgsim-probe (documented in README.md; scripts and tests rely on them).
// 0 everything measured and every checked result correct; 2 bad command line or plan file; 3 no CUDA GPU visible
// (no output file is created); 4 a CUDA/NCCL/cuBLAS/MPI call failed or timed out; 5 finished, but at least one
// collective gave a wrong result (those records carry "wrong" > 0 and "usable": false).
#pragma once

namespace vgsim::probe {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoGpu = 3;
inline constexpr int kExitCallFailed = 4;
inline constexpr int kExitWrongResults = 5;

}  // namespace vgsim::probe
