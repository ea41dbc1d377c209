// A one-rank communicator runs NCCL's device-local copy (sim/one_rank_copy.hpp): every collective is a launch
// latency plus the bytes at half the GPU's memory bandwidth, on the engine and in the plan; a MIG instance copies at
// its memory slices' share.
#include <catch2/catch.hpp>

#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/one_rank_copy.hpp"

using namespace vgsim;

namespace {
const topo::Catalog& catalog() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}
}  // namespace

TEST_CASE("a one-rank collective is a device-local copy: 6 us + bytes / (memory bandwidth / 2)") {
  // dgx-a100: A100-SXM4-80GB, 2,039 GB/s HBM2e (topologies/catalog/gpus.json): a copy moves 1,019.5 GB/s.
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog());
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 1, 1), {});
  const Bytes size = 128 * MiB;
  // 134,217,728 B / 1.0195e12 B/s = 131.650 us, + 6 us launch = 137.650 us.
  const double expected_us = 6.0 + 134217728.0 / (2039e9 / 2) * 1e6;
  for (coll::Op op : {coll::Op::AllReduce, coll::Op::AllGather, coll::Op::ReduceScatter, coll::Op::Broadcast,
                      coll::Op::Reduce, coll::Op::AllToAll, coll::Op::SendRecv}) {
    const sim::CollectiveResult r = sim::simulate_collective(comm, op, size);
    CHECK(r.time.ps == 137650542);  // 6,000,000 ps + 131,650,542.4 ps rounded to the picosecond
    CHECK(r.time.us() == Approx(expected_us).epsilon(1e-8));
    // NCCL's table for nRanks == 1: Ring/Simple at cost 0, one copy and no step transfer.
    CHECK(r.plan.algo == coll::Algo::Ring);
    CHECK(r.plan.proto == coll::Proto::Simple);
    CHECK(r.plan.model_time_us == 0.0);
    CHECK(r.plan.schedule->transfers.empty());
    CHECK(r.flows == 0);
  }
  // 8 B: the launch latency alone, to the picosecond rounding (8 B / 1.0195e12 B/s = 7.8 ps).
  CHECK(sim::simulate_collective(comm, coll::Op::AllReduce, 8).time.ps == 6000000 + 8);
  // Forcing an algorithm or protocol changes nothing: NCCL never consults them for one rank.
  sim::CommOptions forced;
  forced.algo = coll::Algo::Tree, forced.proto = coll::Proto::LL;
  sim::Communicator tree(cluster, sim::place_ranks(cluster, 1, 1), forced);
  CHECK(sim::simulate_collective(tree, coll::Op::AllReduce, size).time ==
        sim::simulate_collective(comm, coll::Op::AllReduce, size).time);
}

TEST_CASE("a MIG instance copies at its memory slices' share of the bandwidth") {
  // r750xa-vm-mig-2x3g: A100 PCIe 80GB (1,935 GB/s), 3g.40gb instances own 4 of 8 memory slices:
  // 1,935e9 x 4/8 / 2 = 483.75 GB/s.
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-vm-mig-2x3g", catalog());
  const auto instances = sim::os_instances(cluster);
  REQUIRE(!instances.empty());
  const topo::GpuEndpoint& ep = cluster.endpoints()[instances[0][0]];
  REQUIRE(ep.mode == "mig");
  CHECK(sim::one_rank_copy_bytes_per_s(cluster.gpu_model(ep.gpu), ep) == Approx(1935e9 * 4 / 8 / 2));
  sim::Communicator comm(cluster, {instances[0][0]}, {});
  CHECK(sim::simulate_collective(comm, coll::Op::AllReduce, 64 * MiB).time.us() ==
        Approx(6.0 + 67108864.0 / 483.75e9 * 1e6).epsilon(1e-8));
}
