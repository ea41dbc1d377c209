// Virtualization: endpoints (bare metal, passthrough, vGPU, MIG) with their fractions, and endpoint_path per mode on
// the r750xa-vm-* presets and on inline variants of r750xa-1x-100gbe. Expected routes follow the R750xa layout the
// presets document (gpu0/gpu1 on socket 0, gpu2/gpu3 on socket 1, NIC on socket 0, no PCIe switch, pairs bridged).
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
std::uint32_t ep(const Cluster& c, const std::string& n) {
  auto e = c.find_endpoint(n);
  INFO(n);
  REQUIRE(e.has_value());
  return *e;
}
double cap(const Cluster& c, const std::string& n) {
  auto r = c.find_resource(n);
  INFO(n);
  REQUIRE(r.has_value());
  return c.resources()[*r].capacity.bytes_per_s;
}
// PCIe Gen4 x16 link: 16 GT/s x 128/130 / 8 x 16 lanes x efficiency 0.80 (catalog pcie.gen4).
const double kGen4x16 = 16e9 * 128.0 / 130.0 / 8.0 * 16 * 0.80;

// r750xa-1x-100gbe with the given hypervisor and VMs on its template.
Cluster r750xa_with(const Json& hypervisor, const Json& vms, const std::string& preset = "r750xa-1x-100gbe") {
  Json j = load_json_file(Cluster::presets_dir() + "/" + preset + ".json");
  j["host_templates"]["r750xa"]["hypervisor"] = hypervisor;
  j["host_templates"]["r750xa"]["vms"] = vms;
  return Cluster::from_json(j, "inline.json", cat());
}
const Json kEsxi = Json::parse(R"({"type": "esxi-7.0.3"})");
}  // namespace

TEST_CASE("bare metal: one endpoint per GPU, endpoint paths equal GPU paths", "[virt][endpoints]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  REQUIRE(c.endpoints().size() == c.gpus().size());  // 2 hosts x 4 GPUs = 8
  CHECK(c.vms().empty());
  PathOptions phb;
  phb.gdr_level = PathType::PHB;
  for (const PathOptions& o : {PathOptions{}, phb})
    for (std::uint32_t i = 0; i < c.endpoints().size(); ++i) {
      const GpuEndpoint& e = c.endpoints()[i];
      CHECK(e.gpu == i);
      CHECK(e.mode == "bare-metal");
      CHECK(e.name == c.gpus()[i].name);
      CHECK(e.compute_fraction == 1.0);
      for (std::uint32_t j = 0; j < c.endpoints().size(); ++j) {
        const Path a = c.endpoint_path(i, j, o), b = c.path(i, j, o);
        CHECK(a.resources == b.resources);
        CHECK(a.latency == b.latency);
        CHECK(a.transport == b.transport);
        CHECK(a.type == b.type);
        CHECK(a.gdr == b.gdr);
      }
    }
}

TEST_CASE("multi-vGPU VM: P2P over the NVLink bridge", "[virt][paths]") {
  const Cluster c = Cluster::resolve("r750xa-vm-1x2gpu-nvlink", cat());
  REQUIRE(c.vms().size() == 1);
  REQUIRE(c.endpoints().size() == 2);
  const GpuEndpoint& e0 = c.endpoints()[0];
  CHECK(e0.name == "host0/vm0/gpu0");
  CHECK(e0.mode == "vgpu");
  CHECK(e0.profile == "A100-40C");
  CHECK(e0.vm == "host0/vm0");
  // A100-40C is the whole 40 GiB framebuffer: memory fraction 40/40 = 1, one vGPU on the GPU.
  CHECK(e0.memory_fraction == Approx(1.0));
  CHECK(e0.time_slice_sharers == 1);
  const Path p = c.endpoint_path(0, 1, PathOptions{});
  CHECK(p.transport == Transport::P2P);
  CHECK(p.type == PathType::NVL);
  CHECK(names(c, p) == std::vector<std::string>{"host0/gpu0->gpu1/nvlink"});
  // VM overheads: the ESXi default compute efficiency 0.98 (docs/SOURCES.md#vm-overheads: "within about 2 %").
  CHECK(c.vms()[0].overheads.compute_efficiency == Approx(0.98));
  CHECK(c.vms()[0].overheads.hypervisor == "esxi-7.0.3");
  CHECK(c.vms()[0].notes.empty());  // the two GPUs are bridged
}

