// Issue 17 acceptance: published large-model training results that state their setup fully, reproduced from
// mechanisms and printed side by side (data/reference/llm-training-results.md):
// - Narayanan et al. SC'21 Table 1 (weak scaling, 1.7B-1T GPT on 32-3,072 A100 80GB of Selene), with the launch
//   settings of NVIDIA/Megatron-LM examples/sc21/run_table_1.sh @ 6985e589: TP, PP, micro-batch, global batch,
//   full ("uniform") recomputation, layers per virtual stage, DDP implementation (torch for <= 18B: gradient
//   allreduce overlaps the last backward; local above: after the flush). Metric: achieved teraFLOP/s per GPU counted
//   by the paper's eq. (3) (model FLOPs with the recomputed forward), models::hardware_flops(..., Full).
// - Korthikanti et al. 2022 Table 5 (22B, 175B, 530B, 1T; TP 8, DP 1; full recomputation vs sequence parallelism +
//   selective recomputation; interleaved with 3 model chunks for 175B and 530B): iteration seconds.
// Nothing here is fitted: the layer model's three fitted constants (llm.eff_gemm, llm.eff_gemm_backward,
// llm.eff_memory) come from three values of Korthikanti Table 4 (one 22B layer's forward, backward and the selective-
// recompute increment; tests/workloads/models/test_transformer_compute.cpp), every other number from the catalog
// (A100 80GB SXM, NVSwitch, 8 x HDR 200G) and the mechanisms.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "megatron_rows.hpp"

using namespace vgsim;
using namespace vgsim::sim;
using namespace vgsim::sim::llm;
using namespace vgsim::sim::llm::test;

TEST_CASE("NVLink calibration for the large-model tables: capacity_scale.nvlink fitted on the measured allreduce",
          "[llm][validation]") {
  const double scale = nvlink_scale();
  const std::vector<double> before = nvlink_allreduce_us(1.0), after = nvlink_allreduce_us(scale);
  std::printf("capacity_scale.nvlink fitted on stas00's DGX A100 allreduce (64, 128, 256 MiB): %.3f\n", scale);
  for (std::size_t i = 0; i < before.size(); ++i)
    std::printf("  %11lld B measured %8.1f us, vgsim %8.1f us (%+.1f %%), calibrated %8.1f us (%+.1f %%)\n",
                static_cast<long long>(kNvlinkRows[i].bytes), kNvlinkRows[i].measured_us, before[i],
                100.0 * (before[i] / kNvlinkRows[i].measured_us - 1.0), after[i],
                100.0 * (after[i] / kNvlinkRows[i].measured_us - 1.0));
  // The uncalibrated engine is faster than measured at all three sizes (the replay's -18.6..-26.8 %), so the fitted
  // scale is below 1; calibrated, each row is within 7 % of its measurement: one scale for three sizes whose
  // uncalibrated time ratios to the measurements span 0.73-0.81 (the measured busbw rises 171.5 -> 194.1 GB/s over
  // them, the engine's less), so any single scale leaves at least half of that 11 % spread, 5.5 %, at one end, and
  // the fit's objective is not the worst row.
  CHECK(scale < 1.0);
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(before[i] < kNvlinkRows[i].measured_us);
    CHECK(std::abs(after[i] / kNvlinkRows[i].measured_us - 1.0) <= 0.07);
  }
}

