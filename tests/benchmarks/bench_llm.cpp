// Benchmark: one large-model training iteration (issue 17 speed target: a 1,024-GPU 3D-parallel iteration in under
// 10 s on one core): Megatron SC'21 Table 1's 76.1B row (tp 8, pp 4, dp 32, micro-batch 2, global batch 1,792,
// interleaved with 3 chunks, full recomputation) on 128 DGX A100 nodes of selene-a100-384, and the 1T row on 3,072
// GPUs. Each communication pattern's contending groups run on the engine; the pipeline timeline covers every
// micro-batch. Not a test: results are kept in docs/BENCHMARKS.md. One case per process for a meaningful peak RSS.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "vgsim/sim/llm/llm_run.hpp"

using namespace vgsim;
using namespace vgsim::sim;

namespace {

void BM_MegatronIteration(benchmark::State& state) {
  const bool trillion = state.range(0) != 0;
  const topo::Catalog catalog = topo::Catalog::load_default();
  training::JobSpec spec;
  spec.cluster = "selene-a100-384";
  spec.gpus_per_node = 8;
  if (trillion) {
    spec.workload = "megatron-1008b";
    spec.nodes = 384;
    spec.sets = {"tp=8", "pp=64", "micro_batch=1", "global_batch=3072", "recompute=full", "precision=fp16"};
  } else {
    spec.workload = "megatron-76.1b";
    spec.nodes = 128;
    spec.sets = {"tp=8",           "pp=4",           "micro_batch=2",        "global_batch=1792",
                 "recompute=full", "precision=fp16", "schedule=interleaved", "virtual_stages=3"};
  }
  llm::LlmResult r;
  for (auto _ : state) r = llm::simulate_llm_iteration(llm::resolve_llm_job(spec, catalog));
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["gpus"] = static_cast<double>(spec.nodes * 8);
  state.counters["engine_events"] = static_cast<double>(r.engine_events);
  state.counters["iteration_s"] = r.iteration.s();
  state.counters["tflops_per_gpu"] = r.hardware_tflops_per_gpu;
  state.counters["peak_rss_MiB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

}  // namespace

BENCHMARK(BM_MegatronIteration)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
