// Shared by the large-model validation tests (test_megatron_tables.cpp, test_megatron_calibrated.cpp): the NVLink
// calibration on stas00's DGX A100 allreduce, the rows of Narayanan et al. SC'21 Tables 1 and 2 with their launch
// settings (data/reference/llm-training-results.md, llm-table2-ptdp-vs-zero3.md), and the job a row describes.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "llm_fixtures.hpp"
#include "vgsim/sim/llm/group_collectives.hpp"
#include "vgsim/sim/llm/llm_run.hpp"

namespace vgsim::sim::llm::test {

// NVLink calibration on development data (not these tables). The layer model's efficiencies were fitted with the TP
// collectives at the measured DGX A100 NVLink busbw (tests/workloads/models/test_transformer_compute.cpp), but the
// engine's 8-GPU NVLink allreduce runs 13-20 % faster than that measurement at the sizes of these tables' TP
// collectives (64-256 MiB; docs/VALIDATION.md, replay on dgx-a100: -19.9 %, -18.3 %, -12.8 %). Both tables therefore
// run with capacity_scale.nvlink (the calibration profiles' per-resource scale) fitted so that vgsim's allreduce on
// one selene-a100-384 node takes the measured time summed over those three rows:
// data/measured/nccl-tests/gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt (8 x A100 SXM, all_reduce_perf -g 8):
// 67,108,864 B 684.6 us, 134,217,728 B 1327.6 us, 268,435,456 B 2420.6 us.
struct NvlinkRow {
  Bytes bytes;
  double measured_us;
};
inline constexpr NvlinkRow kNvlinkRows[] = {{67108864, 684.6}, {134217728, 1327.6}, {268435456, 2420.6}};

// Simulated time (us) of each row's allreduce on the 8 GPUs of one selene node at capacity_scale.nvlink = `scale`.
inline std::vector<double> nvlink_allreduce_us(double scale) {
  training::JobSpec s;
  s.cluster = "selene-a100-384";
  s.workload = "korthikanti-22b";
  s.nodes = 1;
  s.gpus_per_node = 8;
  s.sets = {"tp=8", "capacity_scale.nvlink=" + std::to_string(scale)};
  const LlmJob job = resolve_llm_job(s, cat(), false);
  const std::vector<std::uint32_t> node_of(8, 0);
  GroupCollectives gc(*job.platform.cluster, job.platform.comm, job.platform.rank_to_endpoint, node_of);
  std::vector<double> out;
  for (const NvlinkRow& r : kNvlinkRows)
    out.push_back(gc.run("tp", {{0, 1, 2, 3, 4, 5, 6, 7}}, coll::Op::AllReduce, r.bytes).time.s() * 1e6);
  return out;
}

// The scale in [0.5, 1] (bisection, rounded to 0.001) at which the three rows' simulated total is the measured one.
inline double nvlink_scale() {
  static const double fitted = [] {
    double measured = 0.0;
    for (const NvlinkRow& r : kNvlinkRows) measured += r.measured_us;
    double lo = 0.5, hi = 1.0;
    for (int i = 0; i < 20; ++i) {
      const double mid = 0.5 * (lo + hi);
      double sim = 0.0;
      for (double t : nvlink_allreduce_us(mid)) sim += t;
      (sim > measured ? lo : hi) = mid;
    }
    return std::round(500.0 * (lo + hi)) / 1000.0;
  }();
  return fitted;
}

struct Row {
  const char* shape;
  int tp, pp, gpus, micro, global, layers_per_virtual;  // 0: no interleaving
  bool torch_ddp;
  double published;  // Table 1 TFLOP/s per GPU, or Table 5 iteration seconds
  bool known_miss = false;
};

// The job of a row on selene-a100-384 with the row's launch settings, the NVLink calibration and `extra` settings.
inline training::JobSpec row_spec(const Row& r, const std::vector<std::string>& extra) {
  training::JobSpec s;
  s.cluster = "selene-a100-384";
  s.workload = r.shape;
  s.nodes = static_cast<std::uint32_t>(r.gpus / 8);
  s.gpus_per_node = 8;
  s.sets = {"tp=" + std::to_string(r.tp),
            "pp=" + std::to_string(r.pp),
            "micro_batch=" + std::to_string(r.micro),
            "global_batch=" + std::to_string(r.global),
            "precision=fp16",
            std::string("llm.grad_overlap=") + (r.torch_ddp ? "true" : "false"),
            "capacity_scale.nvlink=" + std::to_string(nvlink_scale())};
  if (r.layers_per_virtual > 0) {
    static const auto shapes = models::load_transformer_shapes();
    const std::int64_t v = models::find_transformer_shape(shapes, r.shape).layers / (r.pp * r.layers_per_virtual);
    s.sets.push_back("schedule=interleaved");
    s.sets.push_back("virtual_stages=" + std::to_string(v));
  }
  for (const auto& e : extra) s.sets.push_back(e);
  return s;
}

// `check_memory` false: simulate a run that does not fit vgsim's memory model (a stated known miss).
inline LlmResult run(const Row& r, const std::vector<std::string>& extra, bool check_memory = true) {
  return simulate_llm_iteration(resolve_llm_job(row_spec(r, extra), cat(), check_memory));
}

// Narayanan et al. SC'21 Table 1 (published TFLOP/s per GPU) with examples/sc21/run_table_1.sh's settings; known_miss:
// outside 10 % (the Table 1 test case says why).
// clang-format off
inline constexpr Row kTable1Rows[] = {
    {"megatron-1.7b",   1,  1,   32, 16,  512, 0, true,  137},       {"megatron-3.6b",   2,  1,   64, 16,  512, 0, true,  138},
    {"megatron-7.5b",   4,  1,  128, 16,  512, 0, true,  142, true}, {"megatron-18.4b",  8,  1,  256,  8, 1024, 0, true,  135, true},
    {"megatron-39.1b",  8,  2,  512,  4, 1536, 0, false, 138},       {"megatron-76.1b",  8,  4, 1024,  2, 1792, 5, false, 140, true},
    {"megatron-145.6b", 8,  8, 1536,  2, 2304, 5, false, 148, true}, {"megatron-310.1b", 8, 16, 1920,  1, 2160, 3, false, 155, true},
    {"megatron-529.6b", 8, 35, 2520,  1, 2520, 1, false, 163, true}, {"megatron-1008b",  8, 64, 3072,  1, 3072, 0, false, 163, true},
};
// clang-format on

// One row of Narayanan et al. SC'21 Table 2 (data/reference/llm-table2-ptdp-vs-zero3.md) with the error band it is
// asserted in: [-0.10, +0.10] is issue 17's target, anything else a known miss measured as stated at the test case.
struct T2Row {
  const char* scheme;  // "PTD-P" or "ZeRO-3"
  const char* shape;
  const char* billions;  // the paper's "Number of parameters (billion)"
  int tp, pp, gpus, micro, global;
  double published;  // achieved TFLOP/s per GPU
  double lo, hi;     // asserted band of vgsim / published - 1
};

// Table 2 (data/reference/llm-table2-ptdp-vs-zero3.md): the same Selene runs as Table 1, 175B (174.6B) and 530B with
// PTD-P (tp 8, pp 12 / 35: cli99/llm-analysis run_train.sh, grade [P] for the table, the tp/pp split is that
// repository's encoding) or DeepSpeed ZeRO-3 without model parallelism (dp = GPUs, one micro-batch per GPU).
// Bands: PTD-P rows carry vgsim's Table 1 offset (+10..+16 % measured; Table 1's known-miss band tops at +18 %).
// ZeRO-3 rows are KNOWN MISSES, measured +64 / +165 / +389 % (175B, mb 4 / 2 / 1) and +81 / +155 / +387 % (530B):
// vgsim's ZeRO-3 hides its per-layer allgathers and reduce-scatters behind compute (one layer of prefetch) on the
// engine's ring (~100 GB/s algbw per GPU over 8 HDR NICs per node), so it is compute-bound at tp 1 (~215-250
// TFLOP/s), while the published mb 1 and mb 2 rows take the same time per layer (0.69 s at 175B, 1.7 s at 530B):
// bound by ZeRO-3 traffic at an effective 16-18 GB/s per GPU (printed). What DeepSpeed did slower is not in any
// source here (prefetch bucket, per-parameter gathers, overlap_comm, reduction precision: see the reference file).
// clang-format off
inline constexpr T2Row kT2Rows[] = {
    {"ZeRO-3", "gpt3-175b",       "174.6", 1,  1,  384, 4, 1536, 144, 0.50, 0.80},
    {"ZeRO-3", "gpt3-175b",       "174.6", 1,  1,  768, 2, 1536,  88, 1.50, 1.80},
    {"ZeRO-3", "gpt3-175b",       "174.6", 1,  1, 1536, 1, 1536,  44, 3.70, 4.10},
    {"ZeRO-3", "megatron-529.6b", "529.6", 1,  1,  640, 4, 2560, 138, 0.65, 0.95},
    {"ZeRO-3", "megatron-529.6b", "529.6", 1,  1, 1120, 2, 2240,  98, 1.40, 1.70},
    {"ZeRO-3", "megatron-529.6b", "529.6", 1,  1, 2240, 1, 2240,  48, 3.70, 4.10},
    {"PTD-P",  "gpt3-175b",       "174.6", 8, 12,  384, 1, 1536, 153, -0.10, 0.18},
    {"PTD-P",  "gpt3-175b",       "174.6", 8, 12,  768, 1, 1536, 149, -0.10, 0.18},
    {"PTD-P",  "gpt3-175b",       "174.6", 8, 12, 1536, 1, 1536, 141, -0.10, 0.18},
    {"PTD-P",  "megatron-529.6b", "529.6", 8, 35,  560, 1, 2240, 171, -0.10, 0.18},
    {"PTD-P",  "megatron-529.6b", "529.6", 8, 35, 1120, 1, 2240, 167, -0.10, 0.18},
    {"PTD-P",  "megatron-529.6b", "529.6", 8, 35, 2240, 1, 2240, 159, -0.10, 0.18},
};
// clang-format on

}  // namespace vgsim::sim::llm::test