TEST_CASE("multi-vGPU VM: no PCIe P2P under vGPU, unbridged GPUs use SHM; passthrough keeps bare-metal P2P",
          "[virt][paths]") {
  PathOptions sys;
  sys.p2p_level = PathType::SYS;  // bare metal would then use PCIe P2P between gpu0 and gpu2 (SYS)
  const Cluster v = r750xa_with(kEsxi, Json::parse(R"([{"name": "vm0", "vcpus": 32, "memory": "64GiB",
      "gpus": [{"gpu": "gpu0", "mode": "vgpu", "profile": "A100-40C"}, {"gpu": "gpu2", "mode": "vgpu", "profile": "A100-40C"}]}])"));
  REQUIRE(v.path(0, 2, sys).transport == Transport::P2P);
  const Path shm = v.endpoint_path(ep(v, "host0/vm0/gpu0"), ep(v, "host0/vm0/gpu2"), sys);
  CHECK(shm.transport == Transport::SHM);
  CHECK(names(v, shm) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory",
                                                  "host0/socket0->socket1", "host0/gpu2/pcie-down"});
  // Two notes: gpu2 sits on socket 1 (NUMA), and gpu0-gpu2 is not NVLinked (P2P only within bridges).
  REQUIRE(v.vms()[0].notes.size() == 2);
  CHECK_THAT(v.vms()[0].notes[0], Catch::Contains("NUMA"));
  CHECK_THAT(v.vms()[0].notes[1], Catch::Contains("P2P only within NVLink"));

  const Cluster pt = r750xa_with(kEsxi, Json::parse(R"([{"name": "vm0", "vcpus": 32, "memory": "64GiB",
      "gpus": [{"gpu": "gpu0", "mode": "passthrough"}, {"gpu": "gpu2", "mode": "passthrough"}]}])"));
  const Path p2p = pt.endpoint_path(0, 1, sys);
  CHECK(p2p.transport == Transport::P2P);
  CHECK(names(pt, p2p) ==
        std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0->socket1", "host0/gpu2/pcie-down"});
}