TEST_CASE("Narayanan et al. SC'21 Table 1: achieved TFLOP/s per GPU (10 % target)", "[llm][validation][nosan]") {
  const auto& rows = kTable1Rows;
  std::printf("Narayanan et al. SC'21 Table 1 vs vgsim (selene-a100-384)\n");
  std::printf("%-16s %4s %4s %5s %10s %10s %8s %8s %8s %8s\n", "model", "tp", "pp", "gpus", "published", "vgsim",
              "error", "bubble", "tp comm", "dp sync");
  for (const Row& r : rows) {
    const LlmResult res = run(r, {"recompute=full"});
    const double err = res.hardware_tflops_per_gpu / r.published - 1.0;
    std::printf("%-16s %4d %4d %5d %10.0f %10.1f %+7.1f%% %7.1f%% %7.1f%% %7.1f%%\n", r.shape, r.tp, r.pp, r.gpus,
                r.published, res.hardware_tflops_per_gpu, 100.0 * err,
                100.0 * double(res.pipeline_idle.ps) / double(res.iteration.ps),
                100.0 * double(res.tp_exposed.ps) / double(res.iteration.ps),
                100.0 * double(res.dp_exposed.ps) / double(res.iteration.ps));
    INFO(r.shape << ": vgsim " << res.hardware_tflops_per_gpu << " TFLOP/s vs published " << r.published);
    // KNOWN MISSES uncalibrated (test_megatron_calibrated.cpp fits the stack on the 1.7B row and predicts the
    // other rows within 10 %): vgsim is 11-17 % optimistic on 7 of the 10 rows
    // (7.5B, 18.4B and every tp 8 row with pp >= 4) with the NVLink calibration and blocking pipeline p2p. What is
    // left is not in vgsim's per-pipeline model as far as the sources show: Korthikanti's Table 5 runs the same
    // per-pipeline work as the 529.6B and 1008B rows here (tp 8, pp 35 / 64, v 3 / 1, micro-batch 1, 280 / 512
    // micro-batches) in 49.05 s and 94.42 s, while these rows' TFLOP/s imply 54.1 s and 102.6 s (+10.3 %, +8.7 %,
    // printed by the Table 5 case); their DP 9 / 6 gradient allreduce explains at most ~1.3 s of that (Korthikanti's
    // 530B DP 8 run: +1.32 s). vgsim reproduces Table 5 within -2..-7 % (next test case), so about 7 % of each miss
    // here is the SC'21 runs being slower than the 2022 software at equal work; the SC'21 Fig. 12 runs (dp 1) are
    // 11-17 % below vgsim too (last test case; data/reference/llm-table1-vs-table5.md). Asserted as a band so that a
    // model change that fixes (or worsens) them shows here.
    if (r.known_miss) {
      CHECK(err > 0.10);
      CHECK(err < 0.18);
    } else {
      CHECK(std::abs(err) <= 0.10);
    }
  }
}

