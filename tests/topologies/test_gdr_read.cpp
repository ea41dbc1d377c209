// GPUDirect RDMA reads and writes apart (Cluster::Impl::gdr_read, NCCL_NET_GDR_READ): the expectations are NCCL's rule
// in src/graph/paths.cc ncclTopoCheckGdr (read = the sending side), applied by hand to each preset's GPUs.
#include <catch2/catch.hpp>

#include "default_catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

using namespace vgsim::topo;

using vgsim::topo::test::cat;

namespace {

bool crosses_kind(const Cluster& c, const Path& p, const std::string& kind) {
  for (auto r : p.resources)
    if (c.resources()[r].kind == kind) return true;
  return false;
}
}  // namespace

TEST_CASE("NCCL_NET_GDR_READ default: pre-Ampere PCIe GPUs without an NVLink peer stage their sends") {
  // hvd17: 4 x P100 PCIe (sm 6.0) per host, no NVLink, one 25 GbE NIC on socket 0; gpu0-NIC is PHB, so
  // NCCL_NET_GDR_LEVEL=SYS puts GDR in reach. Rule: sm < 80 and no NVLink peer among 4 GPUs -> no GDR read, in every
  // version; the receiving side still writes GPU memory directly.
  const Cluster c = Cluster::resolve("hvd17-4x4-p100-25gbe", cat());
  PathOptions o;
  o.gdr_level = PathType::SYS;
  const std::uint32_t a = *c.find_gpu("host0/gpu0"), b = *c.find_gpu("host1/gpu0");
  Path p = c.path(a, b, o);
  CHECK(p.transport == Transport::NetIB);
  CHECK_FALSE(p.gdr);
  CHECK(p.gdr_receive_only);
  CHECK(crosses_kind(c, p, "memory"));  // the send is staged through host memory (one memory resource: host0's)
  // NCCL_NET_GDR_READ=1: both sides direct, no host memory crossed.
  o.gdr_read = 1;
  p = c.path(a, b, o);
  CHECK(p.gdr);
  CHECK_FALSE(p.gdr_receive_only);
  CHECK_FALSE(crosses_kind(c, p, "memory"));
}

TEST_CASE("NCCL_NET_GDR_READ default: Ampere from 2.19, or an NVLink peer, reads directly; 0 turns it off") {
  // r750xa: A100 PCIe (sm 8.0) in NVLink-bridged pairs; both reasons hold in 2.30, the NVLink one alone in 2.18.
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions o;
  o.gdr_level = PathType::SYS;
  const std::uint32_t a = *c.find_gpu("host0/gpu0"), b = *c.find_gpu("host1/gpu0");
  CHECK(c.path(a, b, o).gdr);
  o.nccl_minor = 18;
  CHECK(c.path(a, b, o).gdr);
  o.gdr_read = 0;
  const Path p = c.path(a, b, o);
  CHECK_FALSE(p.gdr);
  CHECK(p.gdr_receive_only);
}

TEST_CASE("NVIDIA/nccl#371's V100 PCIe nodes: GDR reads off by default from 2.6, on with NCCL_NET_GDR_READ=1") {
  // 8 x V100 PCIe (sm 7.0, no NVLink) per node, GPU0-3 PIX to the HCA: GPU0 is within the default GDR level PXB, so
  // receives use GDR; sends use it only when reads are allowed (data/measured/nccl371-gdr-read.csv: 6.12 GB/s busbw
  // by default with 2.7.8, 9.23 with NCCL_NET_GDR_READ=1).
  const Cluster c = Cluster::resolve("nccl371-2x8xv100pcie", cat());
  PathOptions o;
  o.nccl_minor = 7;
  const std::uint32_t a = *c.find_gpu("host0/gpu0"), b = *c.find_gpu("host1/gpu0");
  CHECK(c.gpu_nic_distance(a, c.nic_of(a).value()) == PathType::PIX);
  Path p = c.path(a, b, o);
  CHECK(p.gdr_receive_only);
  o.gdr_read = 1;
  p = c.path(a, b, o);
  CHECK(p.gdr);
  // GPU4-7 sit behind the CPU (PHB): beyond PXB, no GDR either way whatever NCCL_NET_GDR_READ says.
  const std::uint32_t far = *c.find_gpu("host0/gpu4"), far_b = *c.find_gpu("host1/gpu4");
  CHECK(c.gpu_nic_distance(far, c.nic_of(far).value()) == PathType::PHB);
  p = c.path(far, far_b, o);
  CHECK_FALSE(p.gdr);
  CHECK_FALSE(p.gdr_receive_only);
}
