// CPU compute model (issue 15 item 2): single-node throughput against the published Xeon Gold 6148 figures (fitted
// rows and held-out rows, printed as a table), the Transformer-big totals against the published ones, threads / ranks /
// oversubscription, sparse gradient sizes.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "vgsim/workloads/models/cpu_compute_model.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {

Model lib(const std::string& n) { return load_model(std::string(VGSIM_DATA_DIR) + "/workloads/models/" + n + ".json"); }

// 2 x Xeon Gold 6148 as topologies/catalog/cpus.json has it: 20 cores per socket, 64 FP32 FLOP/cycle per core,
// AVX-512 all-core clock 2.2 GHz (grade D), 128 GB/s per socket (6 x DDR4-2666).
CpuNodeSpec gold6148_2s() {
  CpuNodeSpec n;
  n.name = "xeon-gold-6148";
  n.sockets = 2;
  n.cores_per_socket = 20;
  n.fp32_flops_per_cycle = 64;
  n.clock_hz = 2.2e9;
  n.memory_bandwidth = Bandwidth::from_GBps(128);
  return n;
}

TrainingSettings cnn(std::int64_t batch) {
  TrainingSettings s;
  s.batch_per_gpu = batch;
  s.framework = Framework::Horovod;
  return s;
}

TrainingSettings nmt(std::int64_t tokens) {
  TrainingSettings s;
  s.tokens_per_gpu = tokens;
  s.framework = Framework::Horovod;
  s.optimizer = "adam";
  s.optimizer_bytes_per_param = 28.0;
  return s;
}

double images_per_s(const ComputeResult& r) { return r.samples_per_step / r.step().s(); }

// One published figure of benchmark/IntelOptimizedPaddle.md @ ea46de65 (2 x Xeon Gold 6148, MKL-DNN v0.11, one
// process on all 40 cores) and what the model predicts for it.
struct Figure {
  const char* model;
  std::int64_t batch;
  bool training;
  double measured;   // images/s
  const char* role;  // "fit": cpu.eff_compute and cpu.optimizer_bandwidth were fitted to it; "held out"
};

double predicted(const Figure& f) {
  CpuWorkerParams p;
  p.ranks_per_node = 1;  // threads_per_rank 0 = all 40 cores
  const ComputeResult r = cpu_compute_iteration(lib(f.model), cnn(f.batch), gold6148_2s(), p);
  return f.training ? images_per_s(r) : r.samples_per_step / r.forward.s();  // inference: forward only
}

}  // namespace

TEST_CASE("CPU compute model: out of sample on 2 x Xeon Gold 6148 (PaddlePaddle MKL-DNN figures)", "[models][cpu]") {
  // PaddlePaddle benchmark/IntelOptimizedPaddle.md @ ea46de65a9e09e751ae6a060740dfc1b160e6560 (
  // docs/SOURCES.md#cpu-training, grade A): training images/s at batch 64 / 128 / 256 and ResNet-50 inference
  // at batch 1 and 16. cpu.eff_compute (0.73) and cpu.optimizer_bandwidth (17 GB/s) are fitted to the six ResNet-50
  // and VGG-19 training rows (least squares on relative error: 0.734, 17.0 GB/s, rms 0.9 %); GoogLeNet and AlexNet
  // training and ResNet-50 inference are held out. The earlier model (one efficiency 0.46 under a max() roofline,
  // fitted to ResNet-50 bs 256 alone) was off by VGG-19 -27 / -30 / -31 %, GoogLeNet -14 / -19 / -20 %, AlexNet +28 /
  // +5 / -15 %, inference +130 % (bs 1) / +15 % (bs 16). Expected now:
  //   fit rows within 2.5 %; held-out training rows: GoogLeNet -0.7 / -3.0 / -3.0 %, AlexNet +0.7 / +5.6 / -0.4 %,
  //   so within 7 %; inference bs 16 +17 % (within 25 %); inference bs 1 is NOT explained: the model has no
  //   small-batch or per-layer overhead term and predicts about 2.1x the measured 107.83 img/s (asserted as a miss,
  //   so that a future small-batch term has to update this row).
  const Figure figures[] = {
      {"resnet50", 64, true, 81.69, "fit"},         {"resnet50", 128, true, 82.35, "fit"},
      {"resnet50", 256, true, 84.08, "fit"},        {"vgg19", 64, true, 28.46, "fit"},
      {"vgg19", 128, true, 29.83, "fit"},           {"vgg19", 256, true, 30.44, "fit"},
      {"googlenet", 64, true, 250.46, "held out"},  {"googlenet", 128, true, 264.83, "held out"},
      {"googlenet", 256, true, 269.50, "held out"}, {"alexnet", 64, true, 399.00, "held out"},
      {"alexnet", 128, true, 498.94, "held out"},   {"alexnet", 256, true, 626.53, "held out"},
      {"resnet50", 1, false, 107.83, "held out"},   {"resnet50", 16, false, 217.69, "held out"},
  };
  std::printf("%-10s %5s %-9s %10s %10s %8s  %s\n", "model", "batch", "mode", "predicted", "measured", "error", "role");
  for (const Figure& f : figures) {
    const double pred = predicted(f);
    const double err = pred / f.measured - 1.0;
    std::printf("%-10s %5lld %-9s %10.2f %10.2f %+7.1f%%  %s\n", f.model, static_cast<long long>(f.batch),
                f.training ? "training" : "inference", pred, f.measured, 100.0 * err, f.role);
    INFO(f.model << " batch " << f.batch << (f.training ? " training" : " inference") << ": predicted " << pred
                 << " img/s, measured " << f.measured);
    if (std::string(f.role) == "fit") {
      CHECK(std::abs(err) < 0.025);
    } else if (f.training) {
      CHECK(std::abs(err) < 0.07);
    } else if (f.batch == 16) {
      CHECK(std::abs(err) < 0.25);
    } else {
      CHECK(pred > 1.8 * f.measured);  // the known miss at batch 1
    }
  }
}

