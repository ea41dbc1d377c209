// alltoall on the engine: the p2p plan the communicator derives (channels, channels per peer, chunk, GPUs not
// rotated), 2 nodes x 1 GPU against a sendrecv of half the size, and the NIC bound on a single-NIC-per-node cluster.
#include <catch2/catch.hpp>
#include <set>

#include "test_clusters.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"
#include "vgsim/workloads/collectives/validate.hpp"

using namespace vgsim;

namespace {
using vgsim::test::catalog;
}  // namespace

TEST_CASE("alltoall plan: NCCL's p2p channels, per-peer channels, NET chunk, GPUs not rotated") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 4, 1), {});
  const sim::Communicator::P2pGeometry g = comm.p2p_geometry();
  // p2pnChannels = pow2Up(nChannels); a remote peer caps channels per peer at NCCL_NCHANNELS_PER_NET_PEER = 2.
  std::uint32_t pow2 = 1;
  while (pow2 < comm.shape().channels) pow2 <<= 1;
  CHECK(g.channels == pow2);
  CHECK(g.channels_per_peer == std::min<std::uint32_t>(2, g.channels));
  CHECK(g.chunk_bytes == 128 * KiB);  // NCCL_P2P_NET_CHUNKSIZE on several nodes
  const sim::CallPlan plan = comm.plan(coll::Op::AllToAll, 4 * MiB);
  CHECK(plan.algo == coll::Algo::Ring);
  CHECK(plan.proto == coll::Proto::Simple);
  CHECK(plan.channels == g.channels);
  CHECK(coll::validate(*plan.schedule).empty());
  for (const auto& map : plan.channel_gpus) CHECK(map == comm.rank_to_endpoint());
  // NCCL_ALGO / NCCL_PROTO do not steer p2p: forcing another is an input error, not a silent change.
  sim::CommOptions tree;
  tree.algo = coll::Algo::Tree;
  CHECK_THROWS_AS(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), tree).plan(coll::Op::AllToAll, MiB),
                  InputError);
  sim::CommOptions ll;
  ll.proto = coll::Proto::LL;
  CHECK_THROWS_WITH(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), ll).plan(coll::Op::AllToAll, MiB),
                    Catch::Contains("Simple"));
  sim::CommOptions bad;
  bad.nccl.set("nccl.p2p.net_channels_per_peer", 3);
  CHECK_THROWS_WITH(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), bad).plan(coll::Op::AllToAll, MiB),
                    Catch::Contains("nccl.p2p.net_channels_per_peer"));
}

TEST_CASE("alltoall on 2 nodes x 1 GPU takes the time of a sendrecv of half the size") {
  // n = 2: rank 0 sends its block 1 (S/2) to rank 1 and rank 1 its block 0 (S/2) to rank 0; a sendrecv of S/2 on
  // the same two ranks moves S/2 each way over the same routes. Both are bandwidth-bound by the NIC:
  //   t ~ base + (S/2) / B + alpha   (B = the route's bottleneck, alpha = NET hop + route latency),
  // so t_alltoall(S) ~ t_sendrecv(S/2); they differ only in chunking (p2p NET chunk 128 KiB vs sendrecv's 512 KiB)
  // and channels (2 parts per peer vs the ring channels), i.e. by less than 2 % at 64 MiB.
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::CommOptions opt;
  opt.path.gdr_level = topo::PathType::SYS;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 2, 1), opt);
  const Bytes S = 64 * MiB;
  const double a2a_us = sim::simulate_collective(comm, coll::Op::AllToAll, S).time.us();
  const double sr_us = sim::simulate_collective(comm, coll::Op::SendRecv, S / 2).time.us();
  CHECK(a2a_us == Approx(sr_us).epsilon(0.02));
  Simulator scratch;
  sim::Fabric fabric(cluster, scratch, opt.path);
  const sim::Route& r = fabric.route(comm.rank_to_endpoint()[0], comm.rank_to_endpoint()[1]);
  const double wire_us = static_cast<double>(S / 2) / r.bottleneck.bytes_per_s * 1e6;
  CHECK(a2a_us >= wire_us);
  CHECK(a2a_us == Approx(wire_us).epsilon(0.05));
  // nccl-tests' busbw for the same run: algbw x (n-1)/n = algbw / 2.
  CHECK(coll::busbw_factor(coll::Op::AllToAll, 2) == Approx(0.5));
}

TEST_CASE("alltoall with one NIC per node: the bytes crossing the NIC bound the time") {
  const topo::Cluster cluster =
      topo::Cluster::from_json(Json::parse(vgsim::test::kTwoHostsTwoGpusOneNic), "inline", catalog());
  sim::CommOptions opt;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 2, 2), opt);
  const std::uint32_t n = 4, L = 2;
  const Bytes S = 128 * MiB;
  // Each of a node's L GPUs sends S/n to each of the n - L GPUs of the other node: L (n - L) S / n = S bytes leave
  // every node through its one NIC port (and as many arrive), at most its line rate.
  const double nic_bytes = static_cast<double>(L) * (n - L) * static_cast<double>(S) / n;
  const double line_rate = cluster.nics()[cluster.hosts()[0].nics[0]].speed.bytes_per_s;
  REQUIRE(line_rate == Approx(100e9 / 8));
  const double bound_us = nic_bytes / line_rate * 1e6;
  const double t_us = sim::simulate_collective(comm, coll::Op::AllToAll, S).time.us();
  CHECK(t_us >= bound_us * 0.999);
  // The NIC is the bottleneck (PCIe Gen4 carries 3S/4 per GPU at ~2x the NIC's rate): within 10 % of the bound.
  CHECK(t_us <= bound_us * 1.10);
}