TEST_CASE("Korthikanti et al. Table 5: iteration time, full recompute and SP + selective", "[llm][validation]") {
  // TP 8, DP 1, global batch = micro-batches; interleaved with 3 model chunks for 175B and 530B (section 6).
  // clang-format off
  const Row full[] = {{"korthikanti-22b", 8, 1, 8, 4, 4, 0, false, 1.42}, {"gpt3-175b", 8, 8, 64, 1, 64, 4, false, 18.13},
                      {"megatron-529.6b", 8, 35, 280, 1, 280, 1, false, 49.05}, {"megatron-1008b", 8, 64, 512, 1, 512, 0, false, 94.42}};
  const double present[] = {1.10, 13.75, 37.83, 71.49};
  // clang-format on
  std::printf("Korthikanti et al. Table 5 vs vgsim: iteration seconds\n");
  std::printf("%-16s %12s %8s %8s %14s %8s %8s\n", "model", "full (pub.)", "vgsim", "error", "SP+sel. (pub.)", "vgsim",
              "error");
  for (int i = 0; i < 4; ++i) {
    const Row& r = full[i];
    const double a = run(r, {"recompute=full"}).iteration.s();
    const double b = run(r, {"recompute=selective", "sequence_parallel=true"}).iteration.s();
    std::printf("%-16s %12.2f %8.2f %+7.1f%% %14.2f %8.2f %+7.1f%%\n", r.shape, r.published, a,
                100.0 * (a / r.published - 1.0), present[i], b, 100.0 * (b / present[i] - 1.0));
    INFO(r.shape);
    // Every iteration is shorter than published, by at most 8 % (measured: full -2.2..-5.5 %, SP + selective
    // -4.2..-7.0 %; before the NVLink calibration and blocking p2p -4.3..-11.1 %).
    CHECK(a < r.published);
    CHECK(b < present[i]);
    CHECK(std::abs(a / r.published - 1.0) <= 0.08);
    CHECK(std::abs(b / present[i] - 1.0) <= 0.08);
  }
  // Narayanan Table 1's 529.6B and 1008B rows run the same per-pipeline work as Table 5's full-recompute rows (tp 8,
  // pp 35 / 64, the same virtual stages, micro-batch 1, 280 / 512 micro-batches per pipeline), with dp 9 / 6. Their
  // published iteration, eq. (3) FLOPs / (GPUs x published TFLOP/s), is 54.1 s and 102.6 s: 10.3 % and 8.7 % over
  // Table 5's. In vgsim the only difference between the two runs is the dp gradient allreduce after the flush, so
  // vgsim's Table 1 iteration = its Table 5 iteration + that row's dp sync (to 0.5 %), a few percent at most.
  const Row t1[] = {{"megatron-529.6b", 8, 35, 2520, 1, 2520, 1, false, 163},
                    {"megatron-1008b", 8, 64, 3072, 1, 3072, 0, false, 163}};
  const int t5_index[] = {2, 3};
  static const auto shapes = models::load_transformer_shapes();
  std::printf("same per-pipeline work, Narayanan Table 1 (dp > 1) vs Korthikanti Table 5 (dp 1), full recompute\n");
  for (int i = 0; i < 2; ++i) {
    const Row& r = t1[i];
    const double flops =
        models::hardware_flops(models::find_transformer_shape(shapes, r.shape), r.global, models::Recompute::Full);
    const double published_t1 = flops / (r.gpus * r.published * 1e12), published_t5 = full[t5_index[i]].published;
    const LlmResult a = run(r, {"recompute=full"}), b = run(full[t5_index[i]], {"recompute=full"});
    std::printf("%-16s published %.1f s vs %.2f s (%+.1f %%); vgsim %.2f s vs %.2f s (%+.1f %%, dp sync %.2f s)\n",
                r.shape, published_t1, published_t5, 100.0 * (published_t1 / published_t5 - 1.0), a.iteration.s(),
                b.iteration.s(), 100.0 * (a.iteration.s() / b.iteration.s() - 1.0), a.dp_exposed.s());
    INFO(r.shape);
    CHECK(std::abs(a.iteration.s() - b.iteration.s() - a.dp_exposed.s()) <= 0.005 * b.iteration.s());
    CHECK(a.iteration.s() / b.iteration.s() - 1.0 < 0.04);
  }
}

