// The streamed NVLS Tree allreduce (coll::NvlsTreeStream + sim/nvls_tree_run) against its oracle, the materialized
// step DAG run by the same CollectiveRun: identical finish times to the picosecond, identical event and flow counts,
// over 2, 3 (node tree 1 shifted), 4 (mirrored) and 5 (three levels) H100 hosts of the aws-p5 preset, 8, 4 or 2
// GPUs per node, the communicator's channels and 2 to 6, one partial loop, remainder bytes and loops beyond the
// slots; and two NVLS Trees contending for the same NVSwitch legs and NICs on one simulator.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <tuple>
#include <vector>

#include "streamed_oracle.hpp"
#include "test_clusters.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/nvls_tree_stream.hpp"

using namespace vgsim;

namespace {
using vgsim::test::catalog;

// The aws-p5 preset's host template and fabric with `hosts` hosts.
topo::Cluster p5(std::uint32_t hosts) {
  Json j = load_json_file(topo::Cluster::presets_dir() + "/aws-p5-2x8xh100.json");
  for (auto& h : j["hosts"]) h["count"] = hosts;
  return topo::Cluster::from_json(j, "aws-p5-2x8xh100.json (scaled)", catalog());
}

sim::CommOptions options(std::uint32_t channels, bool stream) {
  sim::CommOptions opt;
  opt.algo = coll::Algo::NVLSTree;
  opt.proto = coll::Proto::Simple;
  if (channels) opt.channels = channels;
  opt.steps = stream ? coll::StepStorage::Streamed : coll::StepStorage::Stored;
  return opt;
}
}  // namespace

TEST_CASE("the NVLS Tree stream's index, step and dependents invert one another") {
  // Expectation: step(index(s)) == s for every transfer, and t lists s as a dependent of the stage its edge waits for
  // exactly when s lists t as a dependency of that kind (each_dependent is each_dependency's inverse), on 5 nodes x 3
  // GPUs (a three-level node tree: ranks with 0, 1 and 2 children), 4 channels and 5 loops with 2 slots.
  coll::CollectiveSchedule h;
  h.op = coll::Op::AllReduce;
  h.algo = coll::Algo::NVLSTree;
  h.ranks = 15;
  h.ranks_per_node = 3;
  h.channels = 4;
  h.chunk_bytes = 100;
  h.slots = 2;
  h.size = 5 * 4 * 3 * 100 - 7;
  const coll::NvlsTreeStream ns(h);
  REQUIRE(ns.loops() == 5);
  using Step = coll::NvlsTreeStream::Step;
  std::map<std::pair<std::uint64_t, bool>, std::vector<std::uint64_t>> from_deps, from_dependents;
  for (std::uint64_t i = 0; i < ns.count(); ++i) {
    const Step s = ns.step(i);
    REQUIRE(ns.index(s) == i);
    ns.each_dependency(s, [&](const Step& d, bool data) {
      REQUIRE(ns.index(d) < i);  // topological
      from_deps[{ns.index(d), data}].push_back(i);
      return true;
    });
    for (bool delivered : {false, true})
      ns.each_dependent(s, delivered, [&](const Step& d) { from_dependents[{i, delivered}].push_back(ns.index(d)); });
  }
  for (auto* m : {&from_deps, &from_dependents})
    for (auto& [key, list] : *m) std::sort(list.begin(), list.end());
  CHECK(from_deps == from_dependents);
}

TEST_CASE("a streamed NVLS Tree allreduce runs exactly as its materialized step DAG") {
  // Expectation: the streamed executor launches each transfer at the event that resolves its last dependency, in
  // ascending transfer index, as the DAG executor does, so the event order is the same total order and every time
  // is equal to the picosecond: time.ps, events and flows equal, not approximately equal.
  struct Case {
    std::uint32_t hosts, gpus, channels;  // channels 0: the communicator's choice
  };
  const Case cases[] = {{2, 8, 0}, {2, 8, 2}, {3, 8, 2}, {4, 4, 4}, {5, 2, 6}};
  const Bytes sizes[] = {1000, 3 * MiB + 7, 24 * MiB};  // one partial loop, remainder bytes, loops beyond the slots
  for (const Case& c : cases) {
    const topo::Cluster cl = p5(c.hosts);
    for (Bytes size : sizes) {
      INFO(c.hosts << "x" << c.gpus << " ch " << c.channels << " " << size << " B");
      sim::Communicator dag_comm(cl, sim::place_ranks(cl, c.hosts, c.gpus), options(c.channels, false));
      sim::Communicator stream_comm(cl, sim::place_ranks(cl, c.hosts, c.gpus), options(c.channels, true));
      const auto dag = sim::simulate_collective(dag_comm, coll::Op::AllReduce, size);
      const auto streamed = sim::simulate_collective(stream_comm, coll::Op::AllReduce, size);
      REQUIRE(dag.plan.algo == coll::Algo::NVLSTree);
      vgsim::test::check_streamed_as_dag(dag, streamed);
    }
  }
}

TEST_CASE("two streamed NVLS Trees contending for NVSwitch legs and NICs finish as their DAGs do") {
  // Expectation: as above, with two NVLS Tree allreduces of different sizes on one simulator, a on 3 hosts x 8 GPUs
  // from 0, b on the same hosts' GPUs 0-3 from 7 us (sharing their NVSwitch legs and NICs), so the max-min rates of
  // one depend on the other's progress: both finish times and the event count equal.
  const topo::Cluster cl = p5(3);
  auto both = [&](bool stream) {
    return vgsim::test::run_contending(cl, sim::place_ranks(cl, 3, 8), sim::place_ranks(cl, 3, 4), options(2, stream),
                                       coll::Op::AllReduce, 20 * MiB, coll::Op::AllReduce, 9 * MiB + 3);
  };
  CHECK(both(true) == both(false));
}