TEST_CASE("MIG instances never use P2P: host memory inside one OS, the network between VMs", "[virt][paths][mig]") {
  // Hypervisor "none": the partitions are containers of one bare-metal OS, so SHM between them is allowed.
  const Cluster c = r750xa_with(Json::parse(R"({"type": "none"})"), Json::parse(R"([
      {"name": "p0", "vcpus": 8, "memory": "16GiB", "gpus": [{"gpu": "gpu0", "mode": "mig", "profile": "3g.20gb", "placement": 0},
                                                             {"gpu": "gpu1", "mode": "mig", "profile": "3g.20gb", "placement": 0}]},
      {"name": "p1", "vcpus": 8, "memory": "16GiB", "gpus": [{"gpu": "gpu0", "mode": "mig", "profile": "3g.20gb", "placement": 4}]}])"));
  const auto a = ep(c, "host0/p0/gpu0/3g.20gb@0"), b = ep(c, "host0/p1/gpu0/3g.20gb@4"),
             n = ep(c, "host0/p0/gpu1/3g.20gb@0");
  // Same GPU: up its PCIe link, through socket 0's memory, back down the same link.
  const Path same = c.endpoint_path(a, b, PathOptions{});
  CHECK(same.transport == Transport::SHM);
  CHECK(names(c, same) ==
        std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory", "host0/gpu0/pcie-down"});
  CHECK(same.bottleneck.bytes_per_s == Approx(kGen4x16));
  // Two PCIe traversals x 0.15 us (catalog gen4 hop latency).
  CHECK(same.latency == us(0.3));
  // Bridged GPUs: still no NVLink for MIG instances (bare metal would be NVL P2P).
  REQUIRE(c.path(0, 1, PathOptions{}).transport == Transport::P2P);
  const Path bridged = c.endpoint_path(a, n, PathOptions{});
  CHECK(bridged.transport == Transport::SHM);
  CHECK(names(c, bridged) ==
        std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory", "host0/gpu1/pcie-down"});

  // ESXi, one MIG VM per instance with vmxnet3: instances of one GPU in two VMs talk TCP through the host's vswitch.
  const Cluster v = Cluster::resolve("r750xa-vm-mig-2x3g", cat());
  const Path net = v.endpoint_path(0, 1, PathOptions{});
  CHECK(net.transport == Transport::NetSocket);
  CHECK(net.type == PathType::NET);
  CHECK(names(v, net) == std::vector<std::string>{
                             "host0/gpu0/pcie-up", "host0/socket0/memory", "host0/mig0/socket-threads", "host0/vswitch",
                             "host0/mig1/socket-threads", "host0/socket0/memory", "host0/gpu0/pcie-down"});
  // Latency: 2 PCIe hops x 0.15 us + vswitch_latency 5 us per vmxnet3 side [assumption] = 10.3 us.
  CHECK(net.latency == us(10.3));
}

TEST_CASE("vmxnet3: NetSocket through the VM's socket threads and the host vswitch", "[virt][paths]") {
  const Cluster c = Cluster::resolve("r750xa-vm-4x-100gbe-vmxnet3", cat());
  REQUIRE(c.endpoints().size() == 4);
  PathOptions phb;
  phb.gdr_level = PathType::SYS;  // GDR cannot apply to a TCP transport whatever the level
  const Path p = c.endpoint_path(ep(c, "host0/vm0/gpu0"), ep(c, "host1/vm0/gpu0"), phb);
  CHECK(p.transport == Transport::NetSocket);
  CHECK_FALSE(p.gdr);
  CHECK(names(c, p) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory",
                                                "host0/vm0/socket-threads", "host0/vswitch", "host0/nic0/pcie-down",
                                                "host0/nic0/port0/tx", "host1/nic0/port0/rx", "host1/nic0/pcie-up",
                                                "host1/vswitch", "host1/vm0/socket-threads", "host1/socket0/memory",
                                                "host1/gpu0/pcie-down"});
  // Socket threads: min(1 thread (preset, NCCL default), 32 vCPUs / 2) = 1 x 5 GB/s = 5 GB/s, the bottleneck.
  CHECK(cap(c, "host0/vm0/socket-threads") == Approx(5e9));
  CHECK(p.bottleneck.bytes_per_s == Approx(5e9));
  // Latency: 4 PCIe hops x 0.15 + link 0.02 + switch 0.5 + link 0.02 + 2 x vswitch 5 us = 11.14 us.
  CHECK(p.latency == us(11.14));
  // vswitch capacity: 100 Gb/s = 12.5 GB/s [assumption].
  CHECK(cap(c, "host0/vswitch") == Approx(12.5e9));

  // A 2-vCPU VM gets min(1, 2 / 2) = 1 thread: 1 x 5 GB/s (the vCPU clamp only binds with more threads).
  const Cluster small = r750xa_with(kEsxi, Json::parse(R"([{"name": "vm0", "vcpus": 2, "memory": "8GiB",
      "gpus": [{"gpu": "gpu0", "mode": "passthrough"}], "nic": {"nic": "nic0", "mode": "vmxnet3"}}])"));
  CHECK(cap(small, "host0/vm0/socket-threads") == Approx(5e9));
}

TEST_CASE("pvrdma: NetIB host-staged, never GDR, plus pvrdma_latency per side", "[virt][paths]") {
  const Cluster v = Cluster::resolve("r750xa-vm-2x-100gbe-pvrdma", cat());
  const Cluster bare = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions sys;
  sys.gdr_level = PathType::SYS;  // would allow GDR on bare metal
  const Path p = v.endpoint_path(ep(v, "host0/vm0/gpu0"), ep(v, "host1/vm0/gpu0"), sys);
  const Path b = bare.path(0, 4, sys);
  REQUIRE(b.gdr);
  CHECK(p.transport == Transport::NetIB);
  CHECK_FALSE(p.gdr);
  // The same route as bare metal with GDR off: staged through socket 0's memory on both hosts.
  PathOptions off = sys;
  off.gdr_disable = true;
  const Path staged = bare.path(0, 4, off);
  CHECK(names(v, p) == names(bare, staged));
  CHECK(names(v, p) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory", "host0/nic0/pcie-down",
                                                "host0/nic0/port0/tx", "host1/nic0/port0/rx", "host1/nic0/pcie-up",
                                                "host1/socket0/memory", "host1/gpu0/pcie-down"});
  // Latency = bare staged latency + 2 sides x pvrdma_latency 5 us [assumption].
  CHECK(p.latency == staged.latency + us(10.0));
}

