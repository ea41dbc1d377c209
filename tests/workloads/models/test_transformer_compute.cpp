// Transformer layer compute time (transformer_compute.hpp): GEMM FLOPs against Megatron-LM's FLOP formula, tile and
// wave quantization, TP collectives by plan, optimizer bytes, parameters; validation against Korthikanti et al. 2022
// Table 4 (per-layer forward / backward of the 22B model on A100-SXM4-80GB, TP 8) with llm.eff_gemm,
// llm.eff_gemm_backward and llm.eff_memory fitted on three of its values, the others and Table 5 22B held out.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "transformer_fixtures.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/transformer_compute.hpp"

using namespace vgsim;
using namespace vgsim::models;
using namespace vgsim::models::test;

namespace {
// Korthikanti et al. 2022 Table 3 / 4 setup: 22B, TP 8, micro-batch 4 (s = 2048 from the shape).
ParallelPlan korthikanti_plan(bool sp, Recompute r) {
  ParallelPlan p;
  p.tp = 8, p.micro_batch = 4, p.global_batch = 4;
  p.sequence_parallel = sp, p.recompute = r;
  return p;
}
double gemm_flops(const PassTime& pass) {
  double f = 0.0;
  for (const auto& k : pass.kernels) f += k.flops;
  return f;
}
}  // namespace

TEST_CASE("a layer's GEMMs do Megatron-LM's FLOPs") {
  // Megatron-LM num_floating_point_operations (data/reference/llm-training-results.md section 6), per layer and
  // sequence = model_flops without the logits / L; our GEMMs over the t ranks must add up to it exactly (forward is a
  // third, backward two thirds). GQA + SwiGLU (Llama 3 8B, t = 4) and GPT (22B, t = 8).
  for (const char* name : {"korthikanti-22b", "llama3-8b"}) {
    const TransformerShape& m = shape(name);
    ParallelPlan p;
    p.tp = std::string(name) == "llama3-8b" ? 4 : 8, p.micro_batch = 2;
    const LayerComputeTime t = transformer_layer_time(m, p, a100(), Precision::BF16);
    const double h = static_cast<double>(m.hidden), s = static_cast<double>(m.seq), V = static_cast<double>(m.vocab);
    const double logits = 6.0 * 2.0 * s * h * V;
    const double per_layer = (model_flops(m, 2.0) - logits) / static_cast<double>(m.layers);
    CHECK(gemm_flops(t.forward) * static_cast<double>(p.tp) == Approx(per_layer / 3.0).epsilon(1e-12));
    CHECK(gemm_flops(t.backward) * static_cast<double>(p.tp) == Approx(per_layer * 2.0 / 3.0).epsilon(1e-12));
    // Full recompute re-runs the forward: Narayanan et al. eq. (3), 4x the forward instead of 3x.
    p.recompute = Recompute::Full;
    CHECK(gemm_flops(transformer_layer_time(m, p, a100(), Precision::BF16).recompute) ==
          Approx(gemm_flops(t.forward)).epsilon(1e-12));
    // Selective re-runs QK^T and scores x V: 2 x 2 b s^2 h / t per layer (Korthikanti section 5's recomputed part;
    // its eq. (8) publishes three times this increment, see transformer_shape.hpp).
    p.recompute = Recompute::Selective;
    CHECK(gemm_flops(transformer_layer_time(m, p, a100(), Precision::BF16).recompute) * static_cast<double>(p.tp) ==
          Approx(4.0 * 2.0 * s * s * h).epsilon(1e-12));
  }
}

