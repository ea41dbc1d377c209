// Copy bandwidth measurements (see copy_bandwidth.hpp).
#include "copy_bandwidth.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace vgsim::probe {
namespace {

struct CopyCase {
  std::string direction;
  int src_device, dst_device;  // -1 = host
};

// Times `iters` copies of `bytes` on `stream` after `warmup` untimed ones; returns microseconds per copy.
double time_copies(void* dst, int dst_dev, const void* src, int src_dev, std::size_t bytes, cudaMemcpyKind kind,
                   bool peer, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, int warmup, int iters) {
  auto copy = [&] {
    if (peer) {
      CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, stream));
    } else {
      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    }
  };
  for (int i = 0; i < warmup; ++i) copy();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < iters; ++i) copy();
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return static_cast<double>(ms) * 1e3 / iters;
}

void write_copy(const ProbeContext& ctx, RecordWriter& writer, const CopyCase& c, std::int64_t bytes, double us) {
  const double gbps = us > 0 ? static_cast<double>(bytes) / (us * 1e3) : 0.0;
  nlohmann::ordered_json r;
  r["kind"] = "copy";
  r["direction"] = c.direction;
  r["src_device"] = c.src_device;
  r["dst_device"] = c.dst_device;
  r["size_bytes"] = bytes;
  r["time_us"] = round3(us);
  r["bandwidth_GBps"] = round3(gbps);
  r["source"] = ctx.source();
  writer.write(r);
  std::fprintf(stderr, "vgsim-probe: copy %-4s %2d -> %2d %12lld B %12.2f us  %8.2f GB/s\n", c.direction.c_str(),
               c.src_device, c.dst_device, static_cast<long long>(bytes), us, gbps);
}

}  // namespace

void run_copy_bandwidth(const ProbeContext& ctx, const ProbeOptions& o, RecordWriter& writer, Watchdog& watchdog) {
  if (ctx.is_writer()) {
    ArmedRegion armed(watchdog, "copy bandwidth");
    const std::vector<std::int64_t> sizes = o.copy.sizes();
    const std::size_t max_bytes = sizes.empty() ? 0 : static_cast<std::size_t>(sizes.back());
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    void* host = nullptr;
    CUDA_CHECK(cudaMallocHost(&host, max_bytes));
    std::memset(host, 1, max_bytes);
    std::vector<void*> a(static_cast<std::size_t>(count)), b(static_cast<std::size_t>(count));
    std::vector<cudaStream_t> streams(static_cast<std::size_t>(count));
    std::vector<cudaEvent_t> starts(static_cast<std::size_t>(count)), stops(static_cast<std::size_t>(count));
    for (int d = 0; d < count; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      CUDA_CHECK(cudaMalloc(&a[d], max_bytes));
      CUDA_CHECK(cudaMalloc(&b[d], max_bytes));
      CUDA_CHECK(cudaMemset(a[d], 1, max_bytes));
      CUDA_CHECK(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
      CUDA_CHECK(cudaEventCreate(&starts[d]));
      CUDA_CHECK(cudaEventCreate(&stops[d]));
    }
    const int w = o.copy_warmup, n = o.copy_iters;
    for (int d = 0; d < count; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      for (std::int64_t bytes : sizes) {
        const auto sz = static_cast<std::size_t>(bytes);
        write_copy(
            ctx, writer, {"h2d", -1, d}, bytes,
            time_copies(a[d], d, host, -1, sz, cudaMemcpyHostToDevice, false, streams[d], starts[d], stops[d], w, n));
        write_copy(
            ctx, writer, {"d2h", d, -1}, bytes,
            time_copies(host, -1, a[d], d, sz, cudaMemcpyDeviceToHost, false, streams[d], starts[d], stops[d], w, n));
        write_copy(
            ctx, writer, {"d2d", d, d}, bytes,
            time_copies(b[d], d, a[d], d, sz, cudaMemcpyDeviceToDevice, false, streams[d], starts[d], stops[d], w, n));
      }
    }
    for (int src = 0; src < count; ++src) {
      for (int dst = 0; dst < count; ++dst) {
        if (src == dst) continue;
        int can = 0;
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can, src, dst));
        if (!can) continue;
        CUDA_CHECK(cudaSetDevice(src));
        const cudaError_t rc = cudaDeviceEnablePeerAccess(dst, 0);
        if (rc == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();  // clears the sticky-free "already enabled" status
        } else {
          CUDA_CHECK(rc);
        }
        for (std::int64_t bytes : sizes) {
          write_copy(ctx, writer, {"p2p", src, dst}, bytes,
                     time_copies(b[dst], dst, a[src], src, static_cast<std::size_t>(bytes), cudaMemcpyDefault, true,
                                 streams[src], starts[src], stops[src], w, n));
        }
      }
    }
    for (int d = 0; d < count; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      CUDA_CHECK(cudaFree(a[d]));
      CUDA_CHECK(cudaFree(b[d]));
      CUDA_CHECK(cudaStreamDestroy(streams[d]));
      CUDA_CHECK(cudaEventDestroy(starts[d]));
      CUDA_CHECK(cudaEventDestroy(stops[d]));
    }
    CUDA_CHECK(cudaFreeHost(host));
  }
  ctx.barrier();
}

}  // namespace vgsim::probe
