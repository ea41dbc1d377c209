// Which network transport and devices NCCL uses on a host or VM, from the interfaces and RDMA ports it would find:
// NCCL's own rules (public NVIDIA/nccl source, cited per rule in nccl_net_choice.cpp), as a pure function of what the
// cluster file declares and the NCCL_* knobs. Used by the cluster model to route network traffic and by every output
// that says which path NCCL took and by which rule.
// Units: speeds in Gb/s as the OS reports them (NCCL reads /sys/class/net/<if>/speed in Mb/s).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vgsim::topo {

// One network interface of a host or guest OS, in getifaddrs order (the order NCCL scans them in).
struct NetInterface {
  std::string name;                // "ens192", "ib0", "eno1", "docker0", "lo"
  std::string kind;                // "vmxnet3", "vf" (an SR-IOV function's netdev), "ethernet", "ipoib", "loopback"
  bool has_address = true;         // an IPv4 or non-loopback IPv6 address (NCCL skips interfaces without one)
  double reported_speed_gbps = 0;  // what the OS reports; 0 = unreadable (NCCL then assumes 10 Gb/s)
  std::string vendor = "generic";  // "aws" (PCI vendor 0x1d0f), "gcp" (0x1ae0) or "generic": socket thread defaults
};

// The state of an RDMA device's port as ibv_query_port reports it. "unmapped": the RDMA device is not associated with
// a network device (ibdev2netdev shows "==> (none)"), so its RoCE port has no link and is not ACTIVE.
enum class RdmaPortState : std::uint8_t { Active, Down, Unmapped };
const char* to_string(RdmaPortState s);
RdmaPortState parse_rdma_port_state(
    const std::string& s);  // "active", "down", "unmapped"; throws std::invalid_argument

struct RdmaPort {
  std::string device;  // "mlx5_0"
  RdmaPortState state = RdmaPortState::Active;
};

// The NCCL_* environment that decides the net transport (empty / false = unset).
struct NetChoiceKnobs {
  bool ib_disable = false;    // NCCL_IB_DISABLE=1
  std::string net;            // NCCL_NET: "IB" or "Socket" forces that transport (NCCL compares case-insensitively)
  std::string socket_ifname;  // NCCL_SOCKET_IFNAME: comma-separated prefixes; leading '^' excludes, '=' exact
  int nccl_minor = 30;        // NCCL 2.<minor>: the rules below changed at 2.5 (threads) and 2.28 (virbr excluded)
  int socket_nthreads = -2;   // NCCL_SOCKET_NTHREADS; -2 = auto (NCCL's default)
  int nsocks_perthread = -2;  // NCCL_NSOCKS_PERTHREAD; -2 = auto
};

enum class NetKind : std::uint8_t { IB, Socket };

struct NetChoice {
  NetKind transport = NetKind::IB;
  std::vector<std::uint32_t> devices;      // NetKind::IB: indices into the RDMA ports; Socket: into the interfaces
  std::optional<std::uint32_t> bootstrap;  // index into the interfaces: the first one ncclFindInterfaces returns
  std::vector<std::string> rules;          // the rules that decided, in order, each naming its NCCL source
  // NetKind::Socket: the rule that rejected NET/IB (one of `rules`) and what would bring IB back.
  std::string socket_rule, socket_fix;
  // Socket transport only: helper threads x sockets per thread of each connection (NCCL's defaults by version and
  // NIC vendor unless the knobs set them) and the speed NCCL believes each device has (Gb/s, device order).
  int socket_threads = 0, sockets_per_thread = 1;
  std::vector<double> device_speed_gbps;
};

// ncclFindInterfaces: the interfaces NCCL's socket layer uses (indices, scan order, at most 16), with the rule that
// chose them appended to `rules`.
std::vector<std::uint32_t> nccl_find_interfaces(const std::vector<NetInterface>& ifs, const NetChoiceKnobs& knobs,
                                                std::vector<std::string>& rules);

// NCCL's net transport choice (plugin aside: IB first, then Socket), its devices and bootstrap interface. Throws
// std::invalid_argument when NCCL itself would fail to initialise (NCCL_NET names a transport with no device, or no
// interface is left for sockets/bootstrap), naming the rule.
NetChoice choose_nccl_net(const std::vector<NetInterface>& ifs, const std::vector<RdmaPort>& ports,
                          const NetChoiceKnobs& knobs);

// One line: "NET/Socket on [0]ens192 (10 Gb/s as reported) ..." or "NET/IB on [0]mlx5_0", as NCCL's INFO log names
// the devices.
std::string describe(const NetChoice& c, const std::vector<NetInterface>& ifs, const std::vector<RdmaPort>& ports);

}  // namespace vgsim::topo
