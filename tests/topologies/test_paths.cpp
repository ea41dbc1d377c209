// path(): NCCL transport and path type, route resources, capacities and latency on the presets and on a small inline
// cluster with PCIe switches. Expected routes are written out from the layout each preset documents.
#include <catch2/catch.hpp>

#include "default_catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

using namespace vgsim;
using namespace vgsim::topo;

using vgsim::topo::test::cat;

namespace {
std::vector<std::string> names(const Cluster& c, const Path& p) {
  std::vector<std::string> out;
  for (auto r : p.resources) out.push_back(c.resources()[r].name);
  return out;
}
std::uint32_t gpu(const Cluster& c, const std::string& n) {
  auto g = c.find_gpu(n);
  REQUIRE(g.has_value());
  return *g;
}
// PCIe Gen4 x16 link: 16 GT/s x 128/130 / 8 x 16 lanes x efficiency 0.80 (catalog pcie.gen4).
const double kGen4x16 = 16e9 * 128.0 / 130.0 / 8.0 * 16 * 0.80;
}  // namespace

TEST_CASE("R750xa: bridged pair is NVL over the bridge", "[paths][r750xa]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  const Path p = c.path(gpu(c, "host0/gpu0"), gpu(c, "host0/gpu1"), PathOptions{});
  CHECK(p.transport == Transport::P2P);
  CHECK(p.type == PathType::NVL);
  CHECK(p.link_class == LinkClass::NVLink);
  CHECK(names(c, p) == std::vector<std::string>{"host0/gpu0->gpu1/nvlink"});
  // 12 links x 20 GB/s per direction: NCCL topo.h SM80_NVLINK_BW (catalog nccl_per_link; datasheet 25 GB/s).
  CHECK(p.bottleneck.bytes_per_s == Approx(240e9));
  // One NVLink hop: the catalog's 0.1 us (assumption).
  CHECK(p.latency == us(0.1));
  // The reverse direction uses the other directed resource.
  CHECK(names(c, c.path(gpu(c, "host0/gpu1"), gpu(c, "host0/gpu0"), PathOptions{})) ==
        std::vector<std::string>{"host0/gpu1->gpu0/nvlink"});
}