TEST_CASE("GEMM tile and wave quantization") {
  const TransformerComputeParams p;  // 256 x 128 tiles
  // 108 full tiles on 108 SMs: one full wave, no loss.
  CHECK(gemm_quantization(Gemm{1, 256 * 12, 128 * 9, 4096}, 108, p) == Approx(1.0));
  // 109 tiles need 2 waves: 109 / 216 of the SM-slots do work.
  CHECK(gemm_quantization(Gemm{1, 256 * 109, 128, 4096}, 108, p) == Approx(109.0 / 216.0));
  // M = 257 pads to 2 tile rows: 257 / 512 of the padded tile area is useful (2 tiles, one wave of 108: x 2/108).
  CHECK(gemm_quantization(Gemm{1, 257, 128, 4096}, 108, p) == Approx(257.0 / 512.0 * 2.0 / 108.0));
  // A batched GEMM counts batch x tiles: 54 x 2 = 108 tiles, one full wave.
  CHECK(gemm_quantization(Gemm{54, 512, 128, 64}, 108, p) == Approx(1.0));
  // Roofline: a K = 1 outer product is memory bound: 2 (m + n + m n) bytes / (2,039 GB/s x llm.eff_memory).
  const Gemm outer{1, 4096, 4096, 1};
  const double mem_s = 2.0 * (4096.0 + 4096.0 + 4096.0 * 4096.0) / (2039e9 * kDefaultLlmEffMemory);
  CHECK(gemm_time(outer, a100(), Precision::FP16, p).s() == Approx(mem_s).margin(1e-12));  // Time: 1 ps
  // A large square GEMM (8192^3, 32 x 64 = 2,048 tiles, 19 waves) is compute bound at peak x eff x q.
  const Gemm big{1, 8192, 8192, 8192};
  const double q = 2048.0 / (19.0 * 108.0);
  CHECK(gemm_time(big, a100(), Precision::FP16, p).s() == Approx(big.flops() / (312e12 * p.eff_gemm * q)));
  // A backward GEMM runs at llm.eff_gemm_backward instead.
  CHECK(gemm_time(big, a100(), Precision::FP16, p, GemmPass::Backward).s() ==
        Approx(big.flops() / (312e12 * p.eff_gemm_backward * q)));
  CHECK_THROWS_AS(gemm_time(big, a100(), Precision::FP32, p), InputError);
}

TEST_CASE("TP collectives per layer follow Megatron-LM's linear layers") {
  const TransformerShape& m = shape("korthikanti-22b");
  const Bytes n = 4 * 2048 * 6144 * 2;  // b s h x 2 B
  const LayerComputeTime base =
      transformer_layer_time(m, korthikanti_plan(false, Recompute::Full), a100(), Precision::FP16);
  // Without SP: 2 allreduces forward, 2 backward (asynchronous beside a weight-gradient GEMM), 2 more when the
  // forward is recomputed (Korthikanti section 4.2.2).
  REQUIRE(base.forward_comm.size() == 2);
  REQUIRE(base.backward_comm.size() == 2);
  REQUIRE(base.recompute_comm.size() == 2);
  for (const auto& c : base.forward_comm) CHECK((c.op == TpOp::AllReduce && c.bytes == n && c.overlap.ps == 0));
  for (const auto& c : base.backward_comm) CHECK((c.op == TpOp::AllReduce && c.overlap.ps > 0));
  // With SP: allgather + reduce-scatter of the same tensor in place of each forward allreduce; backward: 2 blocking
  // allgathers of an output gradient, 2 input re-gathers and 2 reduce-scatters overlapping GEMMs.
  const LayerComputeTime sp =
      transformer_layer_time(m, korthikanti_plan(true, Recompute::None), a100(), Precision::FP16);
  REQUIRE(sp.forward_comm.size() == 4);
  CHECK(sp.forward_comm[0].op == TpOp::AllGather);
  CHECK(sp.forward_comm[1].op == TpOp::ReduceScatter);
  REQUIRE(sp.backward_comm.size() == 6);
  int blocking = 0;
  for (const auto& c : sp.backward_comm) blocking += c.overlap.ps == 0 ? 1 : 0;
  CHECK(blocking == 2);
  CHECK(sp.recompute_comm.empty());
  // Sequence parallelism divides the LayerNorm work by t = 8.
  auto kernel = [](const PassTime& pass, const std::string& name) {
    for (const auto& k : pass.kernels)
      if (k.name == name) return k.bytes;
    return -1.0;
  };
  CHECK(kernel(sp.forward, "ln1") == Approx(kernel(base.forward, "ln1") / 8.0));
  CHECK(kernel(base.forward, "ln1") == Approx(4.0 * 4 * 2048 * 6144));  // read x, write y: 4 B per element
}

