// Private to topologies/: the internal state of a Cluster shared by the files that build and query it (cluster.cpp
// loads hosts and the fabric, virtualization.cpp adds hypervisors, VMs and endpoints, endpoint_path.cpp routes between
// endpoints). Host h's local resource k is resources[insts[h].res_base + k]; VM resources are appended after the
// fabric's. Not a public type: Boost.Graph stays out of include/.
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "topologies/detail/host_graph.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::topo {

namespace detail {

constexpr std::uint32_t kNone = UINT32_MAX;

// Where a "hypervisor"/"vms" declaration came from (a host template or a host entry), kept raw until the hosts exist.
struct VirtDecl {
  bool present = false;
  Json hypervisor;   // null when absent
  Json vms;          // null when absent
  std::string path;  // JSON path of the object holding them ("$.host_templates.r750xa", "$.hosts[0]")
};

struct Port {
  std::uint32_t nic = 0, port = 0, tx = 0, rx = 0;
  std::uint32_t tcp_tx = 0, tcp_rx = 0;  // TCP goodput of the port (line rate x payload_efficiency), NetSocket only
};

struct NicDev {
  std::string name, model;
  Vertex v = 0;
  std::uint32_t socket = 0, ports = 0;
  Bandwidth speed;
  bool rdma = true;
  std::uint32_t devices = 1;           // catalog NicModel::devices
  std::string pci_vendor = "generic";  // catalog NicModel::pci_vendor
};

// One validated host template: graph, local resources and precomputed per-GPU facts (NIC choice).
struct Template {
  std::string name, cpu;
  std::uint32_t sockets = 1;
  bool pcie_p2p = true;
  HostGraph g;
  std::vector<ResourceInfo> res;  // names without host prefix
  std::vector<Vertex> socket_v;
  std::vector<std::uint32_t> memory_res;  // per socket
  // Per GPU: the socket I/O capacity of its rank's NCCL proxy (one thread per rank moves the data of all its socket
  // connections, sends and receives alike; socket_threads in the cluster file), local resource index.
  std::vector<std::uint32_t> socket_proxy;
  std::vector<std::string> gpu_names, gpu_models;
  std::vector<Vertex> gpu_v;
  std::vector<std::uint32_t> gpu_socket;
  std::vector<NicDev> nics;
  std::vector<Port> ports;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> bridge_res;  // (i, j) -> local i->j
  std::vector<std::uint32_t> nvsw_up, nvsw_down;  // per GPU, kNone when not on an NVSwitch
  std::vector<Time> nvl_latency;                  // per GPU
  std::vector<std::uint32_t> nic_choice;          // per GPU: local port ordinal, kNone without NICs
  Bandwidth port_total;                           // sum of cabled port speeds
  std::uint32_t socket_thread_count = 4;          // NCCL socket helper threads (socket_threads.threads)
  Bandwidth per_thread;                           // socket_threads.per_thread
  Bandwidth per_stream;                           // socket_threads.per_stream: one TCP connection's rate
  Time socket_latency{0};                         // socket_threads.latency: kernel TCP stack, per message, one way
  std::string threads_source;
  VirtDecl virt;  // template-level "hypervisor" / "vms"
};

struct HostInst {
  std::string name;
  std::uint32_t tmpl = 0, res_base = 0, port_base = 0, gpu_base = 0, leaf = 0;
  VirtDecl virt;  // host-entry "hypervisor" / "vms" (each replaces the template's when present)
};

// Routing facts of one host's virtualization layer.
struct HostVirt {
  bool has_vms = false;           // endpoints of this host are VM assignments
  bool hypervisor_none = false;   // "vms" are OS partitions (containers) of a bare-metal host
  std::uint32_t vswitch = kNone;  // global resource index of the host's virtual switch
  VirtOverheads overheads;
};

// Routing facts of one VM (global resource indices).
struct VmState {
  std::uint32_t port_local = kNone;                    // template port ordinal of the VM's NIC port
  std::uint32_t socket_proxy = kNone;                  // the VM's socket I/O capacity (sends and receives of its ranks)
  std::uint32_t no_ats_tx = kNone, no_ats_rx = kNone;  // GPU<->NIC P2P via the root complex (sriov/passthrough, no ATS)
  RdmaPortState rdma_port_state = RdmaPortState::Active;  // the nic's "rdma_port"
};

}  // namespace detail

struct Cluster::Impl {
  using Template = detail::Template;
  using HostInst = detail::HostInst;
  using Vertex = detail::Vertex;
  std::string name, description, file;
  std::vector<Template> templates;
  std::vector<HostInst> insts;
  std::vector<HostInfo> hosts;
  std::vector<GpuInfo> gpus;
  std::vector<NicInfo> nics;
  std::vector<ResourceInfo> resources;
  std::vector<GpuModel> gpu_models;  // per GPU (copies, so the cluster does not depend on the catalog's lifetime)
  // Fabric.
  bool leaf_spine = false;
  Time link_latency{0}, switch_latency{0};
  std::uint32_t spines = 0;
  std::vector<std::vector<std::uint32_t>> leaf_up, leaf_down;  // [leaf][spine] -> resource
  // Virtualization (virtualization.cpp).
  std::vector<detail::HostVirt> host_virt;  // per host
  std::vector<VmInfo> vms;
  std::vector<detail::VmState> vm_state;  // per VM
  std::vector<GpuEndpoint> endpoints;
  std::unordered_map<std::string, std::uint32_t> endpoint_by_name;