TEST_CASE("R750xa: across sockets is SYS, SHM at the default P2P level, P2P at SYS", "[paths][r750xa]") {
  const Cluster c = Cluster::resolve("r750xa-1x-100gbe", cat());
  const auto a = gpu(c, "host0/gpu0"), b = gpu(c, "host0/gpu2");
  const Path shm = c.path(a, b, PathOptions{});
  CHECK(shm.type == PathType::SYS);
  CHECK(shm.transport == Transport::SHM);
  CHECK(shm.link_class == LinkClass::PCIe);
  CHECK(names(c, shm) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory",
                                                  "host0/socket0->socket1", "host0/gpu2/pcie-down"});
  // Bottleneck = the Gen4 x16 link (25.2 GB/s) < UPI 67.2 < memory 204.8 GB/s.
  CHECK(shm.bottleneck.bytes_per_s == Approx(kGen4x16));
  // Latency: 2 PCIe hops x 0.15 us + one UPI hop 0.1 us = 0.4 us.
  CHECK(shm.latency == us(0.4));

  PathOptions sys;
  sys.p2p_level = PathType::SYS;
  const Path p2p = c.path(a, b, sys);
  CHECK(p2p.transport == Transport::P2P);
  CHECK(p2p.type == PathType::SYS);
  CHECK(names(c, p2p) ==
        std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0->socket1", "host0/gpu2/pcie-down"});

  // NCCL_P2P_DISABLE also turns the bridged pair into SHM (type stays NVL).
  PathOptions off;
  off.p2p_disable = true;
  const Path nvl_off = c.path(a, gpu(c, "host0/gpu1"), off);
  CHECK(nvl_off.transport == Transport::SHM);
  CHECK(nvl_off.type == PathType::NVL);
  CHECK(names(c, nvl_off) ==
        std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory", "host0/gpu1/pcie-down"});
}

TEST_CASE("R750xa: inter-host NET, GDR only within the GDR level, sockets with ib_disable", "[paths][r750xa]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  const auto a = gpu(c, "host0/gpu0"), b = gpu(c, "host1/gpu0");
  // GPU0 and the NIC are on separate root ports of socket 0: PHB, beyond the default GDR level PXB.
  REQUIRE(c.nic_of(a).has_value());
  CHECK(c.nics()[*c.nic_of(a)].name == "host0/nic0/port0");
  CHECK(c.gpu_nic_distance(a, *c.nic_of(a)) == PathType::PHB);
  // Round-robin over the two equally near ports by GPU index: gpu1 -> port1.
  CHECK(c.nics()[*c.nic_of(gpu(c, "host0/gpu1"))].name == "host0/nic0/port1");

  const Path staged = c.path(a, b, PathOptions{});
  CHECK(staged.type == PathType::NET);
  CHECK(staged.transport == Transport::NetIB);
  CHECK(staged.link_class == LinkClass::Net);
  CHECK_FALSE(staged.gdr);
  CHECK(names(c, staged) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory",
                                                     "host0/nic0/pcie-down", "host0/nic0/port0/tx",
                                                     "host1/nic0/port0/rx", "host1/nic0/pcie-up",
                                                     "host1/socket0/memory", "host1/gpu0/pcie-down"});
  // The 100 GbE port is the bottleneck: 100e9 / 8 = 12.5e9 B/s.
  CHECK(staged.bottleneck.bytes_per_s == Approx(12.5e9));
  const auto tx = c.find_resource("host0/nic0/port0/tx");
  REQUIRE(tx.has_value());
  CHECK(c.resources()[*tx].capacity.bytes_per_s == Approx(12.5e9));
  CHECK(c.resources()[*tx].kind == "nic-port");

  PathOptions phb;
  phb.gdr_level = PathType::PHB;
  const Path gdr = c.path(a, b, phb);
  CHECK(gdr.gdr);
  CHECK(names(c, gdr) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/nic0/pcie-down", "host0/nic0/port0/tx",
                                                  "host1/nic0/port0/rx", "host1/nic0/pcie-up", "host1/gpu0/pcie-down"});
  // Latency: 4 PCIe hops x 0.15 + 2 cables x 0.02 + 1 switch x 0.5 = 1.14 us.
  CHECK(gdr.latency == us(1.14));
  // gdr_disable (no nvidia-peermem) stages again even at PHB.
  phb.gdr_disable = true;
  CHECK_FALSE(c.path(a, b, phb).gdr);

  // GPU2 is on socket 1: SYS to the NIC, so no GDR at PHB; the route crosses UPI on both hosts.
  PathOptions phb2;
  phb2.gdr_level = PathType::PHB;
  const auto a2 = gpu(c, "host0/gpu2"), b2 = gpu(c, "host1/gpu2");
  CHECK(c.gpu_nic_distance(a2, *c.nic_of(a2)) == PathType::SYS);
  const Path sys = c.path(a2, b2, phb2);
  CHECK_FALSE(sys.gdr);
  CHECK(names(c, sys) == std::vector<std::string>{
                             "host0/gpu2/pcie-up", "host0/socket1/memory", "host0/socket1->socket0",
                             "host0/nic0/pcie-down", "host0/nic0/port0/tx", "host1/nic0/port0/rx", "host1/nic0/pcie-up",
                             "host1/socket0->socket1", "host1/socket1/memory", "host1/gpu2/pcie-down"});

  PathOptions tcp;
  tcp.ib_disable = true;
  const Path sock = c.path(a, b, tcp);
  CHECK(sock.transport == Transport::NetSocket);
  CHECK_FALSE(sock.gdr);
  CHECK(names(c, sock) ==
        std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory", "host0/gpu0/socket-threads",
                                 "host0/nic0/pcie-down", "host0/nic0/port0/tcp-tx", "host0/nic0/port0/tx",
                                 "host1/nic0/port0/rx", "host1/nic0/port0/tcp-rx", "host1/nic0/pcie-up",
                                 "host1/gpu0/socket-threads", "host1/socket0/memory", "host1/gpu0/pcie-down"});
  // Socket threads (preset: 1 thread x 5 GB/s) are the bottleneck, below the port's TCP goodput
  // 12.5 GB/s x 1448/1538 = 11.77 GB/s.
  CHECK(sock.bottleneck.bytes_per_s == Approx(5e9));
  CHECK(c.resources()[sock.resources[4]].capacity.bytes_per_s == Approx(12.5e9 * 0.9415));
  // Kernel TCP stack latency (preset 15 us) is added once per NetSocket path on top of the RDMA path's wire latency.
  CHECK(sock.latency.s() == Approx(c.path(a, b, PathOptions{}).latency.s() + 15e-6).epsilon(1e-9));
}

TEST_CASE("R750xa 25 GbE: the port is 25e9 / 8 = 3.125e9 B/s", "[paths][r750xa]") {
  const Cluster c = Cluster::resolve("r750xa-4x-25gbe", cat());
  const Path p = c.path(gpu(c, "host0/gpu0"), gpu(c, "host3/gpu1"), PathOptions{});
  CHECK(p.bottleneck.bytes_per_s == Approx(3.125e9));
}