TEST_CASE("FlashAttention replaces the attention core: causal FLOPs, no s^2 traffic") {
  const TransformerShape& m = shape("llama3-8b");  // GQA: 8 KV heads of 32
  ParallelPlan plan;
  plan.tp = 4, plan.micro_batch = 1, plan.recompute = Recompute::Selective;
  TransformerComputeParams flash;
  flash.flash_attention = true, flash.dropout = false;
  TransformerComputeParams unfused = flash;
  unfused.flash_attention = false;
  const LayerComputeTime f = transformer_layer_time(m, plan, a100(), Precision::BF16, flash);
  const LayerComputeTime u = transformer_layer_time(m, plan, a100(), Precision::BF16, unfused);
  const double s = 8192.0, h = 4096.0;  // Llama 3 8B: s 8,192, h 4,096 (transformer_shapes.json)
  // Causal FlashAttention-2 does half of QK^T and PV's 2 x 2 s^2 h / t forward FLOPs and 2.5x that backward.
  const double core = 0.5 * 4.0 * s * s * h / 4.0;
  const double other = gemm_flops(u.forward) - 4.0 * s * s * h / 4.0;  // qkv, proj, fc1, fc2
  CHECK(gemm_flops(f.forward) == Approx(other + core).epsilon(1e-12));
  CHECK(gemm_flops(f.backward) == Approx(2.0 * other + 2.5 * core).epsilon(1e-12));
  CHECK(gemm_flops(f.recompute) == Approx(core).epsilon(1e-12));  // selective re-runs the kernel
  // No kernel moves a b (a/t) s^2 tensor: every forward memory kernel moves less than one 16-bit s x s score matrix
  // per head on the rank (8 heads x 8,192^2 x 2 B = 1.07 GB).
  for (const auto& k : f.forward.kernels)
    if (!k.gemm) CHECK(k.bytes < 8.0 * s * s * 2.0);
  CHECK(f.forward.total() < u.forward.total());
}

TEST_CASE("optimizer step: mixed-precision Adam bytes per parameter") {
  // transformer_compute.hpp: 8 unscale + 4 norm + 28 Adam + 6 copy-out = 46 B (fp32 main gradients); + 6 for the
  // copy of 16-bit gradients = 52 B.
  CHECK(optimizer_bytes_per_param(4) == 46.0);
  CHECK(optimizer_bytes_per_param(2) == 52.0);
  const TransformerComputeParams p;
  CHECK(optimizer_step_time(1e9, 4, a100(), p).s() == Approx(46e9 / (2039e9 * 0.9)));
  // ZeRO-1 over dp = 4 updates a quarter of the stage's parameters.
  ParallelPlan plan = korthikanti_plan(false, Recompute::None);
  const double whole = optimizer_params_per_gpu(shape("korthikanti-22b"), plan);
  plan.dp = 4, plan.global_batch = 16, plan.zero_stage = 1;
  CHECK(optimizer_params_per_gpu(shape("korthikanti-22b"), plan) == Approx(whole / 4.0));
  // MoE: ZeRO-1 shards the expert weights' states over the expert-data-parallel group, dp / ep ranks, not dp
  // (moe.hpp; sim/llm/llm_run.cpp's optimizer step). Mixtral 8x7B, pp 4, dp 8, ep 8: a stage's experts are
  // 8 layers x 1,409,286,144 / ep 8, each rank the only holder of its experts (dp / ep = 1), so it updates
  // dense / 8 + experts / 1 parameters, 7/8 of the experts more than dividing everything by dp would give.
  const TransformerShape& mix = shape("mixtral-8x7b");
  ParallelPlan moe;
  moe.pp = 4, moe.dp = 8, moe.ep = 8, moe.global_batch = 32, moe.zero_stage = 1;
  const MemoryEstimate e = memory_per_gpu(mix, moe);
  const double experts = 8.0 * 1409286144.0 / 8.0;
  REQUIRE(e.expert_parameters == Approx(experts).epsilon(1e-12));
  const double updated = optimizer_params_per_gpu(mix, moe);
  CHECK(updated == Approx((e.parameters - experts) / 8.0 + experts).epsilon(1e-12));
  CHECK(updated - e.parameters / 8.0 == Approx(experts * 7.0 / 8.0).epsilon(1e-9));
  // The same quantity as the optimizer states' memory: 12 B per parameter updated.
  CHECK(12.0 * updated == Approx(e.optimizer).epsilon(1e-12));
}