TEST_CASE("Interleaved vs 1F1B, Narayanan et al. Fig. 12 (plot-read, trend only)", "[llm][validation]") {
  // GPT-3 175B on 96 GPUs, tp 8, pp 12, micro-batch 1, dp 1 (examples/sc21/run_figure_12.sh @ 6985e589); interleaved
  // with 2 layers per virtual stage (v = 96 / (12 x 2) = 4). TFLOP/s read off the figure, +-5
  // (data/reference/llm-training-results.md section 1): batch 12: 1F1B ~81, interleaved ~119; batch 60: ~136, ~147.
  // Only the ratio is checked (the read-off error makes absolute values trend checks): interleaved / 1F1B within the
  // ratio's read-off interval, [(119 - 5) / (81 + 5), (119 + 5) / (81 - 5)] = [1.33, 1.63] at batch 12 and
  // [(147 - 5) / (136 + 5), (147 + 5) / (136 - 5)] = [1.01, 1.16] at batch 60.
  struct Point {
    int batch;
    double one_f1b, interleaved, lo, hi;
  };
  const Point points[] = {{12, 81, 119, 114.0 / 86.0, 124.0 / 76.0}, {60, 136, 147, 142.0 / 141.0, 152.0 / 131.0}};
  std::printf("Narayanan Fig. 12 (175B, 96 GPUs; plot-read +-5 TFLOP/s) vs vgsim: TFLOP/s per GPU\n");
  for (const Point& pt : points) {
    const Row plain{"gpt3-175b", 8, 12, 96, 1, pt.batch, 0, false, pt.one_f1b};
    const Row inter{"gpt3-175b", 8, 12, 96, 1, pt.batch, 2, false, pt.interleaved};
    const double a = run(plain, {"recompute=full"}).hardware_tflops_per_gpu;
    const double b = run(inter, {"recompute=full"}).hardware_tflops_per_gpu;
    std::printf("batch %2d: 1F1B %.0f vs %.1f (%+.1f %%), interleaved %.0f vs %.1f (%+.1f %%), ratio %.2f vs %.2f\n",
                pt.batch, pt.one_f1b, a, 100.0 * (a / pt.one_f1b - 1.0), pt.interleaved, b,
                100.0 * (b / pt.interleaved - 1.0), pt.interleaved / pt.one_f1b, b / a);
    INFO("batch " << pt.batch);
    CHECK(b / a >= pt.lo);
    CHECK(b / a <= pt.hi);
  }
}

TEST_CASE("Data-parallel sync: Korthikanti et al. 530B, dp 1 -> dp 8 (known miss)", "[llm][validation]") {
  // Korthikanti et al. section 6 (data/reference/llm-training-results.md section 2): 530B with SP + selective
  // recomputation, tp 8, pp 35, 3 model chunks, micro-batch 1; dp 1 -> dp 8 (2,240 GPUs, batch scaled with dp)
  // raises the iteration 37.83 s -> 39.15 s, +1.32 s, "no gradient all-reduce overlap". vgsim: the gradient
  // allreduce after the flush (fp16 gradients, 4.05 GB per GPU on stage 0, 8 rings per node over the nodes'
  // NICs) adds 0.57 s. KNOWN MISS (-57 %): 4-byte gradients (Megatron-LM reduces them in fp32 under bf16) would add
  // 1.14 s, but the paper does not state its precision; asserted as a band so that a change shows here.
  const Row dp1{"megatron-529.6b", 8, 35, 280, 1, 280, 1, false, 37.83};
  const Row dp8{"megatron-529.6b", 8, 35, 2240, 1, 2240, 1, false, 39.15};
  const std::vector<std::string> sel = {"recompute=selective", "sequence_parallel=true"};
  const double a = run(dp1, sel).iteration.s(), b = run(dp8, sel).iteration.s();
  const double published = dp8.published - dp1.published, err = (b - a) / published - 1.0;
  std::printf("Korthikanti 530B dp 1 -> dp 8: published +%.2f s, vgsim +%.2f s (%+.1f %%)\n", published, b - a,
              100.0 * err);
  CHECK(b > a);
  CHECK(err < -0.4);
  CHECK(err > -0.7);
}

