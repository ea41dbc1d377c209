// Why a route uses the transport it uses (see include/vgsim/topologies/path_reasons.hpp). The rules restate those of
// Cluster::path (cluster.cpp) and Cluster::endpoint_path (endpoint_path.cpp), in NCCL's terms:
// - ncclTopoCheckGdr (NCCL src/graph/paths.cc): GPUDirect RDMA needs GDR support on the NIC and the GPU (NIC RDMA,
//   nvidia-peermem or dma-buf), then GPU-NIC distance <= NCCL_NET_GDR_LEVEL, default PATH_PXB: PIX and PXB use it,
//   PHB and SYS do not unless the level is raised.
// - ncclTopoCheckP2p (same file): P2P when GPU-GPU distance <= NCCL_P2P_LEVEL (PXB on Intel x86 and ARM CPUs, the
//   level vgsim takes by default) and NCCL_P2P_DISABLE is unset; else SHM through host memory.
// - the IB transport (NCCL src/transport/net_ib.cc, ncclIbInit): no IB devices when NCCL_IB_DISABLE=1 or no RDMA
//   (InfiniBand / RoCE) port is ACTIVE; NCCL then takes its socket transport (net_socket.cc), which has no GPUDirect.
// - the virtualization rules of endpoint_path.cpp (MIG: no P2P; vGPU: P2P over NVLink only; vmxnet3: sockets;
//   PVRDMA: host-staged; SR-IOV / passthrough: GPUDirect only with ATS). docs/SOURCES.md#nccl-paths cites them.
#include "vgsim/topologies/path_reasons.hpp"

#include <cstdio>
#include <set>
#include <stdexcept>