TEST_CASE("llm.* parameters are declared and checked") {
  const auto& decls = transformer_compute_params();
  REQUIRE(decls.size() == 7);
  for (const auto& d : decls) CHECK(!d.source.empty());
  CHECK(parse_gemm_tile("128x256") == std::make_pair<std::int64_t, std::int64_t>(128, 256));
  CHECK_THROWS_AS(parse_gemm_tile("256", "x.json"), InputError);
  CHECK_THROWS_AS(parse_gemm_tile("8x128", "x.json"), InputError);
  CHECK_THROWS_AS(parse_gemm_tile("256x1024", "x.json"), InputError);
  TransformerComputeParams p;
  set_transformer_compute_param(p, "llm.gemm_tile", Json("128x128"), "cli");
  set_transformer_compute_param(p, "llm.dropout", Json(false), "cli");
  set_transformer_compute_param(p, "llm.eff_gemm", Json(0.5), "cli");
  set_transformer_compute_param(p, "llm.attention", Json("flash"), "cli");
  set_transformer_compute_param(p, "llm.eff_flash", Json(0.4), "cli");
  set_transformer_compute_param(p, "llm.eff_gemm_backward", Json(0.45), "cli");
  set_transformer_compute_param(p, "llm.eff_memory", Json(0.55), "cli");
  CHECK((p.tile_m == 128 && p.tile_n == 128 && !p.dropout && p.eff_gemm == 0.5));
  CHECK((p.flash_attention && p.eff_flash == 0.4));
  CHECK((p.eff_gemm_backward == 0.45 && p.llm_eff_memory == 0.55 && p.eff_memory == kDefaultEffMemory));
  // Each fraction is declared in (0, 1]: read_param refuses 0 and 1.5.
  for (const auto& d : decls) {
    if (d.name != "llm.eff_gemm_backward" && d.name != "llm.eff_memory") continue;
    CHECK_THROWS_AS(read_param(d, "0", "cli"), InputError);
    CHECK_THROWS_AS(read_param(d, "1.5", "cli"), InputError);
    CHECK(read_param(d, "1", "cli").get<double>() == 1.0);
  }
}

