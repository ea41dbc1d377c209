// cuBLAS GEMM throughput (see gemm_throughput.hpp).
#include "gemm_throughput.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace vgsim::probe {
namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  std::size_t elem_bytes;
};

GemmTypes types_of(const std::string& precision) {
  if (precision == "fp32") return {CUDA_R_32F, CUBLAS_COMPUTE_32F, 4};
  if (precision == "tf32") return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4};
  if (precision == "fp16") return {CUDA_R_16F, CUBLAS_COMPUTE_32F, 2};
  return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2};  // bf16
}

// Small values (multiples of 1/8 in [-1, 1)), exact in every precision, so the GEMM does real arithmetic on
// non-zero data (all-zero inputs can run at unrepresentatively low power).
void fill_host(const std::string& precision, std::vector<unsigned char>& buf, std::size_t elems) {
  const std::size_t eb = types_of(precision).elem_bytes;
  buf.resize(elems * eb);
  for (std::size_t i = 0; i < elems; ++i) {
    const float v = static_cast<float>(static_cast<int>((i * 2654435761u) % 16) - 8) / 8.0f;
    if (eb == 4) {
      std::memcpy(buf.data() + i * 4, &v, 4);
    } else if (precision == "fp16") {
      const __half h = __float2half(v);
      std::memcpy(buf.data() + i * 2, &h, 2);
    } else {
      const __nv_bfloat16 h = __float2bfloat16(v);
      std::memcpy(buf.data() + i * 2, &h, 2);
    }
  }
}

}  // namespace

void run_gemm_throughput(const ProbeContext& ctx, const ProbeOptions& o, RecordWriter& writer, Watchdog& watchdog) {
  if (ctx.is_writer() && !ctx.devices.empty()) {
    ArmedRegion armed(watchdog, "cuBLAS GEMM");
    CUDA_CHECK(cudaSetDevice(ctx.devices[0]));
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // precision comes from the compute type only
    cudaEvent_t start = nullptr, stop = nullptr;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<unsigned char> host;

    for (std::int64_t size : o.gemm_sizes) {
      for (const std::string& precision : o.gemm_precisions) {
        const GemmTypes t = types_of(precision);
        const auto elems = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
        void *a = nullptr, *b = nullptr, *c = nullptr;
        CUDA_CHECK(cudaMalloc(&a, elems * t.elem_bytes));
        CUDA_CHECK(cudaMalloc(&b, elems * t.elem_bytes));
        CUDA_CHECK(cudaMalloc(&c, elems * t.elem_bytes));
        fill_host(precision, host, elems);
        CUDA_CHECK(cudaMemcpy(a, host.data(), host.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b, host.data(), host.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(c, 0, elems * t.elem_bytes));
        const float alpha = 1.0f, beta = 0.0f;
        const int m = static_cast<int>(size);
        auto gemm = [&] {
          CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, a, t.data, m, b, t.data, m,
                                    &beta, c, t.data, m, t.compute, CUBLAS_GEMM_DEFAULT));
        };
        for (int i = 0; i < o.gemm_warmup; ++i) gemm();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CUDA_CHECK(cudaEventRecord(start, stream));
        for (int i = 0; i < o.gemm_iters; ++i) gemm();
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        const double us = static_cast<double>(ms) * 1e3 / o.gemm_iters;
        const double tflops = us > 0 ? 2.0 * static_cast<double>(size) * size * size / (us * 1e-6) / 1e12 : 0.0;
        nlohmann::ordered_json r;
        r["kind"] = "gemm";
        r["precision"] = precision;
        r["m"] = size;
        r["n"] = size;
        r["k"] = size;
        r["time_us"] = round3(us);
        r["tflops"] = round3(tflops);
        r["source"] = ctx.source();
        writer.write(r);
        std::fprintf(stderr, "vgsim-probe: gemm %-4s %5lld^3 %12.2f us  %8.2f TFLOP/s\n", precision.c_str(),
                     static_cast<long long>(size), us, tflops);
        CUDA_CHECK(cudaFree(a));
        CUDA_CHECK(cudaFree(b));
        CUDA_CHECK(cudaFree(c));
      }
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUBLAS_CHECK(cublasDestroy(handle));
  }
  ctx.barrier();
}

}  // namespace vgsim::probe
