// NCCL's net transport and interface choice (topologies/nccl_net_choice.cpp): each expectation is the rule of the
// public NVIDIA/nccl source the module cites (socket.cc ncclFindInterfaces, net_ib.cc port scan, net.cc fallback,
// net_socket.cc thread defaults), applied by hand to the listed interface layout.
#include <catch2/catch.hpp>

#include "vgsim/topologies/nccl_net_choice.hpp"

using namespace vgsim::topo;

namespace {

NetInterface iface(const std::string& name, const std::string& kind = "ethernet", bool addr = true, double gbps = 100.0,
                   const std::string& vendor = "generic") {
  return NetInterface{name, kind, addr, gbps, vendor};
}

std::vector<std::string> device_names(const NetChoice& c, const std::vector<NetInterface>& ifs) {
  std::vector<std::string> out;
  for (auto i : c.devices) out.push_back(ifs[i].name);
  return out;
}

bool any_rule_has(const NetChoice& c, const std::string& needle) {
  for (const auto& r : c.rules)
    if (r.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a mapped SR-IOV function: NET/IB on its active port, bootstrap on the first interface") {
  // Guest: vmxnet3 ens192 (10 Gb/s as vmxnet3 reports) then the VF's netdev ens224; mlx5_0 ACTIVE.
  const std::vector<NetInterface> ifs{iface("ens192", "vmxnet3", true, 10), iface("ens224", "vf")};
  const std::vector<RdmaPort> ports{{"mlx5_0", RdmaPortState::Active}};
  const NetChoice c = choose_nccl_net(ifs, ports, {});
  CHECK(c.transport == NetKind::IB);
  CHECK(c.devices == std::vector<std::uint32_t>{0});
  // Bootstrap takes the first interface ncclFindInterfaces returns: no ib*, so all but docker/lo: ens192 first.
  REQUIRE(c.bootstrap);
  CHECK(ifs[*c.bootstrap].name == "ens192");
  CHECK(describe(c, ifs, ports) == "NET/IB on [0]mlx5_0; bootstrap on ens192");
}

TEST_CASE("an unmapped RDMA port: silent fallback to NET/Socket on the vmxnet3 vNIC, believed 10 Gb/s") {
  // mlx5_0 is not ACTIVE, so NET/IB has 0 devices and is rejected; the VF netdev has no address, so the socket
  // transport finds ens192 alone. NCCL 2.30, a generic (VMware, 0x15ad) NIC: 0 helper threads x 1 socket.
  const std::vector<NetInterface> ifs{iface("ens192", "vmxnet3", true, 10), iface("ens224", "vf", false)};
  const std::vector<RdmaPort> ports{{"mlx5_0", RdmaPortState::Unmapped}};
  const NetChoice c = choose_nccl_net(ifs, ports, {});
  CHECK(c.transport == NetKind::Socket);
  CHECK(device_names(c, ifs) == std::vector<std::string>{"ens192"});
  CHECK(c.device_speed_gbps == std::vector<double>{10.0});
  CHECK(c.socket_threads == 0);
  CHECK(c.sockets_per_thread == 1);
  CHECK(any_rule_has(c, "falls back to NET/Socket silently"));
  CHECK(any_rule_has(c, "mlx5_0 (port unmapped)"));
}

TEST_CASE("a down port with the VF netdev addressed: two socket devices, in scan order") {
  const std::vector<NetInterface> ifs{iface("ens192", "vmxnet3", true, 10), iface("ens224", "vf", true, 100)};
  const NetChoice c = choose_nccl_net(ifs, {{"mlx5_0", RdmaPortState::Down}}, {});
  CHECK(c.transport == NetKind::Socket);
  CHECK(device_names(c, ifs) == std::vector<std::string>{"ens192", "ens224"});
  CHECK(c.device_speed_gbps == std::vector<double>{10.0, 100.0});
  CHECK(ifs[*c.bootstrap].name == "ens192");
}

TEST_CASE("ncclFindInterfaces: ib* first, then all but docker*/lo* (virbr* from 2.28), then the last resorts") {
  std::vector<std::string> rules;
  NetChoiceKnobs k;
  const std::vector<NetInterface> with_ib{iface("eno1"), iface("ib0"), iface("ib1")};
  CHECK(nccl_find_interfaces(with_ib, k, rules) == std::vector<std::uint32_t>{1, 2});
  const std::vector<NetInterface> mixed{iface("lo", "loopback"), iface("docker0"), iface("virbr0"), iface("eth0")};
  k.nccl_minor = 18;  // before 2.28.3 virbr* is an ordinary interface
  CHECK(nccl_find_interfaces(mixed, k, rules) == std::vector<std::uint32_t>{2, 3});
  k.nccl_minor = 30;
  CHECK(nccl_find_interfaces(mixed, k, rules) == std::vector<std::uint32_t>{3});
  const std::vector<NetInterface> only_lo_docker{iface("lo", "loopback"), iface("docker0")};
  CHECK(nccl_find_interfaces(only_lo_docker, k, rules) == std::vector<std::uint32_t>{1});  // docker* before lo
  const std::vector<NetInterface> no_address{iface("eth0", "ethernet", false), iface("eth1")};
  CHECK(nccl_find_interfaces(no_address, k, rules) == std::vector<std::uint32_t>{1});
  // At most 16 interfaces (MAX_IFS), one per name.
  std::vector<NetInterface> many;
  for (int i = 0; i < 20; ++i) many.push_back(iface("eth" + std::to_string(i)));
  many.push_back(iface("eth0"));
  CHECK(nccl_find_interfaces(many, k, rules).size() == 16);
}

TEST_CASE("NCCL_SOCKET_IFNAME: prefixes, '^' excludes, '=' matches exactly") {
  std::vector<std::string> rules;
  const std::vector<NetInterface> ifs{iface("ens192"), iface("ens224"), iface("eth0"), iface("eth10")};
  NetChoiceKnobs k;
  k.socket_ifname = "^ens224";
  CHECK(nccl_find_interfaces(ifs, k, rules) == std::vector<std::uint32_t>{0, 2, 3});
  k.socket_ifname = "eth";
  CHECK(nccl_find_interfaces(ifs, k, rules) == std::vector<std::uint32_t>{2, 3});
  k.socket_ifname = "=eth1";  // exact: eth10 does not match
  CHECK(nccl_find_interfaces(ifs, k, rules).empty());
  k.socket_ifname = "ens224,eth0:1234";  // a port suffix does not change the match
  CHECK(nccl_find_interfaces(ifs, k, rules) == std::vector<std::uint32_t>{1, 2});
}

TEST_CASE("NCCL_IB_DISABLE and NCCL_NET decide before the ports do; a forced transport without devices fails") {
  const std::vector<NetInterface> ifs{iface("ens192", "vmxnet3", true, 10)};
  NetChoiceKnobs k;
  k.ib_disable = true;
  CHECK(choose_nccl_net(ifs, {{"mlx5_0", RdmaPortState::Active}}, k).transport == NetKind::Socket);
  k = {};
  k.net = "socket";  // NCCL compares NCCL_NET case-insensitively
  CHECK(choose_nccl_net(ifs, {{"mlx5_0", RdmaPortState::Active}}, k).transport == NetKind::Socket);
  k.net = "IB";
  CHECK_THROWS_WITH(choose_nccl_net(ifs, {{"mlx5_0", RdmaPortState::Down}}, k),
                    Catch::Contains("NCCL_NET=IB but no RDMA port is ACTIVE"));
  k.net = "UCX";
  CHECK_THROWS_WITH(choose_nccl_net(ifs, {}, k), Catch::Contains("names no transport"));
  CHECK_THROWS_WITH(choose_nccl_net({iface("eth0", "ethernet", false)}, {}, {}),
                    Catch::Contains("NCCL would fail to initialise"));
}

TEST_CASE("socket threads x sockets per thread by NCCL version and NIC vendor") {
  auto threads = [](const std::string& vendor, int minor, int nt = -2, int ns = -2) {
    NetChoiceKnobs k;
    k.nccl_minor = minor;
    k.socket_nthreads = nt;
    k.nsocks_perthread = ns;
    const NetChoice c = choose_nccl_net({iface("eth0", "ethernet", true, 100, vendor)}, {}, k);
    return std::make_pair(c.socket_threads, c.sockets_per_thread);
  };
  // net_socket.cc: 2.4.8 generic 1 x 1, AWS 2 x 8; from 2.5.6 generic 0 x 1, AWS 2 x 8, GCP 4 x 1.
  CHECK(threads("generic", 4) == std::make_pair(1, 1));
  CHECK(threads("aws", 4) == std::make_pair(2, 8));
  CHECK(threads("gcp", 4) == std::make_pair(1, 1));
  CHECK(threads("generic", 30) == std::make_pair(0, 1));
  CHECK(threads("aws", 18) == std::make_pair(2, 8));
  CHECK(threads("gcp", 30) == std::make_pair(4, 1));
  // The environment wins; at most 16 threads and 64 sockets in all (16 x 8 -> 16 x 4).
  CHECK(threads("generic", 30, 4, 1) == std::make_pair(4, 1));
  CHECK(threads("generic", 30, 32, 8) == std::make_pair(16, 4));
}

TEST_CASE("an unreadable interface speed is taken as 10 Gb/s") {
  const NetChoice c = choose_nccl_net({iface("eth0", "ethernet", true, 0)}, {}, {});
  CHECK(c.device_speed_gbps == std::vector<double>{10.0});
  CHECK_THROWS_AS(parse_rdma_port_state("up"), std::invalid_argument);
}
