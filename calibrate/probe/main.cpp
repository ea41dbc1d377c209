// vgsim-probe entry point: parse options and plan, find the GPUs (exit 3 without one, creating no file), then write
// the environment record, copy bandwidths, GEMM throughputs and the NCCL collective sweep as JSON lines.
// Exit statuses: exit_codes.hpp. Run modes: probe_context.hpp. Output schema: README.md.
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>

#include "checked_calls.hpp"
#include "collective_sweep.hpp"
#include "copy_bandwidth.hpp"
#include "environment_record.hpp"
#include "exit_codes.hpp"
#include "gemm_throughput.hpp"
#include "probe_context.hpp"
#include "probe_options.hpp"
#include "record_writer.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim::probe;

namespace {

// cudaGetDeviceCount on this process; on failure or zero devices, the reason.
int visible_gpus(std::string& reason) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    reason = cudaGetErrorString(rc);
    (void)cudaGetLastError();
    return 0;
  }
  if (count == 0) reason = "0 devices";
  return count;
}

void finish_mpi(const ProbeContext& ctx) {
  if (ctx.use_mpi) MPI_Finalize();
}

}  // namespace

int main(int argc, char** argv) {
  ProbeOptions options;
  try {
    if (!parse_probe_options(argc, argv, options)) return kExitOk;  // --help
  } catch (const vgsim::InputError& e) {
    std::fprintf(stderr, "vgsim-probe: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vgsim-probe: %s\n", e.what());
    return kExitUsage;
  }

  ProbeContext ctx = start_context(launched_by_mpi());

  // Every rank must see a GPU; all ranks agree before anyone touches NCCL, so nobody is left waiting.
  std::string reason;
  const int gpus = visible_gpus(reason);
  const int any_missing = ctx.max(gpus == 0 ? 1 : 0);
  if (any_missing) {
    if (gpus == 0) {
      std::fprintf(stderr,
                   "vgsim-probe: no CUDA GPU visible (cudaGetDeviceCount: %s); run it on the target cluster, e.g. "
                   "mpirun -np 8 -N 4 vgsim-probe --out probe.jsonl\n",
                   reason.c_str());
    }
    finish_mpi(ctx);
    return kExitNoGpu;
  }
  assign_devices(ctx, gpus, options.gpus);

  Watchdog watchdog(options.timeout_s);
  RecordWriter writer(options.out_path, ctx.is_writer());
  {
    ArmedRegion armed(watchdog, "environment record");
    writer.write(environment_record(ctx, options));
  }
  if (ctx.is_writer()) {
    std::fprintf(stderr, "vgsim-probe: run %s: %d rank(s) on %d node(s), writing %s\n", ctx.run_id.c_str(),
                 ctx.nccl_ranks, ctx.nnodes, options.out_path.c_str());
  }
  if (options.copies) run_copy_bandwidth(ctx, options, writer, watchdog);
  if (options.gemm) run_gemm_throughput(ctx, options, writer, watchdog);
  const long wrong = run_collective_sweep(ctx, options, writer, watchdog);

  if (ctx.is_writer()) {
    std::fprintf(stderr, "vgsim-probe: done; %s\n",
                 wrong > 0 ? (std::to_string(wrong) + " collective measurement(s) had wrong results (\"usable\": "
                                                      "false)")
                                 .c_str()
                           : "all checked results correct");
  }
  finish_mpi(ctx);
  return wrong > 0 ? kExitWrongResults : kExitOk;
}