TEST_CASE("sriov: GDR only with ATS and within the GDR level; without ATS a slower root-complex hop", "[virt][paths]") {
  const Cluster v = Cluster::resolve("r750xa-vm-2x-100gbe-gdr", cat());
  const Cluster bare = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions phb;
  phb.gdr_level = PathType::PHB;  // gpu0-NIC is PHB on the R750xa layout
  const auto a = ep(v, "host0/vm0/gpu0"), b = ep(v, "host1/vm0/gpu0");
  const Path gdr = v.endpoint_path(a, b, phb);
  CHECK(gdr.transport == Transport::NetIB);
  CHECK(gdr.gdr);
  // With ATS the VF path equals bare metal GDR (extra_net_latency defaults to 0).
  CHECK(names(v, gdr) == names(bare, bare.path(0, 4, phb)));
  CHECK(gdr.latency == bare.path(0, 4, phb).latency);
  // At the default level PXB, PHB is too far: host-staged.
  const Path def = v.endpoint_path(a, b, PathOptions{});
  CHECK_FALSE(def.gdr);
  CHECK(names(v, def)[1] == "host0/socket0/memory");

  // ATS off: not GDR; GPU->NIC peer traffic through the root complex over a resource of 0.7 x the PCIe link.
  Json j = load_json_file(Cluster::presets_dir() + "/r750xa-vm-2x-100gbe-gdr.json");
  j["host_templates"]["r750xa"]["vms"][0]["nic"]["ats"] = false;
  const Cluster n = Cluster::from_json(j, "inline.json", cat());
  const Path no = n.endpoint_path(a, b, phb);
  CHECK(no.transport == Transport::NetIB);
  CHECK_FALSE(no.gdr);
  CHECK(names(n, no) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/nic0/pcie-down",
                                                 "host0/vm0/no-ats-p2p/tx", "host0/nic0/port0/tx",
                                                 "host1/nic0/port0/rx", "host1/vm0/no-ats-p2p/rx", "host1/nic0/pcie-up",
                                                 "host1/gpu0/pcie-down"});
  // no_ats_p2p_efficiency 0.7 [assumption, docs/SOURCES.md#measured-bandwidths: 0.56-0.8 of bare metal] x Gen4 x16 25.2
  // GB/s = 17.6 GB/s.
  CHECK(cap(n, "host0/vm0/no-ats-p2p/tx") == Approx(0.7 * kGen4x16));
  CHECK(cap(n, "host0/vm0/no-ats-p2p/tx") < cap(n, "host0/gpu0/pcie-up"));
}

TEST_CASE("two VMs on one host use the network, even on a bridged pair", "[virt][paths]") {
  const Cluster c = Cluster::resolve("r750xa-vm-2x1gpu", cat());
  REQUIRE(c.path(0, 1, PathOptions{}).transport == Transport::P2P);  // bare metal: NVLink
  PathOptions phb;
  phb.gdr_level = PathType::PHB;
  const Path p = c.endpoint_path(ep(c, "host0/vm0/gpu0"), ep(c, "host0/vm1/gpu1"), phb);
  CHECK(p.transport == Transport::NetIB);
  CHECK(p.type == PathType::NET);
  CHECK(p.gdr);
  // SR-IOV VFs of one NIC: GPU -> NIC, looped back in the NIC's embedded switch, NIC -> GPU (no cable, no NVLink).
  CHECK(names(c, p) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/nic0/pcie-down", "host0/nic0/pcie-up",
                                                "host0/gpu1/pcie-down"});
  CHECK(c.nics()[c.vms()[1].nic].name == "host0/nic0/port1");
}

