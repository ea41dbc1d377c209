// Cluster::endpoint_path and the endpoint/VM accessors (see cluster.hpp and virtualization.hpp). Rules, in order:
// bare metal on both sides -> exactly Cluster::path. Inside one OS (one VM, or the partitions of a host whose
// hypervisor is "none"): MIG instances never use P2P (SHM through host memory, also between two instances of one GPU);
// vGPUs use P2P only over NVLink; passthrough GPUs follow the bare-metal rules. Anything else goes through the network
// with each side's NIC mode: vmxnet3 (sockets: VM socket threads + host vswitch, + vswitch_latency), pvrdma (IB verbs,
// host-staged, + pvrdma_latency), sriov/passthrough (IB verbs; GDR only with ATS and within gdr_level; without ATS
// the GPU<->NIC P2P crosses the root complex through a reduced "no-ats-p2p" resource). Two VMs of one host: a vmxnet3
// side hairpins in the vswitch, pvrdma pairs copy through host memory, SR-IOV/passthrough loop back in the NIC.
#include <stdexcept>

#include "vgsim/kernel/input_error.hpp"
#include "topologies/detail/cluster_impl.hpp"

namespace vgsim::topo {

using detail::HostInst;
using detail::kNone;
using detail::Template;

namespace {

enum class SideMode { Bare, Vmxnet3, Pvrdma, Sriov };  // Sriov covers "passthrough" too (same data path)

struct Side {
  std::uint32_t gpu = 0, host = 0, lgpu = 0, port = kNone, vm = kNone;
  SideMode mode = SideMode::Bare;
  bool ats = true, rdma_nic = true, none = false;
  const detail::VmState* st = nullptr;
  const VirtOverheads* ov = nullptr;
};

}  // namespace

const std::vector<VmInfo>& Cluster::vms() const { return impl_->vms; }
const std::vector<GpuEndpoint>& Cluster::endpoints() const { return impl_->endpoints; }
std::optional<std::uint32_t> Cluster::find_endpoint(const std::string& n) const {
  auto it = impl_->endpoint_by_name.find(n);
  if (it == impl_->endpoint_by_name.end()) return std::nullopt;
  return it->second;
}

std::optional<Path> Cluster::nvswitch_path(std::uint32_t ep, bool to_switch) const {
  const Impl& m = *impl_;
  if (ep >= m.endpoints.size()) throw std::out_of_range("vgsim: Cluster::nvswitch_path: endpoint index out of range");
  const GpuEndpoint& e = m.endpoints[ep];
  if (e.mode != "bare-metal" && e.mode != "passthrough") return std::nullopt;
  const HostInst& h = m.insts[m.gpus[e.gpu].host];
  const Template& t = m.templates[h.tmpl];
  const std::uint32_t lg = m.gpus[e.gpu].index_in_host;
  const std::uint32_t local = to_switch ? t.nvsw_up[lg] : t.nvsw_down[lg];
  if (local == kNone) return std::nullopt;
  Path p;
  p.resources.push_back(h.res_base + local);
  p.latency = t.nvl_latency[lg];
  p.transport = Transport::P2P;
  p.type = PathType::NVL;
  p.link_class = LinkClass::NVLink;
  p.bottleneck = m.resources[p.resources[0]].capacity;
  return p;
}

Path Cluster::endpoint_path(std::uint32_t a, std::uint32_t b, const PathOptions& o) const {
  const Impl& m = *impl_;
  if (a >= m.endpoints.size() || b >= m.endpoints.size())
    throw std::out_of_range("vgsim: Cluster::endpoint_path: endpoint index out of range");
  if (a == b) return Path{};
  const GpuEndpoint& ea = m.endpoints[a];
  const GpuEndpoint& eb = m.endpoints[b];
  const bool bare_a = ea.vm_index == UINT32_MAX, bare_b = eb.vm_index == UINT32_MAX;
  if (bare_a && bare_b) return path(ea.gpu, eb.gpu, o);

  auto finish = [&](Path& q) {
    bool first = true;
    for (auto r : q.resources) {
      const Bandwidth c = m.resources[r].capacity;
      if (first || c < q.bottleneck) q.bottleneck = c;
      first = false;
    }
    return q;
  };
  auto append = [&](Path& q, const detail::HostRoute& r, std::uint32_t base) { m.append(q, r, base); };

  // Inside one OS.
  const bool same_os = !bare_a && !bare_b && ea.host == eb.host &&
                       (ea.vm_index == eb.vm_index || m.host_virt[ea.host].hypervisor_none);
  if (same_os) {
    const bool mig = ea.mode == "mig" || eb.mode == "mig";
    const bool vgpu = ea.mode == "vgpu" || eb.mode == "vgpu";
    if (ea.gpu == eb.gpu) {
      if (!o.shm_disable) {
        // Two MIG instances of one GPU: out over the GPU's PCIe link to its socket's memory and back.
        const HostInst& h = m.insts[ea.host];
        const Template& t = m.templates[h.tmpl];
        const std::uint32_t lg = m.gpus[ea.gpu].index_in_host, s = t.gpu_socket[lg];
        Path p;
        p.transport = Transport::SHM;
        p.link_class = LinkClass::PCIe;
        p.type = PathType::PHB;
        append(p, detail::pcie_route(t.g, t.gpu_v[lg], t.socket_v[s]), h.res_base);
        p.resources.push_back(h.res_base + t.memory_res[s]);
        append(p, detail::pcie_route(t.g, t.socket_v[s], t.gpu_v[lg]), h.res_base);
        m.staged_copy(p, detail::pcie_route(t.g, t.gpu_v[lg], t.socket_v[s]), h.res_base);
        m.staged_copy(p, detail::pcie_route(t.g, t.socket_v[s], t.gpu_v[lg]), h.res_base);
        return finish(p);
      }
    } else {
      PathOptions q = o;
      if (mig) q.p2p_disable = true;
      if (vgpu && !mig) {
        const Path p = path(ea.gpu, eb.gpu, o);
        if (!(p.transport == Transport::P2P && p.link_class == LinkClass::PCIe)) {
          if (p.transport == Transport::P2P || p.transport == Transport::SHM) return p;
        } else {
          q.p2p_disable = true;  // PCIe P2P is unsupported under vGPU
        }
      }
      const Path p = path(ea.gpu, eb.gpu, q);
      if (p.transport == Transport::P2P || p.transport == Transport::SHM) return p;
    }
    // P2P and SHM unavailable: NCCL's network transport, looped back below.
  }

  // Network.
  auto side_of = [&](const GpuEndpoint& e) {
    Side s;
    s.gpu = e.gpu;
    s.host = e.host;
    s.lgpu = m.gpus[e.gpu].index_in_host;
    const Template& t = m.templates[m.insts[e.host].tmpl];
    if (e.vm_index == UINT32_MAX) {
      s.port = t.nic_choice[s.lgpu];
      if (s.port == kNone)
        throw InputError(m.file.empty() ? m.name : m.file, "$.host_templates." + t.name + ".nics",
                         "host '" + m.hosts[e.host].name + "' has no NIC, but " + e.name + " talks to another host", "[]",
                         "at least one NIC in the template of every host whose GPUs talk to other hosts");
    } else {
      const VmInfo& vm = m.vms[e.vm_index];
      s.vm = e.vm_index;
      s.st = &m.vm_state[e.vm_index];
      s.ov = &vm.overheads;
      s.port = s.st->port_local;
      s.none = m.host_virt[e.host].hypervisor_none;
      if (s.port == kNone)
        throw std::invalid_argument("vgsim: VM '" + vm.name + "' has no NIC; endpoint " + e.name +
                                    " cannot reach other VMs or hosts");
      s.mode = vm.nic_mode == "vmxnet3" ? SideMode::Vmxnet3 : vm.nic_mode == "pvrdma" ? SideMode::Pvrdma : SideMode::Sriov;
      s.ats = vm.ats || s.none;
    }
    s.rdma_nic = t.nics[t.ports[s.port].nic].rdma;
    return s;
  };
  const Side sa = side_of(ea), sb = side_of(eb);
  const bool rdma = !o.ib_disable && sa.rdma_nic && sb.rdma_nic && sa.mode != SideMode::Vmxnet3 &&
                    sb.mode != SideMode::Vmxnet3;
  Path p;
  p.transport = rdma ? Transport::NetIB : Transport::NetSocket;
  p.type = PathType::NET;
  p.link_class = LinkClass::Net;

  // Per side: GDR (direct GPU<->NIC), no-ATS P2P via the root complex, or host-staged.
  enum class Leg { Gdr, NoAts, Staged };
  auto leg_kind = [&](const Side& s) {
    if (!rdma || o.gdr_disable || s.mode == SideMode::Pvrdma) return Leg::Staged;
    if (gpu_nic_distance(s.gpu, m.insts[s.host].port_base + s.port) > o.gdr_level) return Leg::Staged;
    return s.ats ? Leg::Gdr : Leg::NoAts;
  };
  const Leg la = leg_kind(sa), lb = leg_kind(sb);
  p.gdr = la == Leg::Gdr && lb == Leg::Gdr;
  const bool same_host = sa.host == sb.host;
  const bool hairpin_vswitch = same_host && (sa.mode == SideMode::Vmxnet3 || sb.mode == SideMode::Vmxnet3);
  const bool host_copy = same_host && !hairpin_vswitch && sa.mode == SideMode::Pvrdma && sb.mode == SideMode::Pvrdma;
  const bool to_nic = !hairpin_vswitch && !host_copy;

  auto threads = [&](const Side& s, bool receive) {
    const Template& t = m.templates[m.insts[s.host].tmpl];
    (void)receive;  // one proxy thread per rank carries both directions
    if (s.st) return s.st->socket_proxy;
    return m.insts[s.host].res_base + t.socket_proxy[s.lgpu];
  };
  // One host's leg between the GPU and the NIC (or the host's memory/vswitch when the NIC is not crossed).
  auto leg = [&](const Side& s, Leg kind, bool receive) {
    const HostInst& h = m.insts[s.host];
    const Template& t = m.templates[h.tmpl];
    const detail::Vertex gv = t.gpu_v[s.lgpu], nv = t.nics[t.ports[s.port].nic].v;
    const std::uint32_t sock = t.gpu_socket[s.lgpu];
    const detail::Vertex sv = t.socket_v[sock];
    if (to_nic && kind != Leg::Staged) {
      if (kind == Leg::NoAts) {
        if (!receive) append(p, detail::pcie_route(t.g, gv, nv), h.res_base);
        p.resources.push_back(receive ? s.st->no_ats_rx : s.st->no_ats_tx);
        if (receive) append(p, detail::pcie_route(t.g, nv, gv), h.res_base);
      } else {
        append(p, receive ? detail::pcie_route(t.g, nv, gv) : detail::pcie_route(t.g, gv, nv), h.res_base);
      }
      return;
    }
    const bool sockets = p.transport == Transport::NetSocket;
    if (!receive) {
      const detail::HostRoute up = detail::pcie_route(t.g, gv, sv);
      append(p, up, h.res_base);
      m.staged_copy(p, up, h.res_base);
      p.resources.push_back(h.res_base + t.memory_res[sock]);
      if (host_copy) return;
      if (sockets) p.resources.push_back(threads(s, false));
      if (s.mode == SideMode::Vmxnet3) p.resources.push_back(m.host_virt[s.host].vswitch);
      if (to_nic) append(p, detail::pcie_route(t.g, sv, nv), h.res_base);
    } else {
      if (host_copy) {
        // The sender's socket memory was crossed already; down to this GPU (across sockets when needed).
        const std::uint32_t ssock = t.gpu_socket[sa.lgpu];
        append(p, detail::pcie_route(t.g, t.socket_v[ssock], gv), h.res_base);
        m.staged_copy(p, detail::pcie_route(t.g, t.socket_v[ssock], gv), h.res_base);
        return;
      }
      if (to_nic) append(p, detail::pcie_route(t.g, nv, sv), h.res_base);
      if (s.mode == SideMode::Vmxnet3 && !hairpin_vswitch) p.resources.push_back(m.host_virt[s.host].vswitch);
      if (sockets) p.resources.push_back(threads(s, true));
      p.resources.push_back(h.res_base + t.memory_res[sock]);
      const detail::HostRoute down = detail::pcie_route(t.g, sv, gv);
      append(p, down, h.res_base);
      m.staged_copy(p, down, h.res_base);
    }
  };

  // In a vswitch hairpin every side is staged through sockets (the vswitch carries TCP only).
  leg(sa, hairpin_vswitch ? Leg::Staged : la, false);
  if (hairpin_vswitch && sa.mode != SideMode::Vmxnet3) p.resources.push_back(m.host_virt[sa.host].vswitch);
  if (!same_host) {
    const HostInst& ha = m.insts[sa.host];
    const HostInst& hb = m.insts[sb.host];
    const Template& ta = m.templates[ha.tmpl];
    const Template& tb = m.templates[hb.tmpl];
    p.resources.push_back(ha.res_base + ta.ports[sa.port].tx);
    p.latency += m.link_latency + m.switch_latency;
    if (m.leaf_spine && ha.leaf != hb.leaf) {
      const std::uint32_t spine = (ha.port_base + sa.port + hb.port_base + sb.port) % m.spines;
      p.resources.push_back(m.leaf_up[ha.leaf][spine]);
      p.resources.push_back(m.leaf_down[hb.leaf][spine]);
      p.latency += (m.link_latency + m.switch_latency) * 2;
    }
    p.latency += m.link_latency;
    p.resources.push_back(hb.res_base + tb.ports[sb.port].rx);
  }
  leg(sb, hairpin_vswitch ? Leg::Staged : lb, true);

  for (const Side* s : {&sa, &sb}) {
    if (!s->ov) continue;
    p.latency += s->ov->extra_net_latency;
    if (s->mode == SideMode::Pvrdma) p.latency += s->ov->pvrdma_latency;
    if (s->mode == SideMode::Vmxnet3) p.latency += s->ov->vswitch_latency;
  }
  return finish(p);
}

}  // namespace vgsim::topo
