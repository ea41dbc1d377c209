// path_reasons / why_line: the reason a route does not use the transport a user may expect, in NCCL's rules, on the
// README's docs/examples/my-cluster.json, presets (bare metal with GPUDirect RDMA, R750xa VMs with SR-IOV, PVRDMA,
// vmxnet3, MIG, vGPU) and a copy of my-cluster whose NIC has no RDMA. Each expectation states the rule first.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "default_catalog.hpp"
#include "vgsim/topologies/path_reasons.hpp"

using namespace vgsim;
using namespace vgsim::topo;

using vgsim::topo::test::cat;

namespace {
Json my_cluster_json() {
  std::ifstream in(std::string(VGSIM_SOURCE_DIR) + "/docs/examples/my-cluster.json");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}
std::uint32_t ep(const Cluster& c, const std::string& n) {
  auto e = c.find_endpoint(n);
  REQUIRE(e.has_value());
  return *e;
}
// The routes of a ring over every endpoint in order (what Communicator::transport_reasons asks about).
std::vector<std::pair<std::uint32_t, std::uint32_t>> ring(const Cluster& c) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> r;
  const auto n = static_cast<std::uint32_t>(c.endpoints().size());
  for (std::uint32_t i = 0; i < n; ++i) r.emplace_back(i, (i + 1) % n);
  return r;
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}
}  // namespace

TEST_CASE("my-cluster: no GDR because GPU-NIC distance PHB is farther than the default PXB", "[paths][why]") {
  const Cluster c = Cluster::from_json(my_cluster_json(), "docs/examples/my-cluster.json", cat());
  const std::uint32_t a = ep(c, "host0/gpu1"), b = ep(c, "host1/gpu0");
  const PathOptions o;
  REQUIRE(c.endpoint_path(a, b, o).transport == Transport::NetIB);
  REQUIRE_FALSE(c.endpoint_path(a, b, o).gdr);
  // NCCL ncclTopoCheckGdr (src/graph/paths.cc): GDR only while the GPU-NIC path type <= NCCL_NET_GDR_LEVEL, default
  // PATH_PXB. The GPUs and the NIC sit on root ports of socket 0 (the file's "attach"), so the distance is PHB > PXB:
  // one reason (both sides give the same one), naming PHB, the default PXB and the setting that turns GDR on.
  const auto r = path_reasons(c, a, b, o);
  REQUIRE(r.size() == 1);
  CHECK(r[0].what == "GPUDirect RDMA not in use");
  CHECK(has(r[0].why, "PHB"));
  CHECK(has(r[0].why, "NCCL_NET_GDR_LEVEL (default PXB)"));
  CHECK(r[0].rule == "ncclTopoCheckGdr");
  CHECK(has(r[0].fix, "--gdr-level PHB"));
  CHECK(why_line(r[0]).rfind("why: GPUDirect RDMA not in use: GPU-NIC distance PHB", 0) == 0);
  // The fix it names works: at NCCL_NET_GDR_LEVEL=PHB, PHB <= PHB, GDR is in use and nothing is left to explain.
  PathOptions phb;
  phb.gdr_level = PathType::PHB;
  CHECK(c.endpoint_path(a, b, phb).gdr);
  CHECK(path_reasons(c, a, b, phb).empty());
}

TEST_CASE("my-cluster: SHM between root ports because PHB is farther than NCCL_P2P_LEVEL", "[paths][why]") {
  const Cluster c = Cluster::from_json(my_cluster_json(), "docs/examples/my-cluster.json", cat());
  const std::uint32_t a = ep(c, "host0/gpu0"), b = ep(c, "host0/gpu1");
  // ncclTopoCheckP2p: P2P while GPU-GPU path type <= NCCL_P2P_LEVEL (PXB on Intel x86, vgsim's default); two root
  // ports of one CPU are PHB, so SHM; --p2p-level PHB gives P2P.
  const auto r = path_reasons(c, a, b, PathOptions{});
  REQUIRE(r.size() == 1);
  CHECK(r[0].what == "SHM, not P2P");
  CHECK(has(r[0].why, "GPU-GPU distance PHB"));
  CHECK(has(r[0].why, "NCCL_P2P_LEVEL (default PXB)"));
  CHECK(r[0].rule == "ncclTopoCheckP2p");
  CHECK(has(r[0].fix, "--p2p-level PHB"));
  PathOptions phb;
  phb.p2p_level = PathType::PHB;
  CHECK(c.endpoint_path(a, b, phb).transport == Transport::P2P);
  CHECK(path_reasons(c, a, b, phb).empty());
}

TEST_CASE("bare metal with GDR in use (DGX A100): no why-line on any ring route", "[paths][why]") {
  const Cluster c = Cluster::resolve("dgx-a100-128", cat());
  // GPU k and NIC k share a top PCIe switch (PXB <= PXB: GDR, test_paths.cpp), and the GPUs of a node are NVSwitch
  // peers (P2P over NVLink): every route is what a user expects.
  REQUIRE(c.endpoint_path(ep(c, "host0/gpu7"), ep(c, "host1/gpu0"), PathOptions{}).gdr);
  CHECK(why_lines(c, ring(c), PathOptions{}).empty());
}