TEST_CASE("DGX A100: NVSwitch pairs, PXB to the NIC so GDR at the default level", "[paths][dgx]") {
  const Cluster c = Cluster::resolve("dgx-a100-128", cat());
  const Path nv = c.path(gpu(c, "host0/gpu0"), gpu(c, "host0/gpu7"), PathOptions{});
  CHECK(nv.type == PathType::NVL);
  CHECK(names(c, nv) == std::vector<std::string>{"host0/gpu0/nvlink-up", "host0/gpu7/nvlink-down"});
  CHECK(nv.bottleneck.bytes_per_s == Approx(240e9));  // 12 x 20 GB/s (NCCL SM80 per-link rate)
  // GPU k uses NIC k: both under the same top switch, in sibling child switches (PXB).
  for (std::uint32_t k = 0; k < 8; ++k) {
    const auto g = gpu(c, "host0/gpu" + std::to_string(k));
    CHECK(c.nics()[*c.nic_of(g)].name == "host0/nic" + std::to_string(k) + "/port0");
    CHECK(c.gpu_nic_distance(g, *c.nic_of(g)) == PathType::PXB);
  }
  const Path net = c.path(gpu(c, "host0/gpu3"), gpu(c, "host1/gpu3"), PathOptions{});
  CHECK(net.gdr);
  // Same leaf (hosts 0 and 1 share leaf 0): no spine links; the 200G HDR port (25e9 B/s) is the bottleneck.
  CHECK(net.bottleneck.bytes_per_s == Approx(25e9));
  CHECK(names(c, net).front() == "host0/gpu3/pcie-up");
  CHECK(names(c, net).at(1) == "host0/sw1-gpu/pcie-up");
  // AutoDL: P2P not supported -> SHM between the two GPUs on one switch (PIX).
  const Cluster autodl = Cluster::resolve("autodl-2x2080ti-pcie3", cat());
  const Path shm = autodl.path(0, 1, PathOptions{});
  CHECK(shm.type == PathType::PIX);
  CHECK(shm.transport == Transport::SHM);
}

TEST_CASE("PCIe distances on a switched host: PIX, PXB, PHB", "[paths]") {
  // socket0 -> top -> {swA: g0, g1; swB: g2}; g3 on a root port of socket 0.
  const Json j = Json::parse(R"({
    "name": "switched", "host_templates": {"t": {
      "cpu": "xeon-gold-6338", "sockets": 1,
      "pcie_switches": [{"name": "top", "gen": "gen4", "lanes": 16, "attach": "socket0"},
                        {"name": "swA", "gen": "gen4", "lanes": 16, "attach": "top"},
                        {"name": "swB", "gen": "gen3", "lanes": 16, "attach": "top"}],
      "gpus": [{"name": "g0", "model": "a100-pcie-40gb", "attach": "swA"},
               {"name": "g1", "model": "a100-pcie-40gb", "attach": "swA"},
               {"name": "g2", "model": "a100-pcie-40gb", "attach": "swB"},
               {"name": "g3", "model": "a100-pcie-40gb", "attach": "socket0"}]}},
    "hosts": [{"template": "t"}]})");
  const Cluster c = Cluster::from_json(j, "inline", cat());
  const PathOptions o;
  const Path pix = c.path(0, 1, o);
  CHECK(pix.type == PathType::PIX);
  CHECK(pix.transport == Transport::P2P);
  CHECK(names(c, pix) == std::vector<std::string>{"host0/g0/pcie-up", "host0/g1/pcie-down"});
  const Path pxb = c.path(0, 2, o);
  CHECK(pxb.type == PathType::PXB);
  CHECK(pxb.transport == Transport::P2P);
  CHECK(names(c, pxb) ==
        std::vector<std::string>{"host0/g0/pcie-up", "host0/swA/pcie-up", "host0/swB/pcie-down", "host0/g2/pcie-down"});
  // g2 negotiates Gen3 with its Gen3 switch: 8 GT/s x 128/130 / 8 x 16 x 0.84 = 13.2 GB/s.
  CHECK(pxb.bottleneck.bytes_per_s == Approx(8e9 * 128.0 / 130.0 / 8.0 * 16 * 0.84));
  const Path phb = c.path(0, 3, o);
  CHECK(phb.type == PathType::PHB);
  CHECK(phb.transport == Transport::SHM);  // PHB > default P2P level PXB
  PathOptions lvl;
  lvl.p2p_level = PathType::PIX;
  CHECK(c.path(0, 2, lvl).transport == Transport::SHM);
  CHECK(c.path(0, 1, lvl).transport == Transport::P2P);
  // Same GPU: LOC, nothing crossed.
  CHECK(c.path(2, 2, o).type == PathType::LOC);
  CHECK(c.path(2, 2, o).resources.empty());
}

TEST_CASE("path() is order independent", "[paths]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions o;
  const Path first = c.path(0, 5, o);
  for (std::uint32_t i = 0; i < c.gpus().size(); ++i)
    for (std::uint32_t k = 0; k < c.gpus().size(); ++k) (void)c.path(i, k, o);
  const Path again = c.path(0, 5, o);
  CHECK(first.resources == again.resources);
  CHECK(first.latency == again.latency);
}

TEST_CASE("path type names round-trip", "[paths]") {
  for (const char* n : {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS", "NET"})
    CHECK(std::string(to_string(parse_path_type(n))) == n);
  CHECK_THROWS_AS(parse_path_type("PXN"), UnitError);
}