namespace {
// TP communication time of one collective of the 22B layer's tensor, b s h x 2 B = 100,663,296 B, on one DGX A100's
// NVLink: busbw from data/measured/nccl-tests/gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt (8x A100 SXM,
// all_reduce_perf -g 8): 67,108,864 B -> 171.54 GB/s, 134,217,728 B -> 176.92 GB/s, interpolated linearly in
// log2(size) at 1.5 x 64 MiB [our interpolation]. nccl-tests: allreduce time = 2 (n-1)/n x bytes / busbw;
// allgather and reduce-scatter (n-1)/n x bytes / busbw with the allreduce's busbw [assumption: that file is the only
// A100 NVLink measurement we have; NCCL's ring moves the same bytes per rank in each half of an allreduce].
double busbw_22b() { return (171.54 + std::log2(1.5) * (176.92 - 171.54)) * 1e9; }
double comm_s(const TpCollective& c) {
  const double n = 8.0, share = (n - 1.0) / n * static_cast<double>(c.bytes) / busbw_22b();
  return c.op == TpOp::AllReduce ? 2.0 * share : share;
}
// Time a pass adds to the layer: blocking collectives whole; an asynchronous one only where it outlasts the GEMM it
// runs beside [assumption: perfect overlap, no slowdown of either from sharing SMs and HBM].
double exposed_s(const std::vector<TpCollective>& cs, bool overlap = true) {
  double t = 0.0;
  for (const auto& c : cs) t += std::max(0.0, comm_s(c) - (overlap ? c.overlap.s() : 0.0));
  return t;
}
struct Row {
  const char* name;
  bool sp;
  Recompute r;
  double fwd_ms, bwd_ms;  // Korthikanti et al. 2022 Table 4
};
// Korthikanti et al. 2022 Table 4 (data/reference/llm-training-results.md section 2): one 22B layer, ms.
const Row kTable4[] = {{"Baseline no recompute", false, Recompute::None, 7.7, 11.9},
                       {"Sequence Parallelism", true, Recompute::None, 7.2, 11.8},
                       {"Baseline with recompute", false, Recompute::Full, 7.7, 19.5},
                       {"Selective Recompute", false, Recompute::Selective, 7.7, 13.2},
                       {"Selective + Sequence", true, Recompute::Selective, 7.2, 13.1}};
struct Predicted {
  double fwd_ms, bwd_ms, bwd_serial_ms;  // bwd_serial: no collective overlapped (for comparison only)
};
Predicted predict(const Row& row, const TransformerComputeParams& p) {
  const LayerComputeTime t =
      transformer_layer_time(shape("korthikanti-22b"), korthikanti_plan(row.sp, row.r), a100(), Precision::FP16, p);
  const double fwd = t.forward.total().s() + exposed_s(t.forward_comm);
  const double bwd = t.backward_with_recompute().s() + exposed_s(t.backward_comm) + exposed_s(t.recompute_comm);
  const double serial =
      t.backward_with_recompute().s() + exposed_s(t.backward_comm, false) + exposed_s(t.recompute_comm, false);
  return {fwd * 1e3, bwd * 1e3, serial * 1e3};
}
// The value `f` (falling as its argument rises) takes `target` at, by bisection in [0.2, 1].
template <class F>
double solve_falling(F f, double target) {
  double lo = 0.2, hi = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double x = 0.5 * (lo + hi);
    (f(x) > target ? lo : hi) = x;
  }
  return 0.5 * (lo + hi);
}
// The backward time selective recomputation adds: "Selective Recompute" minus "Baseline no recompute" backward.
double selective_increment_ms(const TransformerComputeParams& p) {
  return predict(kTable4[3], p).bwd_ms - predict(kTable4[0], p).bwd_ms;
}
// The joint fit (transformer_compute.hpp) to three Table 4 values: the increment 13.2 - 11.9 = 1.3 ms, the row 1
// forward 7.7 ms and the row 1 backward 11.9 ms. The increment depends on llm.eff_memory and (through the context
// GEMM, compute bound by its N = 96 tiles) on llm.eff_gemm, the forward on both, the backward on llm.eff_memory and
// llm.eff_gemm_backward; so llm.eff_memory and llm.eff_gemm are solved alternately until they stop moving, then
// llm.eff_gemm_backward. Starts from 0.81 / 0.90 (the earlier one-row fit and compute.eff_memory), not from the
// declared defaults, so the fit does not read what it checks.
TransformerComputeParams fit_table4() {
  TransformerComputeParams p;
  p.eff_gemm = 0.81, p.eff_gemm_backward = 0.81, p.llm_eff_memory = 0.90;
  const double increment = kTable4[3].bwd_ms - kTable4[0].bwd_ms;
  for (int i = 0; i < 100; ++i) {
    const double before_m = p.llm_eff_memory, before_g = p.eff_gemm;
    p.llm_eff_memory = solve_falling(
        [&](double x) {
          TransformerComputeParams q = p;
          q.llm_eff_memory = x;
          return selective_increment_ms(q);
        },
        increment);
    p.eff_gemm = solve_falling(
        [&](double x) {
          TransformerComputeParams q = p;
          q.eff_gemm = x;
          return predict(kTable4[0], q).fwd_ms;
        },
        kTable4[0].fwd_ms);
    if (std::abs(p.llm_eff_memory - before_m) < 1e-12 && std::abs(p.eff_gemm - before_g) < 1e-12) break;
  }
  p.eff_gemm_backward = solve_falling(
      [&](double x) {
        TransformerComputeParams q = p;
        q.eff_gemm_backward = x;
        return predict(kTable4[0], q).bwd_ms;
      },
      kTable4[0].bwd_ms);
  return p;
}
}  // namespace

