// Communicator: placement, NCCL-like selection, transports seen on the presets, bad requests.
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"

using namespace vgsim;

namespace {
const topo::Catalog& catalog() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}
}  // namespace

TEST_CASE("placement is node-major and refuses clusters that are too small") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-2x-100gbe", catalog());
  const auto ranks = sim::place_ranks(cluster, 2, 2);
  REQUIRE(ranks.size() == 4);
  CHECK(cluster.gpus()[ranks[0]].host == 0);
  CHECK(cluster.gpus()[ranks[1]].host == 0);
  CHECK(cluster.gpus()[ranks[2]].host == 1);
  CHECK_THROWS_AS(sim::place_ranks(cluster, 3, 1), InputError);  // 2 hosts only
  CHECK_THROWS_AS(sim::place_ranks(cluster, 1, 5), InputError);  // 4 GPUs per host
  try {
    sim::place_ranks(cluster, 3, 1);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("--nodes") != std::string::npos);
    CHECK(std::string(e.what()).find("got 3") != std::string::npos);
  }
}

TEST_CASE("NCCL's argmin picks a low-latency protocol for tiny messages and Simple for large ones") {
  const topo::Cluster cluster = topo::Cluster::resolve("dgx-a100", catalog());
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 1, 8), {});
  // 8 B: LL's base + hop latency (6.6 + 14 x 0.6 = 15 us) beats Simple's (8.4 + 14 x 3.4 = 56 us).
  CHECK(comm.plan(coll::Op::AllReduce, 8).proto == coll::Proto::LL);
  // 1 GiB: bandwidth dominates; LL halves it and LL128 is capped per channel, so Simple wins.
  CHECK(comm.plan(coll::Op::AllReduce, GiB).proto == coll::Proto::Simple);
}

TEST_CASE("forced algorithm and protocol are honoured; tree is refused for non-allreduce") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::CommOptions opt;
  opt.algo = coll::Algo::Tree;
  opt.proto = coll::Proto::LL128;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 4, 1), opt);
  const auto p = comm.plan(coll::Op::AllReduce, MiB);
  CHECK(p.algo == coll::Algo::Tree);
  CHECK(p.proto == coll::Proto::LL128);
  CHECK(p.channels % 2 == 0);  // NCCL's double binary tree uses channels in pairs
  CHECK_THROWS_AS(comm.plan(coll::Op::AllGather, MiB), InputError);
}

TEST_CASE("transports follow the preset's NCCL distances") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-2x-100gbe", catalog());
  // gpu0 of each host: PHB to the NIC, so at NCCL's default GDR level (PXB) traffic is host-staged;
  // at GDR level PHB it is GPUDirect RDMA; with ib_disable it is TCP sockets.
  sim::CommOptions staged;
  CHECK(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), staged).describe_transports().find("host-staged") !=
        std::string::npos);
  sim::CommOptions gdr;
  gdr.path.gdr_level = topo::PathType::PHB;
  CHECK(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), gdr).describe_transports().find("GPUDirect") !=
        std::string::npos);
  sim::CommOptions tcp;
  tcp.path.ib_disable = true;
  CHECK(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), tcp).describe_transports().find("NetSocket") !=
        std::string::npos);
}

TEST_CASE("transport reasons: the communicator asks path_reasons about its ring routes, each line once") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-2x-100gbe", catalog());
  // 2 nodes x 1 GPU (gpu0 of each host): one NET route each way, both PHB from the NIC (ncclTopoCheckGdr: PHB >
  // NCCL_NET_GDR_LEVEL's default PXB), so one line; at GDR level PHB none; with ib_disable the sockets line instead.
  sim::CommOptions staged;
  const auto lines = sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), staged).transport_reasons();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("why: GPUDirect RDMA not in use: GPU-NIC distance PHB", 0) == 0);
  sim::CommOptions gdr;
  gdr.path.gdr_level = topo::PathType::PHB;
  CHECK(sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), gdr).transport_reasons().empty());
  sim::CommOptions tcp;
  tcp.path.ib_disable = true;
  const auto tcp_lines = sim::Communicator(cluster, sim::place_ranks(cluster, 2, 1), tcp).transport_reasons();
  REQUIRE(tcp_lines.size() == 1);
  CHECK(tcp_lines[0].find("NCCL_IB_DISABLE=1: NET/Socket") != std::string::npos);
}

TEST_CASE("GPUDirect on is never slower than off, and sockets are never faster than RDMA") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::CommOptions off, on, tcp;
  on.path.gdr_level = topo::PathType::SYS;
  tcp.path.ib_disable = true;
  const auto ranks = sim::place_ranks(cluster, 4, 1);
  sim::Communicator c_off(cluster, ranks, off), c_on(cluster, ranks, on), c_tcp(cluster, ranks, tcp);
  for (Bytes s : {Bytes{1024}, 1 * MiB, 64 * MiB}) {
    const double t_on = sim::simulate_collective(c_on, coll::Op::AllReduce, s).time.us();
    const double t_off = sim::simulate_collective(c_off, coll::Op::AllReduce, s).time.us();
    const double t_tcp = sim::simulate_collective(c_tcp, coll::Op::AllReduce, s).time.us();
    CHECK(t_on <= t_off * (1 + 1e-9));
    CHECK(t_off <= t_tcp * (1 + 1e-9));
  }
}

TEST_CASE("VM transports: SR-IOV with GPUDirect = bare metal >= PVRDMA >= vmxnet3 (TCP)") {
  // Same 4 R750xa hosts, one GPU per host (per VM). Expectation from the transports' routes: PVRDMA is host-staged
  // and adds a per-message latency, vmxnet3 goes through the socket-thread resource (5 GB/s < 12.5 GB/s line rate),
  // SR-IOV with ATS and GDR at PHB is the bare-metal route. So time(bare) <= time(sriov) <= time(pvrdma) < time(tcp).
  sim::CommOptions opt;
  opt.path.gdr_level = topo::PathType::PHB;
  auto time_on = [&](const char* preset) {
    const topo::Cluster c = topo::Cluster::resolve(preset, catalog());
    sim::Communicator comm(c, sim::place_ranks(c, 4, 1), opt);
    return sim::simulate_collective(comm, coll::Op::AllReduce, 64 * MiB).time.us();
  };
  const double bare = time_on("r750xa-4x-100gbe"), sriov = time_on("r750xa-vm-4x-100gbe-gdr"),
               pvrdma = time_on("r750xa-vm-4x-100gbe-pvrdma"), tcp = time_on("r750xa-vm-4x-100gbe-vmxnet3");
  CHECK(bare <= sriov * (1 + 1e-12));
  CHECK(sriov <= pvrdma);
  CHECK(pvrdma < tcp);
  // TCP is bound by the socket threads: 2(n-1)/n x 64 MiB / 5 GB/s = 20.1 ms at least.
  CHECK(tcp >= 1.5 * 64 * MiB / 5e9 * 1e6);
}
