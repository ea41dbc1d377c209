// Benchmark: ResNet-50 data-parallel training iterations at step level (every NCCL step of every bucket's collective
// a flow in the engine), batch 256/GPU, AMP, DDP (25 MiB buckets), on DGX A100 hosts x 8 GPUs (preset dgx-a100-128,
// scaled to the host count as bench_collective does). On 1,024 GPUs (128 hosts) it counts one iteration, and three
// (the steady state the report uses; identical collectives on an idle network are simulated once and replayed) and
// the same with replay off (every collective simulated); at scale one iteration on 512 hosts (4,096 GPUs: small enough
// for callgrind), 2,048 hosts (16,384 GPUs) and 12,500 hosts (100,000 GPUs). Targets: one iteration on 1,024 GPUs in
// under 5 s on one core (training issue); on 100,000 GPUs under 60 s and 4 GiB (issue 16). Not a test: results are kept
// in docs/BENCHMARKS.md. Run one case per process (--benchmark_filter) for a meaningful peak RSS.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <string>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/training_run.hpp"

using namespace vgsim;
using namespace vgsim::sim::training;

namespace {

// The dgx-a100-128 preset with `hosts` hosts: same host template and fabric, more or fewer hosts.
std::shared_ptr<const topo::Cluster> dgx_cluster(std::uint32_t hosts, const topo::Catalog& catalog) {
  Json j = load_json_file(topo::Cluster::presets_dir() + "/dgx-a100-128.json");
  for (auto& h : j["hosts"]) h["count"] = hosts;
  j["name"] = "dgx-a100-x" + std::to_string(hosts);
  return std::make_shared<const topo::Cluster>(topo::Cluster::from_json(j, "dgx-a100-128.json (scaled)", catalog));
}

void resnet50_iteration(benchmark::State& state, std::uint32_t hosts, int iterations, bool replay, bool stored,
                        bool fold) {
  const topo::Catalog catalog = topo::Catalog::load_default();
  JobSpec spec;
  spec.cluster = "dgx-a100-128";
  spec.workload = "resnet50";
  spec.nodes = 1;  // resolved on the preset, then moved to the scaled cluster below
  spec.gpus_per_node = 8;
  spec.iterations = iterations;
  spec.sets = {"batch_per_gpu=256", "precision=amp", "framework=ddp"};
  spec.reuse_collective_times = replay;
  TrainingJob job = resolve_job(spec, catalog);
  job.cluster = dgx_cluster(hosts, catalog);
  job = with_ranks(job, hosts, 8);
  if (stored) job.comm.steps = coll::StepStorage::Stored;  // the step DAG stored, for comparison
  job.comm.fold_channels = fold;
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

void BM_ResNet50Iteration(benchmark::State& state) {
  resnet50_iteration(state, static_cast<std::uint32_t>(state.range(0)), static_cast<int>(state.range(1)),
                     state.range(2) != 0, state.range(3) != 0, false);
}
// One iteration with the channel fold (CommOptions::fold_channels; inexact): its iteration_ms against
// BM_ResNet50Iteration/{hosts}/1/1/0's is the fold's error.
void BM_ResNet50IterationFolded(benchmark::State& state) {
  resnet50_iteration(state, static_cast<std::uint32_t>(state.range(0)), 1, true, false, true);
}

}  // namespace

// {hosts (x 8 GPUs), iterations, replay identical collectives, step DAGs stored (coll::StepStorage::Stored; 0 = the
// default: rings and trees streamed)}
BENCHMARK(BM_ResNet50Iteration)
    ->Args({128, 1, 1, 0})
    ->Args({128, 3, 1, 0})
    ->Args({128, 1, 0, 0})
    ->Args({512, 1, 1, 0})
    ->Args({512, 1, 1, 1})
    ->Args({2048, 1, 1, 0})
    ->Args({2048, 1, 1, 1})
    ->Args({12500, 1, 1, 0})
    ->Args({12500, 1, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// {hosts (x 8 GPUs)}
BENCHMARK(BM_ResNet50IterationFolded)
    ->Arg(128)
    ->Arg(512)
    ->Arg(2048)
    ->Arg(12500)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_MAIN();