TEST_CASE("Korthikanti et al. Table 4: 22B layer times, three efficiencies fitted on three values") {
  // The fit reproduces its three targets (the solver converged inside the bounds) ...
  const TransformerComputeParams fit = fit_table4();
  std::printf("fitted llm.eff_gemm = %.4f, llm.eff_gemm_backward = %.4f, llm.eff_memory = %.4f (declared %g, %g, %g)\n",
              fit.eff_gemm, fit.eff_gemm_backward, fit.llm_eff_memory, kDefaultEffGemm, kDefaultEffGemmBackward,
              kDefaultLlmEffMemory);
  CHECK(predict(kTable4[0], fit).fwd_ms == Approx(7.7).epsilon(1e-6));
  CHECK(predict(kTable4[0], fit).bwd_ms == Approx(11.9).epsilon(1e-6));
  CHECK(selective_increment_ms(fit) == Approx(1.3).epsilon(1e-6));
  // ... and the declared defaults are that fit, rounded to 0.005 (transformer_compute.hpp).
  CHECK(fit.eff_gemm == Approx(kDefaultEffGemm).margin(0.005));
  CHECK(fit.eff_gemm_backward == Approx(kDefaultEffGemmBackward).margin(0.005));
  CHECK(fit.llm_eff_memory == Approx(kDefaultLlmEffMemory).margin(0.005));
  std::printf("%-24s %7s %5s %7s %7s %5s %7s %9s %7s\n", "Table 4 row", "fwd ms", "pub", "err", "bwd ms", "pub", "err",
              "serial ms", "err");
  double worst = 0.0;
  for (const Row& row : kTable4) {
    const Predicted q = predict(row, TransformerComputeParams{});
    const double ef = q.fwd_ms / row.fwd_ms - 1.0, eb = q.bwd_ms / row.bwd_ms - 1.0;
    const double es = q.bwd_serial_ms / row.bwd_ms - 1.0;
    std::printf("%-24s %7.2f %5.1f %+6.1f%% %7.2f %5.1f %+6.1f%% %9.2f %+6.1f%%\n", row.name, q.fwd_ms, row.fwd_ms,
                100 * ef, q.bwd_ms, row.bwd_ms, 100 * eb, q.bwd_serial_ms, 100 * es);
    // Every value within 3 % of the published one [our bound: the smallest round figure above the worst held-out
    // miss, SP forward -2.6 %; the fitted values are off only by the defaults' rounding, 0.1-0.2 %]. Published values
    // are rounded to 0.1 ms (+-0.7 % at 7.2 ms).
    CHECK(std::abs(ef) <= 0.03);
    CHECK(std::abs(eb) <= 0.03);
    worst = std::max({worst, std::abs(ef), std::abs(eb)});
  }
  std::printf("worst |error| over Table 4: %.1f %%\n", 100.0 * worst);
  // Differences between rows are mechanisms: SP saves forward time (published -0.5 ms: LayerNorm and dropout on 1/8 of
  // the tokens, allgather + reduce-scatter in place of allreduce) and backward time (-0.1 ms), full recompute costs
  // about a forward (+7.6 ms); selective recompute's +1.3 ms is fitted. Published deltas are differences of values
  // rounded to 0.1 ms: +-0.1 ms.
  const Predicted base = predict(kTable4[0], {}), sp = predict(kTable4[1], {});
  const Predicted full = predict(kTable4[2], {}), sel = predict(kTable4[3], {});
  std::printf(
      "deltas: SP fwd %+.2f (pub -0.5), SP bwd %+.2f (pub -0.1), full recompute bwd %+.2f (pub +7.6), "
      "selective bwd %+.2f (pub +1.3, fitted)\n",
      sp.fwd_ms - base.fwd_ms, sp.bwd_ms - base.bwd_ms, full.bwd_ms - base.bwd_ms, sel.bwd_ms - base.bwd_ms);
  // Held out: SP's forward saving is predicted -0.69 ms, 0.19 ms more than published (LayerNorm and dropout+residual
  // at llm.eff_memory, fitted on the s^2 kernels of the attention core: a sign those hidden-size kernels run faster
  // than the s^2 ones), bound 0.25 ms; full recompute's +7.7 ms within 0.2 ms.
  CHECK(sp.fwd_ms - base.fwd_ms == Approx(-0.5).margin(0.25));
  CHECK(full.bwd_ms - base.bwd_ms == Approx(7.6).margin(0.2));
  CHECK(sel.bwd_ms - base.bwd_ms == Approx(1.3).margin(0.05));
}

