// Step-level speed of the engine: a 1 GiB ring allreduce (NCCL Simple chunking; channels as the communicator picks
// them, or 2) on 64, 256, 1,024 and 4,096 ranks of DGX A100 nodes (8 GPUs per host, preset dgx-a100-128 scaled to the
// host count). Reports wall time per collective, engine events per second, flows and the process's peak RSS.
// BM_NvlsTreeAllreduce: NVLS Tree (forced; opt-in in NCCL's choice while the engine is slow on it) on the 2 x 8 H100
// preset aws-p5-2x8xh100, 16 MiB to 1 GiB: hundreds of flows share each NVSwitch leg (issue 16, item 3). Its events
// include the superseded finish events, almost all never queued (Simulator::finishes_never_queued): events_per_s is
// not comparable with the ring's.
// Usage: bench_collective [--benchmark_filter=...]; results are recorded in docs/BENCHMARKS.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "vgsim/sim/communicator.hpp"

using namespace vgsim;

namespace {

topo::Cluster dgx_cluster(std::uint32_t hosts, const topo::Catalog& catalog) {
  Json j = load_json_file(topo::Cluster::presets_dir() + "/dgx-a100-128.json");
  for (auto& h : j["hosts"]) h["count"] = hosts;  // same host template and fabric, more or fewer hosts
  j["name"] = "dgx-a100-x" + std::to_string(hosts);
  return topo::Cluster::from_json(j, "dgx-a100-128.json (scaled)", catalog);
}

// Runs the collective once per iteration and reports its engine events, flows, events per second and simulated time.
void simulate_and_report(benchmark::State& state, const sim::Communicator& comm, Bytes bytes) {
  std::uint64_t events = 0, flows = 0;
  double sim_us = 0;
  for (auto _ : state) {
    const auto r = sim::simulate_collective(comm, coll::Op::AllReduce, bytes);
    events = r.events;
    flows = r.flows;
    sim_us = r.time.us();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["simulated_us"] = sim_us;
}

void ring_allreduce_1GiB(benchmark::State& state, bool fold) {
  const auto ranks = static_cast<std::uint32_t>(state.range(0));
  const auto channels = static_cast<std::uint32_t>(state.range(1));  // 0 = as the communicator picks (8 on DGX)
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = dgx_cluster(ranks / 8, catalog);
  sim::CommOptions opt;
  opt.algo = coll::Algo::Ring;
  opt.proto = coll::Proto::Simple;
  opt.fold_channels = fold;
  if (channels) opt.channels = channels;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, ranks / 8, 8), opt);
  simulate_and_report(state, comm, GiB);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["peak_rss_MiB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
  state.counters["channels"] = comm.shape().channels;
}
void BM_RingAllreduce1GiB(benchmark::State& state) { ring_allreduce_1GiB(state, false); }
// The same ring with the channel fold (CommOptions::fold_channels; inexact): one channel runs, each resource divided
// among the channels that cross it. Its sim_us against BM_RingAllreduce1GiB's is the fold's error.
void BM_RingAllreduce1GiBFolded(benchmark::State& state) { ring_allreduce_1GiB(state, true); }

void BM_NvlsTreeAllreduce(benchmark::State& state) {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::from_json(
      load_json_file(topo::Cluster::presets_dir() + "/aws-p5-2x8xh100.json"), "aws-p5-2x8xh100.json", catalog);
  sim::CommOptions opt;
  opt.algo = coll::Algo::NVLSTree;
  opt.proto = coll::Proto::Simple;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 2, 8), opt);
  simulate_and_report(state, comm, static_cast<Bytes>(state.range(0)) * MiB);
}

}  // namespace

// {ranks, channels}: the communicator's own choice (8 channels: one per NIC of a DGX A100) and 2 channels (NCCL's
// usual count per NIC pair). Rings are streamed (sim/ring_run): memory O(ranks x channels), so 4,096 and 16,384
// ranks x 8 channels (issue 16's targets) fit.
BENCHMARK(BM_RingAllreduce1GiB)
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({1024, 0})
    ->Args({4096, 0})
    ->Args({16384, 0})
    ->Args({64, 2})
    ->Args({256, 2})
    ->Args({1024, 2})
    ->Args({4096, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_RingAllreduce1GiBFolded)
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({1024, 0})
    ->Args({4096, 0})
    ->Args({16384, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// {MiB}
BENCHMARK(BM_NvlsTreeAllreduce)->Arg(16)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