TEST_CASE("endpoint fractions: MIG SMs over the GPU's SMs, memory slices over 8; vGPU time-slice shares",
          "[virt][endpoints][mig]") {
  const Cluster c = Cluster::resolve("r750xa-vm-mig-4g2g1g", cat());
  REQUIRE(c.endpoints().size() == 3);
  const GpuEndpoint& g4 = c.endpoints()[ep(c, "host0/mig0/gpu0/4g.40gb@0")];
  const GpuEndpoint& g2 = c.endpoints()[ep(c, "host0/mig1/gpu0/2g.20gb@4")];
  const GpuEndpoint& g1 = c.endpoints()[ep(c, "host0/mig2/gpu0/1g.10gb@6")];
  // Catalog SMs (docs/SOURCES.md#mig-vgpu): 4g 56, 2g 28, 1g 14 of the A100's 108.
  CHECK(g4.compute_fraction == Approx(56.0 / 108.0));
  CHECK(g2.compute_fraction == Approx(28.0 / 108.0));
  CHECK(g1.compute_fraction == Approx(14.0 / 108.0));
  // Memory slices: 4/8, 2/8, 1/8.
  CHECK(g4.memory_fraction == Approx(0.5));
  CHECK(g2.memory_fraction == Approx(0.25));
  CHECK(g1.memory_fraction == Approx(0.125));
  CHECK(g4.mig_compute_slices == 4);
  CHECK(g2.mig_placement == 4);
  // 7g uses 98 of 108 SMs (A4), so even the whole-GPU instance has compute fraction 98/108 = 0.907.
  const Cluster seven = Cluster::resolve("r750xa-vm-mig-7g", cat());
  CHECK(seven.endpoints()[0].compute_fraction == Approx(98.0 / 108.0));
  CHECK(seven.endpoints()[0].sms == 98);
  // 3g.20gb on the 40GB part: 42/108 of the SMs (3/7 of the slices), 4/8 of the memory.
  const Cluster forty = r750xa_with(kEsxi, Json::parse(R"([{"name": "vm0", "vcpus": 8, "memory": "16GiB",
      "gpus": [{"gpu": "gpu0", "mode": "mig", "profile": "3g.20gb", "placement": 4}]}])"));
  CHECK(forty.endpoints()[0].compute_fraction == Approx(42.0 / 108.0));
  CHECK(forty.endpoints()[0].memory_fraction == Approx(0.5));

  // Time-sliced: 4 x A100-10C on one 40 GiB GPU: each 10/40 of the memory and an equal share 1/4 of the time.
  const Cluster ts = Cluster::resolve("r750xa-vm-vgpu-4x10c", cat());
  REQUIRE(ts.endpoints().size() == 4);
  for (const auto& e : ts.endpoints()) {
    CHECK(e.gpu == 0);
    CHECK(e.time_slice_sharers == 4);
    CHECK(e.time_slice_share == Approx(0.25));
    CHECK(e.memory_fraction == Approx(0.25));
    CHECK(e.compute_fraction == 1.0);
  }
  CHECK(Cluster::resolve("r750xa-vm-vgpu-2x20c", cat()).endpoints()[1].time_slice_share == Approx(0.5));
}

