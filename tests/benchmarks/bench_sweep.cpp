// Benchmark: a what-if sweep of 1,000 design points, each a 32-GPU ResNet-50 data-parallel job (4 DGX A100 nodes x 8
// GPUs of the dgx-a100-128 preset), ANALYTICAL fidelity (closed-form collectives, sim/planning/analytical.hpp), on 2
// worker threads. Grid: batch 32..320 (10) x Horovod fusion threshold 8..80 MiB (10) x precision (2) x channels
// 2..10 (5) = 1,000 points. Target: under 60 s on 2 cores. Not a test: run by hand (docs/BENCHMARKS.md).
#include <benchmark/benchmark.h>

#include "vgsim/sim/planning/sweep.hpp"

using namespace vgsim;
using namespace vgsim::sim::planning;

static SweepPlan thousand_points() {
  Json batches = Json::array(), fusion = Json::array();
  for (int i = 1; i <= 10; ++i) {
    batches.push_back(32 * i);
    fusion.push_back(std::to_string(8 * i) + "MiB");
  }
  Json j = {{"name", "bench-1000"},
            {"fidelity", "analytical"},
            {"base",
             {{"cluster", "dgx-a100-128"},
              {"workload", "resnet50"},
              {"nodes", 4},
              {"gpus_per_node", 8},
              {"framework", "horovod"}}},
            {"grid",
             {{"batch_per_gpu", batches},
              {"horovod.fusion_threshold", fusion},
              {"precision", {"amp", "fp32"}},
              {"channels", {2, 4, 6, 8, 10}}}}};
  return parse_plan(j, "bench-1000");
}

static void BM_Sweep1000Analytical(benchmark::State& state) {
  const SweepPlan plan = thousand_points();
  SweepOptions o;
  o.jobs = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    const SweepResult r = run_sweep(plan, o);
    if (r.ran != 1000) state.SkipWithError("expected 1000 points");
    for (const auto& p : r.results)
      if (!p.error.empty()) state.SkipWithError(p.error.c_str());
    benchmark::DoNotOptimize(r.csv.size());
  }
  state.counters["points"] = 1000;
}
BENCHMARK(BM_Sweep1000Analytical)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