TEST_CASE("CPU compute model: thread scaling against PaddlePaddle Fluid + MKLML (not the fitted library)",
          "[models][cpu]") {
  // PaddlePaddle issue #11620 (docs/SOURCES.md#cpu-training, grade A): ResNet-50 training with Fluid + MKLML on the
  // same 2 x Gold 6148 node, CPU_NUM places of batch 8 each: 2.64 / 15.87 / 28.20 / 33.99 img/s on 1 / 8 / 16 / 32
  // cores, speed-ups 6.0 / 10.7 / 12.9 at 8 / 16 / 32. MKLML is a different, 2.5x slower library (33.12 against
  // MKL-DNN's 84.08 at 40 cores, IntelOptimizedPaddle.md), so these rows are NOT a validation: the model (MKL-DNN, no
  // serial part) predicts 2.04 / 16.9 / 33.8 / 67.7 img/s, near-linear. Two misses asserted so a change has to revisit
  // them: the speed-up at 32 cores stays above 25 (Fluid + MKLML's 12.9 is not modelled) and the 1-core figure lies
  // below MKLML's 2.64 (one core runs at 1/40 of the node's memory rate and the all-core AVX-512 clock: pessimistic for
  // one active core, whose turbo clock and DRAM share are higher).
  const double measured[] = {2.64, 15.87, 28.20, 33.99};
  const int cores[] = {1, 8, 16, 32};
  double rate[4];
  const Model rn = lib("resnet50");
  std::printf("%-6s %10s %10s\n", "cores", "predicted", "measured");
  for (int i = 0; i < 4; ++i) {
    CpuWorkerParams p;
    p.ranks_per_node = 1;
    p.threads_per_rank = cores[i];
    rate[i] = images_per_s(cpu_compute_iteration(rn, cnn(8 * cores[i]), gold6148_2s(), p));
    std::printf("%-6d %10.2f %10.2f\n", cores[i], rate[i], measured[i]);
  }
  CHECK(rate[3] / rate[0] > 25.0);
  CHECK(rate[0] < measured[0]);
}

TEST_CASE("CPU compute model: per-layer law (additive, unfused elementwise bytes, update)", "[models][cpu]") {
  // One layer: 1e9 FLOP, 3e8 activation bytes of which 2e8 elementwise when fused, 5e8 unfused, 1e6 params; batch 64,
  // one rank on 40 cores: compute rate 40 x 64 x 2.2e9 x 0.73 = 4.11 TFLOP/s, memory rate 2 x 128 GB/s x 0.75 =
  // 192 GB/s. Forward = 6.4e10 / 4.11e12 + (1e8 x 64 + 4e6 + 5e8 x 64) / 192e9 (sum, not max); backward twice the
  // FLOPs and activation bytes plus 8 B per param; update 1e6 x 20 B / 17 GB/s.
  Json j = Json::parse(R"({"name": "syn", "source": "test", "input": "x", "unit": "sample", "param_dtype": "fp32",
      "grad_dtype": "fp32", "layers": [{"name": "l", "params": 1000000, "fwd_flops": 1e9, "bytes": 3e8,
      "elementwise_bytes": 2e8, "unfused_elementwise_bytes": 5e8}]})");
  const Model m = parse_model(j, "syn.json");
  CpuWorkerParams p;
  p.ranks_per_node = 1;
  const ComputeResult r = cpu_compute_iteration(m, cnn(64), gold6148_2s(), p);
  const double rate = 40 * 64 * 2.2e9 * 0.73, mem = 192e9;
  CHECK(r.forward.s() == Approx(6.4e10 / rate + (6.4e9 + 4e6 + 3.2e10) / mem).epsilon(1e-9));
  CHECK(r.backward.s() == Approx(1.28e11 / rate + (1.28e10 + 8e6 + 6.4e10) / mem).epsilon(1e-9));
  CHECK(r.optimizer.s() == Approx(1e6 * 20.0 / 17e9).epsilon(1e-9));
  // Without the key the fused count is used; fewer unfused than fused bytes is an input error naming the key.
  Json fused = j;
  fused["layers"][0].erase("unfused_elementwise_bytes");
  CHECK(parse_model(fused, "syn.json").layers[0].unfused_elementwise_bytes == 2e8);
  Json bad = j;
  bad["layers"][0]["unfused_elementwise_bytes"] = 1e8;
  CHECK_THROWS_WITH(parse_model(bad, "bad.json"), Catch::Contains("unfused_elementwise_bytes"));
}

