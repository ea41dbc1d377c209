// Collectives on the engine: the ring closed form without contention, sharing a NIC between two collectives,
// channels until the link saturates, determinism.
#include <algorithm>
#include <catch2/catch.hpp>

#include "test_clusters.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/generators.hpp"

using namespace vgsim;

namespace {
using vgsim::test::catalog;

double simulate(const sim::Communicator& c, coll::Op op, Bytes size) {
  return sim::simulate_collective(c, op, size).time.us();
}
}  // namespace

TEST_CASE("ring allreduce matches the closed form 2t + (2(n-1)-1) max(2t, alpha + t) + alpha without contention") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::CommOptions opt;
  opt.algo = coll::Algo::Ring;
  opt.proto = coll::Proto::Simple;
  opt.channels = 1;
  opt.path.gdr_level = topo::PathType::SYS;  // GPUDirect on every GPU
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 4, 1), opt);
  const std::uint32_t n = 4;
  // S = 8 MiB: S/n = 2 MiB = one Simple ring chunk, so one loop of 2(n-1) steps, each chunk sent as 2 slices of
  // t = S/(2nB). Slice 0 of step j waits for slice 0 of step j-1 (alpha + t after that step began) and for slice 1
  // of step j-1 on its own connection: after the first step (2t), every step takes max(2t, alpha + t); the last
  // slice is delivered alpha later.
  const Bytes S = 8 * MiB;
  const sim::CallPlan plan = comm.plan(coll::Op::AllReduce, S);
  REQUIRE(plan.schedule->loops == 1);
  // alpha = NCCL NET hop latency (with post overhead) + wire/switch/PCIe latency of the route;
  // B = min(route bottleneck, per-flow cap). Every ring hop here is host i -> host i+1 over identical routes.
  Simulator scratch;
  sim::Fabric fabric(cluster, scratch, opt.path);
  const sim::Route& r = fabric.route(comm.rank_to_endpoint()[0], comm.rank_to_endpoint()[1]);
  REQUIRE(r.gdr);
  const double alpha_us = (plan.costs.hop_latency[static_cast<int>(r.link_class)] + r.latency).us();
  const double B = std::min(r.bottleneck.bytes_per_s, plan.costs.max_rate_per_flow);
  const double t_us = S / (2.0 * n * B) * 1e6;
  const double expected_us =
      plan.costs.base_latency.us() + 2 * t_us + (2.0 * (n - 1) - 1) * std::max(2 * t_us, alpha_us + t_us) + alpha_us;
  const double got_us = simulate(comm, coll::Op::AllReduce, S);
  CHECK(got_us == Approx(expected_us).epsilon(0.01));
}

TEST_CASE("consecutive sends on a connection overlap their latencies (NCCL_STEPS slots in flight)") {
  // Two hosts x 1 GPU, sendrecv r -> r+1 (both directions, disjoint resources), one channel, S = 64 MiB in
  // loops = S / chunk chunks (512 KiB). Sends on a connection only wait for the previous one's bytes to leave, and
  // the latency of each is charged after its bytes, so the call takes base + S/B + alpha; a model that waited for
  // each chunk's delivery before the next would take base + loops x (alpha + chunk/B).
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::CommOptions opt;
  opt.algo = coll::Algo::Ring;
  opt.proto = coll::Proto::Simple;
  opt.channels = 1;
  opt.path.gdr_level = topo::PathType::SYS;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 2, 1), opt);
  const Bytes S = 64 * MiB;
  const sim::CallPlan plan = comm.plan(coll::Op::SendRecv, S);
  REQUIRE(plan.schedule->loops >= 64);
  Simulator scratch;
  sim::Fabric fabric(cluster, scratch, opt.path);
  const sim::Route& r = fabric.route(comm.rank_to_endpoint()[0], comm.rank_to_endpoint()[1]);
  const double alpha_us = (plan.costs.hop_latency[static_cast<int>(r.link_class)] + r.latency).us();
  REQUIRE(alpha_us > 10.0);  // NCCL NET Simple hop latency 14 us (tuning.cc): large enough to matter
  const double B = std::min(r.bottleneck.bytes_per_s, plan.costs.max_rate_per_flow);
  const double pipelined_us = plan.costs.base_latency.us() + S / B * 1e6 + alpha_us;
  const double serial_us =
      plan.costs.base_latency.us() + plan.schedule->loops * (alpha_us + plan.schedule->chunk_bytes / B * 1e6);
  const double got_us = simulate(comm, coll::Op::SendRecv, S);
  CHECK(got_us == Approx(pipelined_us).epsilon(0.01));
  CHECK(got_us < 0.85 * serial_us);  // 128 x 14 us of latency would be ~25 % of the time here
}

TEST_CASE("the per-call launch overhead is charged exactly once") {
  // StepCosts::launch_overhead is added to the start of the first step, like the base latency: t(L) - t(0) = L for
  // any size (here 1 KiB, latency-bound, and 64 MiB, bandwidth-bound with 32 chunks per channel).
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog());
  sim::CommOptions opt;
  sim::CommOptions with = opt;
  with.launch_overhead = us(50.0);
  sim::Communicator a(cluster, sim::place_ranks(cluster, 1, 8), opt), b(cluster, sim::place_ranks(cluster, 1, 8), with);
  for (Bytes S : {Bytes{1024}, Bytes{64} * MiB}) {
    const Time t0 = sim::simulate_collective(a, coll::Op::AllReduce, S).time;
    const Time t1 = sim::simulate_collective(b, coll::Op::AllReduce, S).time;
    CHECK((t1 - t0).ps == us(50.0).ps);
  }
}

