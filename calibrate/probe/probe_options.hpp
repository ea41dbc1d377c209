// What vgsim-probe measures: the collective size sweep, the operations, the forced NCCL_ALGO x NCCL_PROTO
// combinations, iteration counts, copy sizes and GEMM shapes. Filled from defaults, then an optional JSON plan file
// (validated with vgsim::JsonReader), then command-line options (which win). Sizes are bytes; timeout is seconds.
// Defaults follow nccl-tests' launch conventions (docs/SOURCES.md#nccl-tests), not measured values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgsim::probe {

struct SizeSweep {
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;
  double factor = 2.0;          // multiplicative step, as nccl-tests -f
  std::int64_t step_bytes = 0;  // > 0: linear step instead of the factor, as nccl-tests -i
  // min, min*factor (or min+step), ... up to max (each rounded down to a multiple of 4 bytes, duplicates removed).
  std::vector<std::int64_t> sizes() const;
};

struct ProbeOptions {
  std::string plan_path;  // "" when no plan
  std::string out_path = "probe.jsonl";
  SizeSweep collective{8, 1LL << 30, 2.0};  // nccl-tests style -b 8 -e 1G -f 2
  std::vector<std::string> ops{"allreduce", "allgather", "reducescatter", "broadcast", "sendrecv"};
  bool sweep_algos = true;  // also force each NCCL_ALGO x NCCL_PROTO in turn
  std::vector<std::string> algos{"ring", "tree"};
  std::vector<std::string> protos{"ll", "ll128", "simple"};
  int iters = 20;      // nccl-tests -n default
  int warmup = 5;      // older nccl-tests -w default (docs/SOURCES.md#nccl-tests)
  int gpus = 0;        // single-process mode: GPUs to drive (0 = all visible), as -g
  bool table = false;  // --table: also print nccl-tests' table on stdout (rank 0)
  bool copies = true;
  SizeSweep copy{4096, 256LL << 20, 4.0};
  int copy_iters = 20;
  int copy_warmup = 5;
  bool gemm = true;
  std::vector<std::int64_t> gemm_sizes{2048, 8192};  // square m = n = k (brief: a medium and a large size)
  std::vector<std::string> gemm_precisions{"fp32", "tf32", "fp16", "bf16"};
  int gemm_iters = 20;
  int gemm_warmup = 5;
  double timeout_s = 600.0;  // per armed region (init, one timed loop); see checked_calls.hpp

  static const std::vector<std::string>& all_ops();
  static const std::vector<std::string>& all_algos();
  static const std::vector<std::string>& all_protos();
  static const std::vector<std::string>& all_precisions();
};

// Parses argv. Returns true to go on; false when --help was printed (exit 0). Throws vgsim::InputError (exit 2) for
// a bad option or plan, naming the option or the plan's file and JSON path.
bool parse_probe_options(int argc, char** argv, ProbeOptions& options);

// The options as JSON text (recorded in the environment record).
std::string options_json(const ProbeOptions& options);

}  // namespace vgsim::probe