TEST_CASE("VM presets: endpoint counts, NUMA notes, every MIG layout valid", "[virt][presets]") {
  // The eight MIG inference layouts (presets/README.md) and their instance counts.
  const std::vector<std::pair<std::string, std::size_t>> mig = {
      {"7g", 1}, {"2x3g", 2}, {"3x2g", 3}, {"7x1g", 7}, {"4g3g", 2}, {"4g2g1g", 3}, {"3g2g1g1g", 4}, {"2g2g2g1g", 4}};
  for (const auto& [k, n] : mig) {
    INFO(k);
    const Cluster c = Cluster::resolve("r750xa-vm-mig-" + k, cat());
    CHECK(c.endpoints().size() == n);
    CHECK(c.vms().size() == n);
  }
  // 1, 2, 4 hosts x one VM x one vGPU.
  for (int h : {1, 2, 4})
    for (const char* s : {"100gbe-gdr", "100gbe-pvrdma", "25gbe-gdr", "25gbe-pvrdma"}) {
      const Cluster c = Cluster::resolve("r750xa-vm-" + std::to_string(h) + "x-" + s, cat());
      CHECK(c.endpoints().size() == static_cast<std::size_t>(h));
      CHECK(c.vms().size() == static_cast<std::size_t>(h));
    }
  // vm1 of r750xa-vm-2x2gpu has gpu2/gpu3 on socket 1 and the NIC on socket 0.
  const Cluster c = Cluster::resolve("r750xa-vm-2x2gpu", cat());
  CHECK(c.vms()[0].notes.empty());
  REQUIRE(c.vms()[1].notes.size() == 1);
  CHECK_THAT(c.vms()[1].notes[0], Catch::Contains("NUMA"));
}

TEST_CASE("two VMs of one host: mixed sriov/vmxnet3 hairpins once in the vswitch; PVRDMA pairs copy in host memory",
          "[virt][paths]") {
  const Cluster c = r750xa_with(kEsxi, Json::parse(R"([
      {"name": "a", "vcpus": 32, "memory": "64GiB", "gpus": [{"gpu": "gpu0", "mode": "passthrough"}],
       "nic": {"nic": "nic0", "port": 0, "mode": "sriov", "ats": true}},
      {"name": "b", "vcpus": 32, "memory": "64GiB", "gpus": [{"gpu": "gpu1", "mode": "passthrough"}],
       "nic": {"nic": "nic0", "port": 1, "mode": "vmxnet3"}},
      {"name": "c", "vcpus": 32, "memory": "64GiB", "gpus": [{"gpu": "gpu2", "mode": "passthrough"}],
       "nic": {"nic": "nic0", "port": 0, "mode": "pvrdma"}},
      {"name": "d", "vcpus": 32, "memory": "64GiB", "gpus": [{"gpu": "gpu3", "mode": "passthrough"}],
       "nic": {"nic": "nic0", "port": 1, "mode": "pvrdma"}}])"));
  // a (VF) -> b (vmxnet3): TCP, since b has no RDMA device; both sides staged through their VM's socket threads.
  const Path mixed = c.endpoint_path(ep(c, "host0/a/gpu0"), ep(c, "host0/b/gpu1"), PathOptions{});
  CHECK(mixed.transport == Transport::NetSocket);
  CHECK(names(c, mixed) == std::vector<std::string>{"host0/gpu0/pcie-up", "host0/socket0/memory",
                                                    "host0/a/socket-threads", "host0/vswitch", "host0/b/socket-threads",
                                                    "host0/socket0/memory", "host0/gpu1/pcie-down"});
  // Latency: 2 PCIe hops x 0.15 us + one vmxnet3 side x 5 us = 5.3 us.
  CHECK(mixed.latency == us(5.3));
  // c -> d (both PVRDMA, gpu2/gpu3 on socket 1): a memory copy on socket 1, no NIC, + 2 x 5 us pvrdma latency.
  const Path copy = c.endpoint_path(ep(c, "host0/c/gpu2"), ep(c, "host0/d/gpu3"), PathOptions{});
  CHECK(copy.transport == Transport::NetIB);
  CHECK_FALSE(copy.gdr);
  CHECK(names(c, copy) ==
        std::vector<std::string>{"host0/gpu2/pcie-up", "host0/socket1/memory", "host0/gpu3/pcie-down"});
  CHECK(copy.latency == us(10.3));
  // A VM without a NIC cannot reach another VM.
  const Cluster lone = r750xa_with(kEsxi, Json::parse(R"([
      {"name": "a", "vcpus": 8, "memory": "8GiB", "gpus": [{"gpu": "gpu0", "mode": "passthrough"}]},
      {"name": "b", "vcpus": 8, "memory": "8GiB", "gpus": [{"gpu": "gpu1", "mode": "passthrough"}]}])"));
  CHECK_THROWS_AS(lone.endpoint_path(0, 1, PathOptions{}), std::invalid_argument);
}
