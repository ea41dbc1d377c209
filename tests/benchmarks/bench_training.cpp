// Benchmark: ResNet-50 data-parallel training iterations on 1,024 GPUs (128 DGX A100 hosts x 8 GPUs, preset
// dgx-a100-128) at step level: every NCCL step of every bucket's collective a flow in the engine. Batch 256/GPU, AMP,
// DDP (25 MiB buckets). Counts one iteration, and three (the steady state the report uses; identical collectives on
// an idle network are simulated once and replayed) and the same with replay off (every collective simulated).
// Target of the training issue: one iteration on 1,024 GPUs in under 5 s on one core. Not a test: results are kept
// in docs/BENCHMARKS.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/training_run.hpp"

using namespace vgsim;
using namespace vgsim::sim::training;

static void BM_ResNet50Iteration1024(benchmark::State& state) {
  const int iterations = static_cast<int>(state.range(0));
  const bool replay = state.range(1) != 0;
  const topo::Catalog catalog = topo::Catalog::load_default();
  JobSpec spec;
  spec.cluster = "dgx-a100-128";
  spec.workload = "resnet50";
  spec.nodes = 128;
  spec.gpus_per_node = 8;
  spec.iterations = iterations;
  spec.sets = {"batch_per_gpu=256", "precision=amp", "framework=ddp"};
  spec.reuse_collective_times = replay;
  const TrainingJob job = resolve_job(spec, catalog);
  TrainingResult r;
  for (auto _ : state) r = simulate_training(job);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["events"] = static_cast<double>(r.events);
  state.counters["flows"] = static_cast<double>(r.flows);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(r.events), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["iteration_ms"] = r.iteration_time.ms();
  state.counters["img_per_s"] = r.samples_per_s;
  state.counters["peak_rss_MiB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// {iterations, replay identical collectives}
BENCHMARK(BM_ResNet50Iteration1024)
    ->Args({1, 1})
    ->Args({3, 1})
    ->Args({1, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_MAIN();