namespace {

struct T2Result {
  LlmResult res;
  double cpu_s = 0.0;
};

// The ZeRO-3 530B row on 640 GPUs ran but does not fit vgsim's memory model (104.8 GB of 85.9: the known miss in
// the memory case below); its time is simulated without the memory check.
constexpr int kT2MemoryMissGpus = 640;

// PTD-P: tp, pp, dp = GPUs / (tp pp), 1F1B, local DDP (sync after the flush); ZeRO-3: tp = pp = 1, dp = GPUs,
// zero_stage 3. Both fp16 with full recomputation (eq. (3) counts the recomputed forward).
T2Result run_t2(const T2Row& t) {
  const Row r{t.shape, t.tp, t.pp, t.gpus, t.micro, t.global, 0, false, t.published};
  const bool zero3 = t.tp == 1 && t.pp == 1;
  std::vector<std::string> extra = {"recompute=full"};
  if (zero3) extra.push_back("zero_stage=3");
  const std::clock_t c0 = std::clock();
  T2Result out{run(r, extra, !(zero3 && t.gpus == kT2MemoryMissGpus))};
  out.cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  return out;
}

// The ZeRO-3 traffic one GPU moves per layer and micro-batch: the fp16 weights gathered for the forward and again
// for the recomputed forward + backward, and the fp16 gradients reduce-scattered (3 x 2 B x the layer's
// parameters); and the bandwidth at which that traffic would take the whole of a layer's published time (eq. (3)
// FLOPs per layer / published TFLOP/s), i.e. the effective rate the published run had if it was bound by it.
double implied_zero3_gbps(const T2Row& t) {
  static const auto shapes = models::load_transformer_shapes();
  const models::TransformerShape& m = models::find_transformer_shape(shapes, t.shape);
  const double flops = models::hardware_flops(m, t.global, models::Recompute::Full);
  const double layer_s = flops / (t.gpus * t.published * 1e12) / static_cast<double>(m.layers);
  const double bytes = 3.0 * 2.0 * static_cast<double>(models::parameter_count(m).per_layer);
  return bytes / layer_s / 1e9;
}

// The allgather's algorithm bandwidth (per-layer fp16 weights / simulated time) of a ZeRO-3 run, GB/s.
double zero3_allgather_gbps(const LlmResult& res) {
  for (const CommRecord& c : res.comms)
    if (c.what.rfind("zero-3 weight allgather", 0) == 0) return static_cast<double>(c.bytes) / c.time.s() / 1e9;
  return 0.0;
}

// kT2Rows (megatron_rows.hpp): Table 2's rows, their bands and why the ZeRO-3 rows miss.
constexpr std::size_t kT2Slow = 5;  // ZeRO-3 530B on 2,240 GPUs: 43-72 s CPU measured, in the "[.slow]" case

void print_t2_header() {
  std::printf("Narayanan et al. SC'21 Table 2 vs vgsim (selene-a100-384): TFLOP/s per GPU\n");
  std::printf("%-6s %7s %5s %3s %9s %7s %8s %7s %8s %9s %6s\n", "scheme", "params", "gpus", "mb", "published", "vgsim",
              "error", "zero-3", "pub.GB/s", "vgsimGB/s", "cpu s");
}

// Runs row i, prints it (when `print`), checks it in its band and returns vgsim's TFLOP/s per GPU.
double check_t2_row(std::size_t i, bool print) {
  const T2Row& t = kT2Rows[i];
  const T2Result r = run_t2(t);
  const double tf = r.res.hardware_tflops_per_gpu, err = tf / t.published - 1.0;
  const bool z3 = t.tp == 1;
  if (print)
    std::printf("%-6s %7s %5d %3d %9.0f %7.1f %+7.1f%% %6.1f%% %8.1f %9.1f %6.1f\n", t.scheme, t.billions, t.gpus,
                t.micro, t.published, tf, 100.0 * err,
                100.0 * double(r.res.zero3_exposed.ps) / double(r.res.iteration.ps), z3 ? implied_zero3_gbps(t) : 0.0,
                z3 ? zero3_allgather_gbps(r.res) : 0.0, r.cpu_s);
  std::fflush(stdout);
  INFO(t.scheme << " " << t.shape << " " << t.gpus << " GPUs: vgsim " << tf << " vs published " << t.published);
  CHECK(err >= t.lo);
  CHECK(err <= t.hi);
  return tf;
}

// The paper's finding (2): PTD-P beats ZeRO-3 at every GPU count (published ZeRO-3 / PTD-P: 0.94, 0.59, 0.31 at
// 384 / 768 / 1536 GPUs, 0.59, 0.30 at 1120 / 2240; 530B at 640 vs 560 GPUs: 138 / 171 = 0.81). KNOWN MISS: vgsim has
// ZeRO-3 ahead at every count (1.26-1.40 measured), because its tp 1 layer has no TP collectives and its ZeRO-3
// traffic is hidden; asserted as measured (1.2..1.5) so that a model change shows here.
void check_zero3_over_ptdp(double zero3, double ptdp, int gpus) {
  INFO("ZeRO-3 vs PTD-P at " << gpus << " GPUs: " << zero3 << " vs " << ptdp);
  CHECK(zero3 / ptdp > 1.2);
  CHECK(zero3 / ptdp < 1.5);
}

}  // namespace