namespace vgsim::topo {

namespace {

constexpr const char* kGdrRule = "ncclTopoCheckGdr";
constexpr const char* kP2pRule = "ncclTopoCheckP2p";
constexpr const char* kIbRule = "NCCL net_ib.cc";

// A PCIe distance with what it means.
std::string distance_words(PathType t) {
  switch (t) {
    case PathType::PIX:
      return "PIX (one PCIe switch)";
    case PathType::PXB:
      return "PXB (PCIe switches)";
    case PathType::PHB:
      return "PHB (via the CPU)";
    case PathType::SYS:
      return "SYS (across sockets)";
    default:
      return to_string(t);
  }
}

// "NCCL_NET_GDR_LEVEL (default PXB)" or "NCCL_NET_GDR_LEVEL PHB" when another level is set.
std::string level_words(const char* env, PathType level) {
  if (level == PathType::PXB) return std::string(env) + " (default PXB)";
  return std::string(env) + " " + to_string(level);
}

std::string flag_level(PathType t) { return to_string(t); }

// One side of a network route: its endpoint, GPU, NIC port and VM (if any).
struct NetSide {
  const GpuEndpoint& e;
  const VmInfo* vm = nullptr;
  std::uint32_t nic = UINT32_MAX;  // index into Cluster::nics()
};

NetSide net_side(const Cluster& c, const GpuEndpoint& e) {
  NetSide s{e};
  if (e.vm_index != UINT32_MAX) {
    s.vm = &c.vms()[e.vm_index];
    s.nic = s.vm->nic;
  } else if (auto n = c.nic_of(e.gpu)) {
    s.nic = *n;
  }
  return s;
}

bool is_none_hypervisor(const NetSide& s) { return s.vm && s.vm->overheads.hypervisor == "none"; }

// Why NET runs over TCP sockets rather than IB verbs.
void socket_reasons(const Cluster& c, const NetSide& s, const PathOptions& o, std::vector<PathReason>& out) {
  const std::string what = "TCP sockets, not IB verbs";
  if (o.sockets_forced()) {  // the knob, in NCCL's words (nccl_net_choice.cpp)
    const NetChoice ch = c.nccl_net(*c.find_endpoint(s.e.name), o);
    out.push_back({what, ch.socket_rule, kIbRule, ch.socket_fix});
    return;
  }
  if (s.vm && s.vm->nic_mode == "vmxnet3") {
    out.push_back({what, "the VM's NIC is vmxnet3, paravirtual Ethernet without RDMA verbs", kIbRule,
                   "NIC mode pvrdma, sriov or passthrough would use IB"});
    return;
  }
  if (s.nic != UINT32_MAX && !c.nics()[s.nic].rdma) {
    out.push_back({what, "NIC " + c.nics()[s.nic].model + " has no RDMA", kIbRule,
                   "an RDMA NIC (RoCE or InfiniBand) would carry IB verbs"});
    return;
  }
  // Otherwise NCCL's own choice in that OS rejected NET/IB (an RDMA port down or not mapped to its netdev).
  const NetChoice ch = c.nccl_net(*c.find_endpoint(s.e.name), o);
  if (ch.transport == NetKind::Socket) out.push_back({what, ch.socket_rule, kIbRule, ch.socket_fix});
}

// Why GPUDirect RDMA is not in use on one side of an IB-verbs route.
void gdr_reasons(const Cluster& c, const NetSide& s, const PathOptions& o, std::vector<PathReason>& out) {
  const std::string what = "GPUDirect RDMA not in use";
  if (o.gdr_disable) {
    out.push_back({what, "--gdr-disable (no nvidia-peermem or dma-buf)", kGdrRule,
                   "GDR support on the hosts and no --gdr-disable would turn it on"});
    return;
  }
  if (s.vm && s.vm->nic_mode == "pvrdma") {
    out.push_back({what, "the VM's NIC is PVRDMA, which cannot reach GPU memory", "host-staged",
                   "an SR-IOV or passthrough NIC with ATS would turn it on"});
    return;
  }
  if (s.nic == UINT32_MAX) return;
  const PathType d = c.gpu_nic_distance(s.e.gpu, s.nic);
  if (d > o.gdr_level) {
    out.push_back(
        {what, "GPU-NIC distance " + distance_words(d) + " exceeds " + level_words("NCCL_NET_GDR_LEVEL", o.gdr_level),
         kGdrRule, "--gdr-level " + flag_level(d) + " or NIC and GPU on one PCIe switch would turn it on"});
    return;
  }
  if (s.vm && !s.vm->ats && !is_none_hypervisor(s)) {
    char eff[32];
    std::snprintf(eff, sizeof eff, "%.2g", s.vm->overheads.no_ats_p2p_efficiency);
    out.push_back({what,
                   std::string("ATS is off: NIC-GPU traffic crosses the CPU root complex at x") + eff + " of PCIe",
                   "direct P2P needs ATS", "\"ats\": true (ATS on in ESXi, the VM and the NIC) would turn it on"});
  }
}

// Whether GPU g has an NVLink peer on its host.
bool has_nvlink_peer(const Cluster& c, std::uint32_t g) {
  PathOptions any;
  any.p2p_level = PathType::SYS;
  for (std::uint32_t x : c.hosts()[c.gpus()[g].host].gpus)
    if (x != g && c.path(g, x, any).type == PathType::NVL) return true;
  return false;
}

// Why two GPU endpoints of one OS use SHM rather than P2P.
void shm_reasons(const Cluster& c, const GpuEndpoint& ea, const GpuEndpoint& eb, const PathOptions& o,
                 std::vector<PathReason>& out) {
  const std::string what = "SHM, not P2P";
  if (ea.mode == "mig" || eb.mode == "mig") {
    out.push_back({what,
                   ea.gpu == eb.gpu ? "both are MIG instances of one GPU, and MIG instances have no P2P"
                                    : "MIG instances have no P2P",
                   "NVIDIA MIG User Guide", "whole GPUs (passthrough or a full vGPU profile) would use P2P"});
    return;
  }
  if (o.p2p_disable) {
    out.push_back({what, "NCCL_P2P_DISABLE=1 (--p2p-disable)", kP2pRule, "without --p2p-disable P2P would be used"});
    return;
  }
  const Path bare = c.path(ea.gpu, eb.gpu, o);
  const bool vgpu = ea.mode == "vgpu" || eb.mode == "vgpu";
  if (vgpu && bare.transport == Transport::P2P) {
    out.push_back({what, "vGPU has P2P only over NVLink", "NVIDIA vGPU User Guide",
                   "an NVLink bridge between the two GPUs would give P2P"});
    return;
  }
  const HostInfo& h = c.hosts()[c.gpus()[ea.gpu].host];
  if (bare.type == PathType::NVL) {
    out.push_back({what, std::string("NCCL_P2P_LEVEL ") + to_string(o.p2p_level) + " is below NVL", kP2pRule,
                   "--p2p-level NVL or above would use the NVLink"});
  } else if (!h.pcie_p2p) {
    out.push_back({what, "host " + h.name + " forbids PCIe peer-to-peer (pcie_p2p: false)", "the platform's P2P switch",
                   "an NVLink bridge between the GPUs would give P2P"});
  } else if (bare.type > o.p2p_level) {
    out.push_back(
        {what,
         "GPU-GPU distance " + distance_words(bare.type) + " exceeds " + level_words("NCCL_P2P_LEVEL", o.p2p_level),
         kP2pRule, "--p2p-level " + flag_level(bare.type) + ", an NVLink bridge or one PCIe switch would give P2P"});
  }
}

bool same_os(const Cluster& c, const GpuEndpoint& a, const GpuEndpoint& b) {
  if (a.host != b.host) return false;
  if (a.vm_index == UINT32_MAX || b.vm_index == UINT32_MAX) return a.vm_index == b.vm_index;
  return a.vm_index == b.vm_index || c.vms()[a.vm_index].overheads.hypervisor == "none";
}

void net_reasons(const Cluster& c, const GpuEndpoint& ea, const GpuEndpoint& eb, const Path& p, const PathOptions& o,
                 std::vector<PathReason>& out) {
  if (same_os(c, ea, eb)) {
    out.push_back({"NET inside one node",
                   ea.mode == "mig" || eb.mode == "mig" ? "MIG has no P2P and SHM is disabled (--shm-disable)"
                                                        : "P2P and SHM are both unavailable or disabled",
                   "NCCL's transport order P2P, SHM, NET", "without --shm-disable SHM would be used"});
  } else if (ea.host == eb.host && ea.vm_index != UINT32_MAX && eb.vm_index != UINT32_MAX) {
    out.push_back({"NET between two VMs of one host", "each VM is its own NCCL node",
                   "no P2P or SHM across OS instances", "both GPUs in one VM would use P2P or SHM"});
  }
  const NetSide sa = net_side(c, ea), sb = net_side(c, eb);
  for (const NetSide* s : {&sa, &sb}) {
    if (p.transport == Transport::NetSocket)
      socket_reasons(c, *s, o, out);
    else if (!p.gdr)
      gdr_reasons(c, *s, o, out);
  }
}

// P2P over PCIe where a user who knows the host has NVLink may expect NVLink.
void pcie_p2p_reasons(const Cluster& c, const GpuEndpoint& ea, const GpuEndpoint& eb, std::vector<PathReason>& out) {
  if (!has_nvlink_peer(c, ea.gpu) && !has_nvlink_peer(c, eb.gpu)) return;
  out.push_back({"P2P over PCIe, not NVLink",
                 ea.name + " and " + eb.name + " are not joined by an NVLink bridge or NVSwitch", kP2pRule,
                 "NVLink peers (--endpoints) or a bridge would use NVLink"});
}

}  // namespace

std::vector<PathReason> path_reasons(const Cluster& c, std::uint32_t a, std::uint32_t b, const PathOptions& o) {
  std::vector<PathReason> out;
  if (a == b) return out;
  Path p;
  try {
    p = c.endpoint_path(a, b, o);
  } catch (const std::exception&) {
    return out;  // no route (a missing NIC): the route's own error says why
  }
  const GpuEndpoint& ea = c.endpoints().at(a);
  const GpuEndpoint& eb = c.endpoints().at(b);
  if (p.transport == Transport::SHM)
    shm_reasons(c, ea, eb, o, out);
  else if (p.transport == Transport::P2P && p.link_class == LinkClass::PCIe)
    pcie_p2p_reasons(c, ea, eb, out);
  else if (p.transport == Transport::NetIB || p.transport == Transport::NetSocket)
    net_reasons(c, ea, eb, p, o, out);
  std::vector<PathReason> unique;
  std::set<std::string> seen;
  for (auto& r : out)
    if (seen.insert(why_line(r)).second) unique.push_back(std::move(r));
  return unique;
}

std::string why_line(const PathReason& r) { return "why: " + r.what + ": " + r.why + " [" + r.rule + "]; " + r.fix; }

std::vector<std::string> why_lines(const Cluster& c, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& routes,
                                   const PathOptions& o) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const auto& [a, b] : routes)
    for (const PathReason& r : path_reasons(c, a, b, o))
      if (seen.insert(why_line(r)).second) lines.push_back(why_line(r));
  return lines;
}

}  // namespace vgsim::topo
