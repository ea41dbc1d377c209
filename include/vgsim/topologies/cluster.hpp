// A cluster: hosts (CPU sockets / NUMA, PCIe switches and root ports, GPUs, NVLink, NICs), the Ethernet/IB fabric,
// and the directed resources (links and shared devices) that traffic crosses, each with a capacity and a source.
// path() answers "which resources does a byte cross from GPU a to GPU b with this transport", following NCCL's
// distance rules (NVL/PIX/PXB/PHB/SYS/NET, P2P and GDR levels). The Boost.Graph behind it is private to topologies/.
// Units: capacities in Bandwidth (bytes/s), latencies in Time.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/nccl_net_choice.hpp"
#include "vgsim/topologies/virtualization.hpp"

namespace vgsim::topo {

// NCCL's hwLatencies rows.
enum class LinkClass : std::uint8_t { NVLink, PCIe, Net };
// NCCL's path types, nearest first (LOC: same device; NET: through the network).
enum class PathType : std::uint8_t { LOC, NVL, PIX, PXB, PHB, SYS, NET };
// How NCCL moves the bytes.
enum class Transport : std::uint8_t { P2P, SHM, NetIB, NetSocket };

const char* to_string(LinkClass c);
const char* to_string(PathType t);
const char* to_string(Transport t);
PathType parse_path_type(const std::string& s);  // "NVL", "PIX", ...; throws UnitError on bad input

// NCCL_* knobs that change which transport and route are used.
struct PathOptions {
  PathType p2p_level = PathType::PXB;  // NCCL_P2P_LEVEL: furthest GPU-GPU distance using P2P
  PathType gdr_level = PathType::PXB;  // NCCL_NET_GDR_LEVEL: furthest GPU-NIC distance using GPUDirect RDMA
  bool p2p_disable = false;            // NCCL_P2P_DISABLE
  bool shm_disable = false;            // NCCL_SHM_DISABLE
  bool ib_disable = false;             // NCCL_IB_DISABLE: inter-node traffic uses TCP sockets
  bool gdr_disable = false;            // GPUDirect RDMA unavailable (e.g. no nvidia-peermem)
  std::string net;                     // NCCL_NET: "IB" or "Socket" forces that transport; "" = NCCL's choice
  std::string socket_ifname;           // NCCL_SOCKET_IFNAME ("" = unset: nccl_net_choice.hpp's default order)
  int nccl_minor = 30;                 // NCCL 2.<minor> (the interface and socket-thread rules by version)
  int gdr_read = -2;                   // NCCL_NET_GDR_READ: 0 sends staged, 1 GDR sends, -2 NCCL's default (gdr_read())
  int socket_nthreads = -2;            // NCCL_SOCKET_NTHREADS (0-16); -2 = NCCL's default by version and NIC vendor
  int nsocks_perthread = -2;           // NCCL_NSOCKS_PERTHREAD (1-64); -2 = NCCL's default

  // NCCL_IB_DISABLE=1 or NCCL_NET=Socket (any case, as NCCL compares it): the net transport is sockets everywhere.
  bool sockets_forced() const;
};

struct ResourceInfo {
  std::string name;  // "host0/gpu1/pcie-up", "leaf0->spine1", "host2/socket-threads", ...
  Bandwidth capacity;
  std::string kind;    // "nvlink", "pcie", "upi", "memory", "nic-port", "switch-link", "socket-threads", ...
  std::string source;  // where the capacity came from (catalog entry, preset, calibration)
};

struct Path {
  std::vector<std::uint32_t> resources;  // indices into Cluster::resources(), in traversal order
  Time latency{0};                       // wire, switch and PCIe latency along the route (not NCCL software latency)
  Transport transport = Transport::P2P;
  PathType type = PathType::LOC;
  LinkClass link_class = LinkClass::NVLink;
  bool gdr = false;               // NET only: GPUDirect RDMA both ways (the NIC reads and writes GPU memory directly)
  bool gdr_receive_only = false;  // NET only: GDR writes on the receiving side, sends staged (NCCL_NET_GDR_READ off)
  Bandwidth bottleneck;           // smallest capacity on the route
  // Store-and-forward through a host buffer (SHM, host-staged NET, sockets): a GPU copies a whole NCCL step into
  // pinned host memory before the peer (NIC proxy or GPU) may take it, and reads a step only once all of it has
  // arrived (NCCL net.cc / shm.cc: the tail pointer advances per step). Each staged copy adds step bytes / (slowest
  // link between the GPU and host memory) to the step's delivery: seconds per byte, summed over the staged copies.
  double staged_s_per_byte = 0.0;
  // NET over sockets: one NCCL connection's TCP streams (the listening side's threads x sockets per thread, or its
  // control socket alone when it has no helper threads; net_socket.cc) and helper threads, and the most the
  // connection moves: streams x the per-stream rate (socket_threads.per_stream; scaled by the sim's
  // capacity_scale "socket-stream"). Infinite elsewhere. A per-connection limit applied to each flow of the
  // connection, not a shared resource.
  std::uint32_t socket_streams = 0, socket_helpers = 0;
  Bandwidth connection_cap{std::numeric_limits<double>::infinity()};
};

struct GpuInfo {
  std::string name;  // "host0/gpu2"
  std::uint32_t host = 0;
  std::uint32_t index_in_host = 0;
  std::string model;  // catalog key
  std::uint32_t numa_node = 0;
};

// One NCCL network device: a cabled port of a NIC (a dual-port card cabled twice is two devices, as mlx5_0/mlx5_1).
struct NicInfo {
  std::string name;  // "host0/nic0/port1"
  std::uint32_t host = 0;
  std::string model;       // catalog key
  std::uint32_t port = 0;  // port number on the card
  std::uint32_t numa_node = 0;
  Bandwidth speed;  // line rate per direction
  bool rdma = true;
  std::uint32_t devices = 1;  // physical devices this port stands for (catalog NicModel::devices)
};

struct HostInfo {
  std::string name;
  std::vector<std::uint32_t> gpus;  // indices into Cluster::gpus()
  std::uint32_t nic_count = 0;      // cabled NIC ports (NCCL net devices)
  std::string cpu_model;
  std::string template_name;  // host template it was built from
  std::uint32_t sockets = 1;
  std::vector<std::uint32_t> nics;  // indices into Cluster::nics()
  bool pcie_p2p = true;             // false when the platform forbids PCIe peer-to-peer (e.g. "topo -p2p: NS")
};

class Cluster {
 public:
  // Loads a cluster JSON file (validated; errors name file, JSON path, value and expectation). Device models the file
  // defines in an optional top-level "catalog" object (the schema of a catalog file) are added to a copy of `catalog`
  // for this cluster (Catalog::add: a key `catalog` has must be the identical entry).
  static Cluster load(const std::string& file, const Catalog& catalog);
  static Cluster from_json(const Json& j, const std::string& file_label, const Catalog& catalog);
  // A preset name ("r750xa-4x-100gbe") or a path to a JSON file.
  static Cluster resolve(const std::string& preset_or_file, const Catalog& catalog);
  static std::vector<std::string> preset_names();
  // Directory of the preset JSON files ($VGSIM_DATA_DIR/topologies/presets, else the build-time source tree).
  static std::string presets_dir();