  const Template& tmpl_of_gpu(std::uint32_t g) const { return templates[insts[gpus[g].host].tmpl]; }

  void append(Path& p, const detail::HostRoute& r, std::uint32_t base) const {
    for (auto x : r.resources) p.resources.push_back(base + x);
    p.latency += r.latency;
  }

  // A GPU's copy of one step to or from host memory over route `r` (see Path::staged_s_per_byte).
  void staged_copy(Path& p, const detail::HostRoute& r, std::uint32_t base) const {
    double cap = std::numeric_limits<double>::infinity();
    for (auto x : r.resources) cap = std::min(cap, resources[base + x].capacity.bytes_per_s);
    if (cap > 0 && cap < std::numeric_limits<double>::infinity()) p.staged_s_per_byte += 1.0 / cap;
  }

  // Whether a GPU's NIC may read its memory directly when it sends (GDR read), under NCCL_NET_GDR_READ: 0 no, 1 yes;
  // NCCL's default (-2), paths.cc ncclTopoCheckGdr with read = 1: from 2.19 on for every GPU of compute capability
  // 8.0 or more (v2.19.1-1: "Disable GDR Reads pre-Ampere when we have other PCI flows"); otherwise only when the GPU
  // has an NVLink peer among the GPUs NCCL's topology holds, or (from 2.6.4) is its only GPU (v2.6.4-1 .. v2.30.7-1
  // paths.cc; v2.4.8-1 / v2.5.6-1 net.cc netGetGdrSupport: an NVLink peer only). NCCL's topology holds the GPUs of
  // the communicator's ranks on the node; `os_gpus` (the host's or VM's GPUs) stands for them [approximation: the
  // same when a job uses every GPU of its hosts or VMs].
  bool gdr_read(std::uint32_t gpu, const std::vector<std::uint32_t>& os_gpus, const PathOptions& o) const;

  // NCCL's net choice on a bare-metal host: one socket interface per cabled NIC port ("ethernet", the catalog's
  // speed and PCI vendor) and one ACTIVE RDMA port per cabled port of an RDMA NIC, in the template's NIC order.
  NetChoice host_net(const Template& t, const PathOptions& o, std::vector<NetInterface>* interfaces = nullptr,
                     std::vector<RdmaPort>* rdma_ports = nullptr) const;

  // A socket connection's streams, helper threads and cap (Path::socket_streams, socket_helpers, connection_cap) on
  // `p`: the counts are the listening (receiving) side's, which the sender adopts from its handle (net_socket.cc
  // ncclNetSocketListen / Connect, v2.5.6-1 :263-278); the per-stream rate is the slower side's. Helper threads are
  // not a limit here [assumption: each has a core of its own; the proxy-thread case is the socket-threads resource].
  static void set_socket_connection(Path& p, const NetChoice& listener, const Template& ta, const Template& tb) {
    p.socket_helpers = static_cast<std::uint32_t>(listener.socket_threads);
    p.socket_streams = listener.socket_threads > 0 ? p.socket_helpers * listener.sockets_per_thread : 1;
    const double stream = std::min(ta.per_stream.bytes_per_s, tb.per_stream.bytes_per_s);
    p.connection_cap = Bandwidth{p.socket_streams * stream};
  }

  // GPU -> NIC (send side) or NIC -> GPU (receive side, reverse=true) within one host.
  void host_leg(Path& p, std::uint32_t gpu, std::uint32_t port_local, bool gdr, bool sockets, bool receive) const {
    const HostInst& h = insts[gpus[gpu].host];
    const Template& t = templates[h.tmpl];
    const std::uint32_t lg = gpus[gpu].index_in_host;
    const Vertex gv = t.gpu_v[lg];
    const Vertex nv = t.nics[t.ports[port_local].nic].v;
    const std::uint32_t s = t.gpu_socket[lg];
    const Vertex sv = t.socket_v[s];
    if (gdr) {
      append(p, receive ? detail::pcie_route(t.g, nv, gv) : detail::pcie_route(t.g, gv, nv), h.res_base);
      return;
    }
    if (!receive) {
      const detail::HostRoute up = detail::pcie_route(t.g, gv, sv);
      append(p, up, h.res_base);
      staged_copy(p, up, h.res_base);
      p.resources.push_back(h.res_base + t.memory_res[s]);
      if (sockets) p.resources.push_back(h.res_base + t.socket_proxy[lg]);
      append(p, detail::pcie_route(t.g, sv, nv), h.res_base);
    } else {
      append(p, detail::pcie_route(t.g, nv, sv), h.res_base);
      if (sockets) p.resources.push_back(h.res_base + t.socket_proxy[lg]);
      p.resources.push_back(h.res_base + t.memory_res[s]);
      const detail::HostRoute down = detail::pcie_route(t.g, sv, gv);
      append(p, down, h.res_base);
      staged_copy(p, down, h.res_base);
    }
  }
};

namespace detail {
// Reads every host's "hypervisor" and "vms" (validated), adds VM resources after the existing ones and fills
// host_virt, vms, vm_state and endpoints (bare-metal hosts: one endpoint per GPU). Defined in virtualization.cpp.
void build_virtualization(Cluster::Impl& m, const Catalog& cat);
}  // namespace detail

}  // namespace vgsim::topo