TEST_CASE("CPU compute model: the update bandwidth is the batch-independent part of the step", "[models][cpu]") {
  // The published step times fall linearly in the batch, t(B) = a + b B; least squares over bs 64 / 128 / 256 gives
  // a = 38.3 ms (ResNet-50, 25.6 M params), 189.3 ms (VGG-19, 143.7 M), 22.2 ms (GoogLeNet, 13.4 M), 84.4 ms
  // (AlexNet, 61.0 M): 1.3-1.7 ns per parameter. In the model a is the optimizer step, params x 20 B (momentum SGD)
  // / 17 GB/s = 1.18 ns per parameter, plus the weight traffic (12 B / 192 GB/s = 0.06 ns): check that for VGG-19.
  CpuWorkerParams p;
  p.ranks_per_node = 1;
  const Model v = lib("vgg19");
  const ComputeResult r64 = cpu_compute_iteration(v, cnn(64), gold6148_2s(), p);
  const ComputeResult r256 = cpu_compute_iteration(v, cnn(256), gold6148_2s(), p);
  CHECK(r64.optimizer.s() == Approx(143667240.0 * 20.0 / 17e9).epsilon(1e-6));
  // Forward + backward: 4x the batch, 4x the time, except the weights read (4 B) and gradients written (8 B) once per
  // step: t(256) = 4 t(64) - 3 x params x 12 B / 192 GB/s.
  CHECK((r256.forward + r256.backward).s() ==
        Approx(4.0 * (r64.forward + r64.backward).s() - 3.0 * 143667240.0 * 12.0 / 192e9).epsilon(1e-6));
  // cpu.optimizer_bandwidth 0 = the rank's memory rate (40 cores x 0.75 x 2 x 128 GB/s = 192 GB/s): 11x faster.
  p.optimizer_bandwidth_GBps = 0.0;
  CHECK(cpu_compute_iteration(v, cnn(64), gold6148_2s(), p).optimizer.s() ==
        Approx(143667240.0 * 20.0 / 192e9).epsilon(1e-6));
}

TEST_CASE("CPU compute model: Transformer-big totals and single-node tokens/s", "[models][cpu]") {
  const Model tb = lib("transformer_big");
  // Vaswani et al. 2017 Table 3: 213 M parameters; workloads.md B7.5: 214.2 M with the 37,000-token shared BPE
  // embedding (37,000 x 1024 = 37,888,000 of them sparse: the embedding lookups).
  std::int64_t sparse = 0;
  for (const auto& l : tb.layers)
    if (l.sparse) sparse += l.params;
  CHECK(sparse == 37'888'000);
  CHECK(static_cast<double>(tb.total_params()) == Approx(213e6).epsilon(0.01));
  // Training FLOPs per token ~ 6 N (docs/SOURCES.md#workload-specs; forward 2 N, backward 4 N): 3 x forward within 2 %
  // of 6 x 214.2 M = 1.285 GFLOP (the attention terms at length 32 and the tied softmax are inside the 2 %).
  CHECK(3.0 * tb.fwd_flops_per_unit() == Approx(6.0 * 214.2e6).epsilon(0.02));
  // One node, 2 ranks x 20 threads, 4096 tokens per rank. Per rank and step: GEMMs 3 x 0.4305 GFLOP x 4096 / (20 x
  // 140.8 GFLOP/s x 0.73) = 2.573 s; activation, weight and elementwise traffic 0.455 s at 20/40 x 0.75 x 256 GB/s =
  // 96 GB/s (the file's bytes); Adam update 214.2 M x 28 B / 17 GB/s = 0.353 s. Node: 8192 tokens / 3.381 s = 2.42 k
  // tokens/s (the model fitted to ResNet-50 alone gave 1.87 k). docs/SOURCES.md#cpu-training's prior for a 2 x 6148
  // node, 0.8-1.9 k tokens/s, is an estimate (grade C/D: 25-40 % MKL efficiency assumed, not measured); the CNN figures
  // show MKL-DNN at 73 % of the 2.2 GHz AVX-512 peak, so the model now sits 27 % above that prior's top. Whether TF 1.x
  // MKL's Transformer GEMMs reach the CNN convolutions' efficiency is NOT validated (no published figure); with a
  // multi-threaded update (cpu.optimizer_bandwidth 0) it would be 2.65 k.
  CpuWorkerParams p;
  const ComputeResult r = cpu_compute_iteration(tb, nmt(4096), gold6148_2s(), p);
  CHECK(r.optimizer.s() == Approx(static_cast<double>(tb.total_params()) * 28.0 / 17e9).epsilon(1e-6));
  const double node_tokens_per_s = 2.0 * r.work_per_step / r.step().s();
  CHECK(node_tokens_per_s == Approx(2.42e3).epsilon(0.01));
  p.optimizer_bandwidth_GBps = 0.0;
  const ComputeResult fast = cpu_compute_iteration(tb, nmt(4096), gold6148_2s(), p);
  CHECK(2.0 * fast.work_per_step / fast.step().s() == Approx(2.65e3).epsilon(0.01));
}