  Cluster(Cluster&&) noexcept;
  Cluster& operator=(Cluster&&) noexcept;
  ~Cluster();

  const std::string& name() const;
  const std::string& description() const;
  const std::vector<ResourceInfo>& resources() const;
  const std::vector<HostInfo>& hosts() const;
  const std::vector<GpuInfo>& gpus() const;
  const GpuModel& gpu_model(std::uint32_t gpu) const;
  const std::vector<NicInfo>& nics() const;
  const std::string& file() const;  // the file (or label) it was loaded from

  // Lookups by full name ("host0/gpu2", "host1/nic0/port0/tx"); nullopt when absent.
  std::optional<std::uint32_t> find_gpu(const std::string& name) const;
  std::optional<std::uint32_t> find_resource(const std::string& name) const;
  // The NIC port NCCL would use for this GPU: nearest by PCIe distance, ties spread by GPU index (round-robin).
  // nullopt when the GPU's host has no NIC.
  std::optional<std::uint32_t> nic_of(std::uint32_t gpu) const;
  // PCIe distance (PIX/PXB/PHB/SYS) between a GPU and a NIC port on the same host.
  PathType gpu_nic_distance(std::uint32_t gpu, std::uint32_t nic) const;

  // NCCL's net transport choice in the OS endpoint `ep` runs in (nccl_net_choice.hpp), from that OS's interfaces and
  // RDMA ports: a VM's declared or default ones (virtualization.cpp); on bare metal one netdev per cabled port
  // ("<nic>p<port>", the port's speed) and, on an RDMA NIC, one active RDMA device per cabled port. `interfaces` and
  // `rdma_ports` (when given) receive what the choice indexes. Throws std::invalid_argument when NCCL would fail.
  NetChoice nccl_net(std::uint32_t ep, const PathOptions& options, std::vector<NetInterface>* interfaces = nullptr,
                     std::vector<RdmaPort>* rdma_ports = nullptr) const;

  // Route and transport from GPU a to GPU b (a != b) under NCCL's rules and the given options.
  Path path(std::uint32_t gpu_a, std::uint32_t gpu_b, const PathOptions& options) const;

  // Virtualization (see virtualization.hpp and topologies/README.md). VMs in host order, then declaration order.
  const std::vector<VmInfo>& vms() const;
  // Placement targets: per host in host order, either one bare-metal endpoint per GPU (hosts without VMs) or the VMs'
  // GPU assignments in VM and declaration order (GPUs of a VM host assigned to no VM have no endpoint).
  const std::vector<GpuEndpoint>& endpoints() const;
  std::optional<std::uint32_t> find_endpoint(const std::string& name) const;
  // Route from endpoint a to endpoint b (a != b). Bare metal on both sides: exactly path(gpu_a, gpu_b). Otherwise the
  // virtualization rules apply: no P2P for MIG instances (SHM through host memory inside one OS, else the network), P2P
  // only over NVLink for vGPUs, never P2P/SHM between two VMs (network through each VM's NIC mode: vmxnet3 = sockets
  // through the VM's socket threads and the host vswitch; pvrdma = NetIB host-staged + pvrdma_latency; sriov or
  // passthrough = NetIB, GDR only with ATS and within gdr_level, without ATS P2P via the root complex at reduced rate).
  // Throws std::invalid_argument when a needed NIC is missing.
  Path endpoint_path(std::uint32_t ep_a, std::uint32_t ep_b, const PathOptions& options) const;
  // NVLS (NVLink SHARP) leg between endpoint `ep`'s GPU and its host's NVSwitch: to_switch = the GPU's NVLink "up"
  // resource alone, else its "down" resource alone (link class NVLink, that GPU's NVLink latency). nullopt when the
  // GPU is not on an NVSwitch or the endpoint is not a whole GPU (MIG instances and vGPUs cannot use NVLS).
  std::optional<Path> nvswitch_path(std::uint32_t ep, bool to_switch) const;

  // Opaque: defined in topologies/detail/cluster_impl.hpp, shared by the files of the topologies library only.
  struct Impl;

 private:
  explicit Cluster(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vgsim::topo