TEST_CASE("Narayanan et al. SC'21 Table 2: PTD-P vs DeepSpeed ZeRO-3 (known misses)", "[llm][validation][nosan]") {
  print_t2_header();
  std::vector<double> vg(std::size(kT2Rows), 0.0);
  for (std::size_t i = 0; i < std::size(kT2Rows); ++i)
    if (i != kT2Slow) vg[i] = check_t2_row(i, true);
  // The paper's finding (1): ZeRO-3's TFLOP/s falls as GPUs grow at a fixed batch (175B: 144 > 88 > 44; the 530B
  // 1120 -> 2240 pair is in the "[.slow]" case). vgsim reproduces the order, strictly, but not the size (published
  // 144 / 44 = 3.3x, vgsim 236 / 215 = 1.10x: the known miss above, asserted as measured, 1.05..1.2x).
  CHECK(vg[1] < vg[0]);
  CHECK(vg[2] < vg[1]);
  CHECK(vg[0] / vg[2] > 1.05);
  CHECK(vg[0] / vg[2] < 1.2);
  for (std::size_t z = 0; z < 5; ++z) check_zero3_over_ptdp(vg[z], vg[z + 6], kT2Rows[z].gpus);
}

TEST_CASE("Narayanan et al. SC'21 Table 2: ZeRO-3 530B on 2,240 GPUs", "[llm][validation][.slow]") {
  // The 2,240-rank ZeRO-3 row alone (43-72 s of CPU measured on the shared 2-core machine, over the brief's 60 s):
  // its band as in kT2Rows, finding (1) for 530B at batch 2240 (published 98 > 48 from 1,120 to 2,240 GPUs; vgsim
  // 249.7 > 234.0) and finding (2) against PTD-P on 2,240 GPUs (known miss, as above).
  print_t2_header();
  const double z = check_t2_row(kT2Slow, true), z1120 = check_t2_row(4, false), p = check_t2_row(11, false);
  CHECK(z < z1120);
  check_zero3_over_ptdp(z, p, kT2Rows[kT2Slow].gpus);
}