TEST_CASE("two collectives sharing a NIC get half of it each") {
  const topo::Cluster cluster =
      topo::Cluster::from_json(Json::parse(vgsim::test::kTwoHostsTwoGpusOneNic), "inline", catalog());
  sim::CommOptions opt;
  opt.algo = coll::Algo::Ring;
  opt.proto = coll::Proto::Simple;
  opt.channels = 2;
  // Communicator A: gpu0 of each host; B: gpu1 of each host. Both cross the hosts' single NIC port.
  const auto& h = cluster.hosts();
  sim::Communicator a(cluster, {h[0].gpus[0], h[1].gpus[0]}, opt);
  sim::Communicator b(cluster, {h[0].gpus[1], h[1].gpus[1]}, opt);
  const Bytes S = 256 * MiB;  // bandwidth-bound: latency is < 0.1 % of the time
  const double alone_us = simulate(a, coll::Op::AllReduce, S);

  Simulator sim;
  sim::Fabric fabric(cluster, sim, opt.path);
  const sim::CallPlan pa = a.plan(coll::Op::AllReduce, S), pb = b.plan(coll::Op::AllReduce, S);
  sim::CollectiveRun ra(*pa.schedule, pa.channel_gpus, pa.costs, fabric);
  sim::CollectiveRun rb(*pb.schedule, pb.channel_gpus, pb.costs, fabric);
  ra.start();
  rb.start();
  sim.run();
  // Each gets half of the NIC: a ring allreduce on n = 2 pushes W = 2(n-1)/n x S = S bytes through each NIC port,
  // so with half of B = 12.5 GB/s each run needs at least W / (B/2). Sharing also fills the pipeline bubbles a run
  // leaves alone (slots x chunk in flight), so each lands within 3 % above that bound rather than at 2x alone.
  const double B = cluster.resources()[*cluster.find_resource("host0/nic0/port0/tx")].capacity.bytes_per_s;
  const double half_bound_us = S / (B / 2) * 1e6;
  const double ta = (ra.finish_time() - ra.start_time()).us(), tb = (rb.finish_time() - rb.start_time()).us();
  CHECK(ta >= half_bound_us * (1 - 1e-9));
  CHECK(tb >= half_bound_us * (1 - 1e-9));
  CHECK(ta == Approx(half_bound_us).epsilon(0.03));
  CHECK(tb == Approx(half_bound_us).epsilon(0.03));
  CHECK(ta == Approx(tb).epsilon(0.02));  // fair: neither starves
  CHECK(ta > 1.9 * alone_us);             // and sharing really costs: about twice the time alone
  // The NIC port carried both collectives' bytes: 2 x (2(n-1)/n x S) = 2 x S for n = 2.
  const auto tx = cluster.find_resource("host0/nic0/port0/tx");
  REQUIRE(tx);
  CHECK(sim.resource_stats(*tx).bytes_carried == Approx(2.0 * S));
}

TEST_CASE("more channels help until the link saturates") {
  // 8 A100 SXM on NVSwitch: one channel is capped at the 40 GB/s top rung of NCCL's search ladder, the NVLink port
  // carries 300 GB/s per direction (catalog), so busbw grows with channels up to ~300/40 = 7.5 channels, then stays.
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog());
  const Bytes S = 1 * GiB;
  std::vector<double> busbw;
  for (std::uint32_t ch : {1u, 2u, 4u, 8u, 16u}) {
    sim::CommOptions opt;
    opt.algo = coll::Algo::Ring;
    opt.proto = coll::Proto::Simple;
    opt.channels = ch;
    sim::Communicator comm(cluster, sim::place_ranks(cluster, 1, 8), opt);
    const double t_us = simulate(comm, coll::Op::AllReduce, S);
    busbw.push_back(coll::algbw_GBps(S, t_us) * coll::busbw_factor(coll::Op::AllReduce, 8));
  }
  CHECK(busbw[1] > 1.9 * busbw[0]);  // 1 -> 2 channels: doubles (cap-bound)
  CHECK(busbw[2] > 1.9 * busbw[1]);  // 2 -> 4: doubles
  CHECK(busbw[3] > 1.4 * busbw[2]);  // 4 -> 8: 160 -> min(320, 300) GB/s: +87 % at most, > +40 %
  // 8 -> 16: the link is saturated; the only gain left is filling pipeline bubbles (< 5 %).
  CHECK(busbw[4] >= busbw[3]);
  CHECK(busbw[4] < 1.05 * busbw[3]);
  CHECK(busbw[4] <= 300.0 * 1.001);  // never above the link
}

TEST_CASE("same inputs give identical simulated times") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-2x-100gbe", catalog());
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 2, 4), {});
  const auto a = sim::simulate_collective(comm, coll::Op::AllReduce, 64 * MiB);
  const auto b = sim::simulate_collective(comm, coll::Op::AllReduce, 64 * MiB);
  CHECK(a.time.ps == b.time.ps);
  CHECK(a.events == b.events);
}