TEST_CASE("CPU compute model: ranks, threads, oversubscription, communication cores", "[models][cpu]") {
  const Model tb = lib("transformer_big");
  const CpuNodeSpec node = gold6148_2s();
  auto node_rate = [&](int ranks, int threads) {
    CpuWorkerParams p;
    p.ranks_per_node = ranks;
    p.threads_per_rank = threads;
    p.optimizer_bandwidth_GBps = 0.0;  // the update at the rank's memory rate, which scales with its cores
    const ComputeResult r = cpu_compute_iteration(tb, nmt(4096), node, p);
    return ranks * r.work_per_step / r.step().s();
  };
  // threads x ranks = cores with no serial part: the node does the same work per second however it is split (with
  // the default cpu.optimizer_bandwidth each rank's update runs at a fixed 17 GB/s instead, so more ranks update
  // faster in total).
  CHECK(node_rate(1, 40) == Approx(node_rate(2, 20)).epsilon(1e-9));
  CHECK(node_rate(4, 10) == Approx(node_rate(2, 20)).epsilon(1e-9));
  // 2 ranks x 40 threads on 40 cores: each rank's 40 threads share 20 cores at oversubscription efficiency 0.5, so the
  // node does half the work per second.
  CHECK(node_rate(2, 40) == Approx(0.5 * node_rate(2, 20)).epsilon(1e-9));
  // Half the cores idle: half the rate.
  CHECK(node_rate(2, 10) == Approx(0.5 * node_rate(2, 20)).epsilon(1e-9));
  // Communication core: none taken when a core per rank is idle (2 x 19 threads on 40 cores); one of 20 taken
  // otherwise (share 1/20 without a serial fraction).
  CpuWorkerParams p;
  p.threads_per_rank = 19;
  CHECK(comm_compute_share(p, node) == 0.0);
  p.threads_per_rank = 20;
  CHECK(comm_compute_share(p, node) == Approx(1.0 / 20.0));
  // Amdahl: amdahl(32, 0.048) = 12.9, the speed-up PaddlePaddle Fluid + MKLML shows on 32 cores (33.99 / 2.64 =
  // 12.9, issue #11620, docs/SOURCES.md#cpu-training), the bound cpu.serial_fraction's default cites.
  CHECK(amdahl(32, 0.048) == Approx(33.99 / 2.64).epsilon(0.01));
}

TEST_CASE("CPU compute model: sparse embedding gradient sizes under Horovod", "[models][cpu]") {
  const Model tb = lib("transformer_big");
  CpuWorkerParams p;
  TrainingSettings s = nmt(4096);
  const auto sparse_bytes = [&] {
    for (const auto& l : cpu_compute_iteration(tb, s, gold6148_2s(), p).layers)
      if (l.sparse) return l.sparse_bytes_per_rank;
    return Bytes{0};
  };
  // IndexedSlices rows = 2 lookups x 4096 tokens + 37,000 rows of the tied softmax's dense gradient = 45,192 rows of
  // 1024 x 4 B values + an 8 B int64 index: 45,192 x 4,104 B = 185,467,968 B per rank (the dense table is
  // 37,888,000 x 4 = 151,552,000 B).
  CHECK(sparse_bytes() == 45'192 * 4'104);
  p.tied_softmax_slices = false;  // lookups only: 8,192 x 4,104 B
  CHECK(sparse_bytes() == 8'192 * 4'104);
  s.horovod.sparse_as_dense = true;  // allreduced densely: no sparse tensor
  CHECK(sparse_bytes() == 0);
}