TEST_CASE("Narayanan et al. SC'21 Table 2: ZeRO-3 memory per GPU (80 GiB)", "[llm][validation]") {
  // Memory per GPU at the backward's peak (parallel_plan.hpp), tp = pp = 1, dp = GPUs, fp16, full recomputation, b = 4:
  //   model states 16 B x P / dp (ZeRO-3 shards 2 + 2 + 12 B per parameter; Rajbhandari et al., grade C);
  //   stored layer inputs L x 2 s b h (Korthikanti et al. 2022, full recomputation; 1F1B with one stage keeps 1);
  //   the recomputed layer s b h (34 + 5 a s / h) - 2 s b h (Korthikanti eq. (1), one layer, grade T);
  //   the ZeRO-3 working set (1 + 1 prefetched) x (2 + 2) B x a layer's 12 h^2 + 13 h parameters.
  // 175B (h 12288, a 96, L 96, P 174.6e9) at dp 384: 7.27 + 19.33 + 11.27 + 14.50 = 52.4 GB < 85.9 GB (80 GiB):
  // fits, as the paper ran it. 530B (h 20480, a 128, L 105, P 529.6e9) at dp 560: 15.13 + 35.23 + 16.11 + 40.27 =
  // 106.7 GB > 85.9 GB: does not fit, as the table's footnote says (short by ~21 GB). KNOWN MISS: at dp 640, the row
  // the paper ran instead, vgsim needs 104.8 GB (model states 13.24 GB): it does not fit either. Model states and
  // stored inputs differ by only 1.9 GB between 560 and 640 GPUs, so both footnote and row hold only if the
  // transients are 35.5..37.4 GB; vgsim's are 56.4 GB because it gathers whole layers (as FSDP wrapping each
  // Transformer block does, and as vgsim's ZeRO-3 timing moves them) with one layer of prefetch. DeepSpeed gathers
  // per submodule and caps live parameters (stage3_max_live_parameters; recalled, grade C): its working set can be
  // smaller, but no source here pins its settings (data/reference/llm-table2-ptdp-vs-zero3.md), so nothing is fitted.
  auto estimate = [](const char* shape, int gpus, int micro, int global) {
    training::JobSpec s;
    s.cluster = "selene-a100-384";
    s.workload = shape;
    s.nodes = static_cast<std::uint32_t>(gpus / 8);
    s.gpus_per_node = 8;
    s.sets = {"tp=1",
              "pp=1",
              "zero_stage=3",
              "recompute=full",
              "precision=fp16",
              "micro_batch=" + std::to_string(micro),
              "global_batch=" + std::to_string(global)};
    const LlmJob job = resolve_llm_job(s, cat(), false);
    return std::make_pair(models::memory_per_gpu(job.shape, job.plan), job.memory_bytes);
  };
  // The formula above, from the shape (s 2048, b 4, dp GPUs); `p` the published parameter count.
  auto formula = [](const char* shape, double p, double gpus) {
    static const auto shapes = models::load_transformer_shapes();
    const models::TransformerShape& m = models::find_transformer_shape(shapes, shape);
    const double h = static_cast<double>(m.hidden), sbh = 2048.0 * 4.0 * h, layer = 12.0 * h * h + 13.0 * h;
    return 16.0 * p / gpus + static_cast<double>(m.layers) * 2.0 * sbh +
           sbh * (34.0 + 5.0 * static_cast<double>(m.heads) * 2048.0 / h - 2.0) + 2.0 * 4.0 * layer;
  };
  const auto [e175, cap] = estimate("gpt3-175b", 384, 4, 1536);
  const auto [e560, cap2] = estimate("megatron-529.6b", 560, 4, 2240);
  const auto [e640, cap3] = estimate("megatron-529.6b", 640, 4, 2560);
  const double m175 = e175.total(), m530 = e560.total(), m640 = e640.total();
  std::printf(
      "ZeRO-3 memory per GPU: 175B dp 384 mb 4 %.1f GB (ran), 530B dp 560 mb 4 %.1f GB (did not fit), "
      "of %.1f GB\n",
      m175 / 1e9, m530 / 1e9, cap / 1e9);
  std::printf(
      "ZeRO-3 memory per GPU: 530B dp 640 mb 4 %.1f GB (ran; known miss), of which ZeRO-3 working set %.1f GB, "
      "recomputed layer %.1f GB\n",
      m640 / 1e9, (e640.zero3_gathered + e640.zero3_unsharded_gradients) / 1e9, e640.recompute_layer / 1e9);
  // The published parameter counts (Table 2: 174.6B, 529.6B) stand in for P: within 0.5 % of vgsim's count's total.
  CHECK(m175 == Approx(formula("gpt3-175b", 174.6e9, 384)).epsilon(0.005));
  CHECK(m530 == Approx(formula("megatron-529.6b", 529.6e9, 560)).epsilon(0.005));
  CHECK(m175 < cap);
  CHECK(m530 > cap2);  // the footnote: did not fit on 560 GPUs
  CHECK(m640 > cap3);  // known miss: the paper ran it (above)
  CHECK(m530 - m640 == Approx(16.0 * 529.6e9 * (1.0 / 560 - 1.0 / 640)).epsilon(0.005));
}
