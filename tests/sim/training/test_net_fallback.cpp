// NCCL's silent fallback to sockets when a VM's RDMA port is not usable (topologies/nccl_net_choice.cpp), end to end:
// the data path it takes, what the report says, and the invariants the issue "network paths NCCL really takes" asks
// for (an unmapped port is never faster than a mapped one; a faster NIC never slows the fallback's iteration).
#include <catch2/catch.hpp>

#include "common.hpp"
#include "vgsim/sim/communicator.hpp"

using namespace vgsim;
using namespace vgsim::sim::training;

namespace {

// The seed job (workloads/scenarios/seed_resnet50.json): ResNet-50, batch 1024 per GPU, AMP, Horovod; GDR level PHB
// as in the -gdr scenarios (the R750xa's gpu0-NIC distance is PHB).
TrainingJob seed(const std::string& cluster, std::uint32_t nodes, bool pinned = false) {
  auto s =
      test::spec(cluster, "resnet50", nodes, 1,
                 {"framework=horovod", "precision=amp", "batch_per_gpu=1024", "compute.measured_throughput=2757.21"});
  s.nccl.gdr_level = "PHB";
  if (pinned) s.nccl.algo = "ring", s.nccl.proto = "simple";
  return resolve_job(s, test::catalog());
}

bool crosses(const topo::Cluster& c, const topo::Path& p, const std::string& resource) {
  for (auto r : p.resources)
    if (c.resources()[r].name == resource) return true;
  return false;
}

}  // namespace

TEST_CASE("an unmapped RDMA port: NET/Socket on the vmxnet3 vNIC through the vswitch, and the report says so",
          "[training][network]") {
  const TrainingJob j = seed("r750xa-vm-2x-100gbe-unmapped", 2);
  const topo::Cluster& c = *j.cluster;
  const topo::Path p = c.endpoint_path(0, 1, j.comm.path);
  // mlx5_0 is not ACTIVE -> NET/IB has no device -> NET/Socket on ens192 (vmxnet3), whose traffic crosses the
  // host's vswitch and the VM's socket threads, staged through host memory (sockets carry host memory only).
  CHECK(p.transport == topo::Transport::NetSocket);
  CHECK_FALSE(p.gdr);
  CHECK(crosses(c, p, "host0/vswitch"));
  CHECK(crosses(c, p, "host0/vm0/socket-threads"));
  const TrainingResult r = simulate_training(j);
  CHECK_THAT(r.nccl_net, Catch::StartsWith("NET/Socket on [0]ens192 (vmxnet3, 10 Gb/s as the OS reports it); "
                                           "bootstrap on ens192"));
  CHECK_THAT(r.nccl_net, Catch::Contains("mlx5_0 (port unmapped)"));
  CHECK_THAT(r.nccl_net, Catch::Contains("falls back to NET/Socket silently"));
  // The why-line names the same rule and the fix (path_reasons takes it from the net choice).
  bool why = false;
  for (const auto& w : r.transport_reasons)
    why = why || (w.find("no ACTIVE RDMA port (mlx5_0 (port unmapped))") != std::string::npos &&
                  w.find("ibdev2netdev") != std::string::npos);
  CHECK(why);
  // The mapped VF: NET/IB on mlx5_0 with GPUDirect RDMA (PHB within NCCL_NET_GDR_LEVEL=PHB).
  const TrainingJob m = seed("r750xa-vm-2x-100gbe-gdr", 2);
  CHECK(m.cluster->endpoint_path(0, 1, m.comm.path).gdr);
  CHECK_THAT(simulate_training(m).nccl_net, Catch::StartsWith("NET/IB on [0]mlx5_0; bootstrap on ens192"));
}

TEST_CASE("NCCL_IB_DISABLE in an SR-IOV VM: sockets on the fastest interface; NCCL_SOCKET_IFNAME can pick the vNIC",
          "[training][network]") {
  TrainingJob j = seed("r750xa-vm-2x-100gbe-gdr", 2);
  const topo::Cluster& c = *j.cluster;
  j.comm.path.ib_disable = true;
  // Two socket devices (ens192 at 10 Gb/s as vmxnet3 reports, the VF's ens224 at 100 Gb/s): the data path takes the
  // one NCCL believes fastest, the VF, straight to the port (no vswitch).
  topo::Path p = c.endpoint_path(0, 1, j.comm.path);
  CHECK(p.transport == topo::Transport::NetSocket);
  CHECK_FALSE(crosses(c, p, "host0/vswitch"));
  std::vector<topo::NetInterface> ifs;
  const topo::NetChoice ch = c.nccl_net(0, j.comm.path, &ifs);
  REQUIRE(ch.devices.size() == 2);
  CHECK(ifs[ch.devices[0]].name == "ens192");
  CHECK(ifs[ch.devices[1]].name == "ens224");
  // NCCL_SOCKET_IFNAME=ens192 leaves the vNIC alone: through the vswitch.
  j.comm.path.socket_ifname = "ens192";
  p = c.endpoint_path(0, 1, j.comm.path);
  CHECK(crosses(c, p, "host0/vswitch"));
  // NCCL_NET=Socket is the same choice as NCCL_IB_DISABLE=1.
  TrainingJob k = seed("r750xa-vm-2x-100gbe-gdr", 2);
  k.comm.path.net = "Socket";
  CHECK(k.cluster->endpoint_path(0, 1, k.comm.path).transport == topo::Transport::NetSocket);
  // On bare metal too: Cluster::path honours NCCL_NET=Socket as it does NCCL_IB_DISABLE.
  topo::PathOptions o;
  o.net = "Socket";
  const TrainingJob b = seed("r750xa-2x-100gbe", 2);
  CHECK(b.cluster->path(0, b.cluster->hosts()[1].gpus[0], o).transport == topo::Transport::NetSocket);
}

TEST_CASE("an unmapped port is never faster than a mapped one; a faster NIC never slows the fallback",
          "[training][network]") {
  // Expectation: the unmapped VM's route crosses every resource class the mapped VF's GDR route is spared (host
  // memory, socket threads, vswitch) at the same or lower capacities, so T_iter(unmapped) >= T_iter(mapped); and with
  // the plan pinned (Ring / Simple, see test_network_sensitivity.cpp for why NCCL's own choice must be pinned over
  // sockets) T_iter(100 GbE) <= T_iter(25 GbE). 1 ps tolerance for rounding.
  for (std::uint32_t nodes : {2u, 4u}) {
    Time slow_t{0};
    for (const char* speed : {"25gbe", "100gbe"}) {
      const std::string pre = "r750xa-vm-" + std::to_string(nodes) + "x-" + speed;
      const Time mapped = simulate_training(seed(pre + "-gdr", nodes)).iteration_time;
      const Time unmapped = simulate_training(seed(pre + "-unmapped", nodes)).iteration_time;
      INFO(pre << ": mapped " << mapped.us() << " us, unmapped " << unmapped.us() << " us");
      CHECK(unmapped.ps + 1 >= mapped.ps);
      const Time pinned = simulate_training(seed(pre + "-unmapped", nodes, true)).iteration_time;
      if (std::string(speed) == "25gbe")
        slow_t = pinned;
      else
        CHECK(pinned.ps <= slow_t.ps + 1);
    }
  }
}
