// cuBLAS GEMM throughput on the writer rank's first GPU: square C = A B for each size and precision, timed with CUDA
// events after warm-up. tflops = 2 m n k / time / 1e12. Precisions: fp32 (CUBLAS_COMPUTE_32F, no TF32), tf32
// (CUBLAS_COMPUTE_32F_FAST_TF32), fp16 and bf16 (16-bit A, B, C with fp32 accumulation, as training frameworks use).
#pragma once

#include "checked_calls.hpp"
#include "probe_context.hpp"
#include "probe_options.hpp"
#include "record_writer.hpp"

namespace vgsim::probe {

void run_gemm_throughput(const ProbeContext& ctx, const ProbeOptions& options, RecordWriter& writer,
                         Watchdog& watchdog);

}  // namespace vgsim::probe