TEST_CASE("Korthikanti et al. Table 5: the 22B iteration the layer times imply") {
  // Table 5 22B: TP 8, PP 1, DP 1, global batch = micro-batch = 4, so one iteration is one micro-batch through 48
  // layers, the embedding and head (one stage holds both), and the optimizer step (Megatron-LM: fp32 main gradients,
  // grad_bytes 4). Published: 1.42 s with full recompute, 1.10 s with selective recompute + SP ("present work").
  // The layer accounts for ~95 % of it, so this is a check of the whole-layer model plus the edges, not a new fit.
  const TransformerShape& m = shape("korthikanti-22b");
  struct Case {
    const char* name;
    bool sp;
    Recompute r;
    double published_s;
  };
  for (const Case& c : {Case{"full recompute", false, Recompute::Full, 1.42},
                        Case{"selective + SP", true, Recompute::Selective, 1.10}}) {
    ParallelPlan plan = korthikanti_plan(c.sp, c.r);
    plan.grad_bytes = 4;
    const Row row{c.name, c.sp, c.r, 0.0, 0.0};
    const Predicted layer = predict(row, {});
    const EmbeddingHeadTime e = embedding_head_time(m, plan, a100(), Precision::FP16);
    const double edges = e.embedding_forward.total().s() + e.embedding_backward.total().s() +
                         e.head_forward.total().s() + e.head_backward.total().s() +
                         exposed_s(e.embedding_forward_comm) + exposed_s(e.head_forward_comm) +
                         exposed_s(e.head_backward_comm);
    const double opt = optimizer_step_time(optimizer_params_per_gpu(m, plan), 4, a100(), {}).s();
    const double layers = 48.0 * (layer.fwd_ms + layer.bwd_ms) * 1e-3;
    const double total = layers + edges + opt;
    std::printf(
        "Table 5 22B %-15s layers %.3f s + embedding/head %.3f s + optimizer %.3f s = %.3f s (published "
        "%.2f s, %+.1f%%)\n",
        c.name, layers, edges, opt, total, c.published_s, 100.0 * (total / c.published_s - 1.0));
    // Held out: predicted -1.8 % (full recompute) and -5.4 % (selective + SP); bound 6 % [our bound, the smallest
    // round figure above the worst miss].
    CHECK(std::abs(total / c.published_s - 1.0) <= 0.06);
  }
}