TEST_CASE("--gdr-disable: the reason is the flag, and without it GDR is back", "[paths][why]") {
  const Cluster c = Cluster::resolve("dgx-a100-128", cat());
  PathOptions off;
  off.gdr_disable = true;
  // ncclTopoCheckGdr returns first when the NIC or the GPU has no GDR support (gdrSupport 0), which --gdr-disable
  // stands for: one line for the whole ring (both sides of every NET route give the same reason).
  const auto lines = why_lines(c, ring(c), off);
  REQUIRE(lines.size() == 1);
  CHECK(has(lines[0], "GPUDirect RDMA not in use: --gdr-disable"));
  CHECK(has(lines[0], "no --gdr-disable would turn it on"));
}

TEST_CASE("--ib-disable and a NIC without RDMA: NET over TCP sockets, with the IB transport's rule", "[paths][why]") {
  // net_ib.cc: ncclIbInit lists no device when NCCL_IB_DISABLE=1 or no RDMA port is ACTIVE; NCCL then takes the
  // socket transport, which has no GPUDirect.
  const Cluster c = Cluster::from_json(my_cluster_json(), "docs/examples/my-cluster.json", cat());
  PathOptions ib_off;
  ib_off.ib_disable = true;
  const std::uint32_t a = ep(c, "host0/gpu1"), b = ep(c, "host1/gpu0");
  REQUIRE(c.endpoint_path(a, b, ib_off).transport == Transport::NetSocket);
  auto r = path_reasons(c, a, b, ib_off);
  REQUIRE(r.size() == 1);
  CHECK(r[0].what == "TCP sockets, not IB verbs");
  CHECK(has(r[0].why, "NCCL_IB_DISABLE=1: NET/Socket"));
  CHECK(has(r[0].rule, "net_ib.cc"));

  Json j = my_cluster_json();
  j["host_templates"]["server"]["nics"][0]["model"] = "intel-xl710-qda2-40g";  // catalog: "rdma": false
  const Cluster tcp = Cluster::from_json(j, "inline", cat());
  REQUIRE(tcp.endpoint_path(a, b, PathOptions{}).transport == Transport::NetSocket);
  r = path_reasons(tcp, a, b, PathOptions{});
  REQUIRE(r.size() == 1);
  CHECK(has(r[0].why, "NIC intel-xl710-qda2-40g has no RDMA"));
  CHECK(has(r[0].fix, "an RDMA NIC"));
}

TEST_CASE("R750xa VMs: SR-IOV with ATS still PHB, PVRDMA host-staged, vmxnet3 sockets", "[paths][why][virt]") {
  // SR-IOV VF with ATS on (endpoint_path.cpp: GDR with ATS and within gdr_level): the VM's GPU0 and its NIC are on
  // root ports of socket 0, PHB > PXB, so the same distance reason as on bare metal.
  const Cluster gdr = Cluster::resolve("r750xa-vm-4x-25gbe-gdr", cat());
  auto lines = why_lines(gdr, ring(gdr), PathOptions{});
  INFO(joined(lines));
  REQUIRE(lines.size() == 1);
  CHECK(has(lines[0], "GPU-NIC distance PHB"));
  PathOptions phb;
  phb.gdr_level = PathType::PHB;
  CHECK(why_lines(gdr, ring(gdr), phb).empty());
  // PVRDMA: a paravirtual device; the NIC never reaches GPU memory, whatever the level.
  const Cluster pv = Cluster::resolve("r750xa-vm-4x-25gbe-pvrdma", cat());
  lines = why_lines(pv, ring(pv), phb);
  REQUIRE(lines.size() == 1);
  CHECK(has(lines[0], "NIC is PVRDMA"));
  // vmxnet3: no RDMA verbs, so NCCL's socket transport.
  const Cluster vx = Cluster::resolve("r750xa-vm-4x-100gbe-vmxnet3", cat());
  lines = why_lines(vx, ring(vx), PathOptions{});
  REQUIRE(lines.size() == 1);
  CHECK(has(lines[0], "TCP sockets, not IB verbs"));
  CHECK(has(lines[0], "vmxnet3"));
}

TEST_CASE("two MIG VMs on one host: NET between VMs, over sockets through vmxnet3", "[paths][why][virt]") {
  const Cluster c = Cluster::resolve("r750xa-vm-mig-2x3g", cat());
  // NCCL's node is one OS instance: two VMs never share P2P or SHM, so NET; their vmxnet3 NICs have no RDMA verbs,
  // so NCCL's socket transport. Two lines, in that order (the route's kind first, then its transport).
  const auto lines = why_lines(c, {{0, 1}}, PathOptions{});
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK(has(lines[0], "NET between two VMs of one host"));
  CHECK(has(lines[1], "TCP sockets, not IB verbs"));
  CHECK(has(lines[1], "vmxnet3"));
}
