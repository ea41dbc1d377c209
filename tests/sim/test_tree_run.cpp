// The streamed tree allreduce (coll::TreeStream + sim/tree_run) against its oracle, the materialized step DAG run by
// the same CollectiveRun: identical finish times to the picosecond, identical event and flow counts, over one node
// (a chain), one GPU per node (node trees only), odd and even node counts (tree 1 shifted or mirrored), protocols
// (LL/LL128/Simple: 8 slots), several loops beyond the slots, host-staged and GPUDirect routes, and two trees
// contending on one simulator.
#include <catch2/catch.hpp>

#include "streamed_oracle.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/generators.hpp"

using namespace vgsim;

namespace {
using vgsim::test::catalog;
using Case = vgsim::test::StreamCase;

sim::CommOptions options(const Case& c, bool stream) {
  return vgsim::test::stream_options(c, coll::Algo::Tree, stream);
}
}  // namespace

TEST_CASE("a streamed tree allreduce runs exactly as its materialized step DAG") {
  // Expectation: the streamed executor launches each transfer at the event that resolves its last dependency, in
  // ascending transfer index, as the DAG executor does, so the event order (time, sequence) is the same total order
  // and every time is equal to the picosecond: time.ps, events and flows equal, not approximately equal.
  const Case cases[] = {
      {"r750xa-4x-100gbe", 2, 1, coll::Proto::Simple, 2, false},  // 2 ranks, host-staged (no GPUDirect)
      {"r750xa-4x-100gbe", 3, 1, coll::Proto::LL, 2, true},       // odd node count: tree 1 shifted
      {"r750xa-4x-100gbe", 4, 2, coll::Proto::LL128, 2, false},   // NVLink bridge inside, network across
      {"r750xa-4x-100gbe", 1, 2, coll::Proto::Simple, 1, true},   // one node: a chain, one channel
      {"dgx-a100-128", 1, 8, coll::Proto::LL, 2, true},           // one node of eight: a chain
      {"dgx-a100-128", 5, 8, coll::Proto::LL128, 0, true},        // 40 ranks, the communicator's channels
      {"dgx-a100-128", 4, 8, coll::Proto::Simple, 4, false},     {"aws-p5-2x8xh100", 2, 8, coll::Proto::LL128, 0, true},
  };
  const Bytes sizes[] = {1000, 3 * MiB + 7, 24 * MiB};  // one partial loop, remainder bytes, loops beyond the slots
  for (const Case& c : cases) {
    const topo::Cluster cl = topo::Cluster::resolve(c.cluster, catalog());
    for (Bytes size : sizes) {
      INFO(c.cluster << " " << c.nodes << "x" << c.gpus << " " << coll::to_string(c.proto) << " ch " << c.channels
                     << " " << size << " B");
      sim::Communicator dag_comm(cl, sim::place_ranks(cl, c.nodes, c.gpus), options(c, false));
      sim::Communicator stream_comm(cl, sim::place_ranks(cl, c.nodes, c.gpus), options(c, true));
      const auto dag = sim::simulate_collective(dag_comm, coll::Op::AllReduce, size);
      const auto streamed = sim::simulate_collective(stream_comm, coll::Op::AllReduce, size);
      REQUIRE(dag.plan.algo == coll::Algo::Tree);
      vgsim::test::check_streamed_as_dag(dag, streamed);
    }
  }
}

TEST_CASE("two streamed trees contending for the NICs finish as their DAGs do") {
  // Expectation: as above, with two tree allreduces of different sizes on one simulator sharing GPUs and every
  // host's NIC, so the max-min rates of one depend on the other's progress: both finish times equal to the
  // picosecond, and the event counts equal.
  auto both = [](bool stream) {
    return vgsim::test::run_contending(options(Case{"r750xa-4x-100gbe", 0, 0, coll::Proto::LL128, 2, false}, stream),
                                       coll::Op::AllReduce, 20 * MiB, coll::Op::AllReduce, 9 * MiB + 3);
  };
  CHECK(both(true) == both(false));
}

TEST_CASE("by default rings and trees are streamed; other algorithms are stored") {
  // Expectation (CommOptions::steps = StepStorage::Streamed): a ring and a tree allreduce come back as headers
  // without transfers; a broadcast (a chain, not streamable) is stored.
  const topo::Cluster cl = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::CommOptions opt;
  opt.proto = coll::Proto::LL;
  opt.channels = 2;
  for (coll::Algo algo : {coll::Algo::Ring, coll::Algo::Tree}) {
    opt.algo = algo;
    const sim::CallPlan p = sim::Communicator(cl, sim::place_ranks(cl, 4, 1), opt).plan(coll::Op::AllReduce, 8 * MiB);
    CHECK(p.schedule->streamed);
    CHECK(p.schedule->transfers.empty());
  }
  opt.algo = coll::Algo::Ring;
  const sim::CallPlan b = sim::Communicator(cl, sim::place_ranks(cl, 4, 1), opt).plan(coll::Op::Broadcast, 8 * MiB);
  CHECK(!b.schedule->streamed);
  CHECK(!b.schedule->transfers.empty());
}
