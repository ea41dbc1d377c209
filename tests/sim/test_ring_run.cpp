// The streamed ring (coll::RingStream + sim/ring_run) against its oracle, the materialized step DAG run by the same
// CollectiveRun: identical finish times to the picosecond, identical event and flow counts, over ring sizes (2 ranks,
// where the buffer dependency reads the data, up to 16), protocols (LL/LL128: 8 slots; Simple: 2), several loops,
// host-staged and GPUDirect routes, NVLink + network clusters, and two rings contending on one simulator.
#include <catch2/catch.hpp>

#include "streamed_oracle.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/ring_stream.hpp"

using namespace vgsim;

namespace {
using vgsim::test::catalog;
using Case = vgsim::test::StreamCase;

sim::CollectiveResult run(const topo::Cluster& cl, const Case& c, coll::Op op, Bytes size, bool stream) {
  sim::Communicator comm(cl, sim::place_ranks(cl, c.nodes, c.gpus),
                         vgsim::test::stream_options(c, coll::Algo::Ring, stream));
  return sim::simulate_collective(comm, op, size);
}
}  // namespace

TEST_CASE("a streamed ring runs exactly as its materialized step DAG") {
  // Expectation: the streamed executor launches each transfer at the event that resolves its last dependency, in
  // ascending transfer index, as the DAG executor does, so the event order (time, sequence) is the same total order
  // and every time is equal to the picosecond: time.ps, events and flows equal, not approximately equal.
  const Case cases[] = {
      {"r750xa-4x-100gbe", 2, 1, coll::Proto::Simple, 1, false},  // 2 ranks, host-staged (no GPUDirect)
      {"r750xa-4x-100gbe", 2, 1, coll::Proto::LL, 2, true},       // 2 ranks, 8 slots: buffer dependency reads data
      {"r750xa-4x-100gbe", 4, 1, coll::Proto::LL128, 2, false},
      {"r750xa-4x-100gbe", 4, 2, coll::Proto::Simple, 2, true},  // NVLink bridge inside, network across
      {"r750xa-4x-100gbe", 3, 2, coll::Proto::Simple, 4, false},
      {"dgx-a100-128", 2, 8, coll::Proto::Simple, 0, true},  // 16 ranks, 8 channels (one per NIC)
      {"aws-p5-2x8xh100", 2, 8, coll::Proto::LL128, 0, true},
  };
  const Bytes sizes[] = {1000, 3 * MiB + 7, 48 * MiB};  // one partial loop, remainder bytes, several loops
  for (const Case& c : cases) {
    const topo::Cluster cl = topo::Cluster::resolve(c.cluster, catalog());
    for (coll::Op op : {coll::Op::AllReduce, coll::Op::AllGather, coll::Op::ReduceScatter})
      for (Bytes size : sizes) {
        INFO(c.cluster << " " << c.nodes << "x" << c.gpus << " " << coll::to_string(c.proto) << " ch " << c.channels
                       << " " << coll::to_string(op) << " " << size << " B");
        const auto dag = run(cl, c, op, size, false);
        const auto streamed = run(cl, c, op, size, true);
        vgsim::test::check_streamed_as_dag(dag, streamed);
      }
  }
}

TEST_CASE("two streamed rings contending for a NIC finish as their DAGs do") {
  // Expectation: as above, with two collectives of different sizes on one simulator sharing every host's NIC, so
  // the max-min rates of one depend on the other's progress: both finish times equal to the picosecond.
  auto both = [](bool stream) {
    const Case c{"r750xa-4x-100gbe", 0, 0, coll::Proto::Simple, 2, false};
    return vgsim::test::run_contending(vgsim::test::stream_options(c, coll::Algo::Ring, stream), coll::Op::AllReduce,
                                       20 * MiB, coll::Op::AllGather, 9 * MiB + 3);
  };
  CHECK(both(true) == both(false));
}

TEST_CASE("a streamed ring header materializes to the generated schedule; the transfer guard bounds both") {
  // Expectation: materialize(streamed header) reproduces generate() with streaming off transfer for transfer
  // (src, dst, channel, step, bytes, dependencies), here with a permuted ring order and 3 slots.
  coll::GenOptions o;
  o.channels = 2;
  o.slots = 3;
  o.ring_order = {2, 0, 3, 1, 4};
  const Bytes size = 7 * MiB + 11;
  const coll::CollectiveSchedule stored =
      coll::generate(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple, 5, 1, size, o);
  o.steps = coll::StepStorage::Streamed;
  const coll::CollectiveSchedule header =
      coll::generate(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple, 5, 1, size, o);
  REQUIRE(header.streamed);
  CHECK(coll::RingStream(header).count() == stored.transfers.size());
  const coll::CollectiveSchedule again = coll::materialize(header);
  REQUIRE(again.transfers.size() == stored.transfers.size());
  CHECK(again.deps == stored.deps);
  for (std::size_t i = 0; i < stored.transfers.size(); ++i) {
    const coll::Transfer &x = again.transfers[i], &y = stored.transfers[i];
    INFO("transfer " << i);
    CHECK((x.src == y.src && x.dst == y.dst && x.channel == y.channel && x.step == y.step && x.bytes == y.bytes &&
           x.dep_begin == y.dep_begin && x.dep_count == y.dep_count));
  }
  // The guard bounds work for a streamed header (about two events per transfer) and memory for a stored one: both
  // refuse 10 allowed transfers; the streamed message counts events, not MiB.
  o.max_transfers = 10;
  CHECK_THROWS_WITH(coll::generate(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple, 5, 1, size, o),
                    Catch::Contains("streamed") && Catch::Contains("--max-transfers"));
  CHECK_THROWS_AS(coll::materialize(header, 10), InputError);
  o.steps = coll::StepStorage::Stored;
  CHECK_THROWS_WITH(coll::generate(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple, 5, 1, size, o),
                    Catch::Contains("MiB") && Catch::Contains("--max-transfers"));
}

TEST_CASE("a streamed ring with more sends than the engine's event tag holds is an input error") {
  // Expectation: 4 ranks, one channel, 1-byte chunks of 2 slices (Simple: SlicePerChunk 2): a loop moves 4 bytes in
  // 2 (4 - 1) = 6 steps of 2 sends, so 1 GiB is 2^28 loops (within the partition's 2^30) and 12 x 2^28 =
  // 3,221,225,472 sends > kMaxSends = 2^31 - 2: refused by the generator with the value and the bound, not by the
  // engine; 512 MiB (12 x 2^27 = 1,610,612,736 sends) is within the bound and accepted as a header.
  coll::GenOptions o;
  o.channels = 1;
  o.chunk_bytes = 1;
  o.max_transfers = 0;
  o.steps = coll::StepStorage::Streamed;
  CHECK_THROWS_WITH(coll::generate(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple, 4, 1, GiB, o),
                    Catch::Contains("3221225472") && Catch::Contains("2147483646"));
  const coll::CollectiveSchedule half =
      coll::generate(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple, 4, 1, 512 * MiB, o);
  CHECK(coll::RingStream(half).sends() == 1610612736u);
}
