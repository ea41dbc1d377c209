// NCCL's net transport, device and interface choice (see include/vgsim/topologies/nccl_net_choice.hpp). Every rule
// names the public NVIDIA/nccl source it follows; line numbers are at the release tags named.
#include "vgsim/topologies/nccl_net_choice.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "vgsim/topologies/cluster.hpp"

namespace vgsim::topo {

namespace {

// NCCL's MAX_IFS: ncclFindInterfaces returns at most 16 interfaces (src/include/socket.h).
constexpr std::size_t kMaxInterfaces = 16;
// The speed NCCL assumes when /sys/class/net/<if>/speed cannot be read (v2.18.3-1 net_socket.cc:75-92: "Defaulting
// to 10 Gbps").
constexpr double kDefaultSocketSpeedGbps = 10.0;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One NCCL interface list: parseStringList + matchIfList (src/misc/utils.cc): comma-separated prefixes (a ":port"
// suffix is ignored here), a leading '^' inverts the match, a leading '=' makes it exact.
struct IfList {
  bool exclude = false, exact = false;
  std::vector<std::string> prefixes;
};

IfList parse_if_list(std::string spec) {
  IfList l;
  if (!spec.empty() && spec[0] == '^') l.exclude = true, spec.erase(0, 1);
  if (!spec.empty() && spec[0] == '=') l.exact = true, spec.erase(0, 1);
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (const auto colon = item.find(':'); colon != std::string::npos) item.erase(colon);
    if (!item.empty()) l.prefixes.push_back(item);
  }
  return l;
}

bool matches(const IfList& l, const std::string& name) {
  // matchIfList: an empty list matches every interface.
  bool hit = l.prefixes.empty();
  for (const std::string& p : l.prefixes) hit = hit || (l.exact ? name == p : name.compare(0, p.size(), p) == 0);
  return hit != l.exclude;
}

// findInterfaces(prefixList): the interfaces with an address whose name passes the list, in scan order, one entry
// per name, at most kMaxInterfaces.
std::vector<std::uint32_t> find_with(const std::vector<NetInterface>& ifs, const std::string& spec) {
  const IfList l = parse_if_list(spec);
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < ifs.size() && out.size() < kMaxInterfaces; ++i) {
    if (!ifs[i].has_address || !matches(l, ifs[i].name)) continue;
    const bool dup = std::any_of(out.begin(), out.end(), [&](std::uint32_t j) { return ifs[j].name == ifs[i].name; });
    if (!dup) out.push_back(i);
  }
  return out;
}

std::string names(const std::vector<NetInterface>& ifs, const std::vector<std::uint32_t>& idx) {
  std::string s;
  for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + ifs[idx[k]].name;
  return s.empty() ? "none" : s;
}

// ncclNetSocketGetNsockNthread: helper threads x sockets per thread. Auto (-2): 2.4: 1 x 1 for a generic NIC
// (v2.4.8-1 net_socket.cc:196, 213-216); from 2.5.6 0 x 1 (the proxy thread drives one socket; v2.5.6-1
// net_socket.cc:197, 217; v2.18.3-1 :243, 260, 263); AWS (PCI vendor 0x1d0f) 2 x 8 in every version; GCP (0x1ae0)
// 4 x 1 from 2.5.6. At most 16 threads and 64 sockets (MAX_THREADS, MAX_SOCKETS).
void socket_threads(NetChoice& c, const NetInterface& first, const NetChoiceKnobs& k) {
  int nt = k.socket_nthreads, ns = k.nsocks_perthread;
  int auto_nt = k.nccl_minor <= 4 ? 1 : 0, auto_ns = 1;
  if (first.vendor == "aws") auto_nt = 2, auto_ns = 8;
  if (first.vendor == "gcp" && k.nccl_minor >= 5) auto_nt = 4, auto_ns = 1;
  if (nt == -2) nt = auto_nt;
  if (ns == -2) ns = auto_ns;
  nt = std::clamp(nt, 0, 16);
  ns = std::max(ns, 1);
  if (nt > 0 && nt * ns > 64) ns = 64 / nt;
  c.socket_threads = nt;
  c.sockets_per_thread = ns;
  const bool from_env = k.socket_nthreads != -2 || k.nsocks_perthread != -2;
  const std::string why = from_env
                              ? "NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD"
                              : "NCCL 2." + std::to_string(k.nccl_minor) + " default for a " + first.vendor + " NIC";
  c.rules.push_back("socket threads " + std::to_string(nt) + " x " + std::to_string(ns) + " sockets per thread (" +
                    why + "; net_socket.cc ncclNetSocketGetNsockNthread)");
}

}  // namespace

const char* to_string(RdmaPortState s) {
  switch (s) {
    case RdmaPortState::Active:
      return "active";
    case RdmaPortState::Down:
      return "down";
    case RdmaPortState::Unmapped:
      return "unmapped";
  }
  return "?";
}

RdmaPortState parse_rdma_port_state(const std::string& s) {
  if (s == "active") return RdmaPortState::Active;
  if (s == "down") return RdmaPortState::Down;
  if (s == "unmapped") return RdmaPortState::Unmapped;
  throw std::invalid_argument("'" + s + "' is not an RDMA port state (active, down or unmapped)");
}

bool PathOptions::sockets_forced() const { return ib_disable || lower(net) == "socket"; }

std::vector<std::uint32_t> nccl_find_interfaces(const std::vector<NetInterface>& ifs, const NetChoiceKnobs& knobs,
                                                std::vector<std::string>& rules) {
  // ncclFindInterfaces (v2.18.3-1 src/misc/socket.cc:322-356; v2.30 socket.cc): NCCL_SOCKET_IFNAME when set (more
  // than one character), else "ib*", else (NCCL_COMM_ID's subnet: not modelled) every interface but docker*, lo*
  // (and virbr* from 2.28.3), else docker*, then lo*, then (2.28) virbr*.
  if (knobs.socket_ifname.size() > 1) {
    auto r = find_with(ifs, knobs.socket_ifname);
    rules.push_back("NCCL_SOCKET_IFNAME=" + knobs.socket_ifname + " selects " + names(ifs, r) +
                    " (socket.cc ncclFindInterfaces)");
    return r;
  }
  auto r = find_with(ifs, "ib");
  if (!r.empty()) {
    rules.push_back("interfaces named ib* come first: " + names(ifs, r) + " (socket.cc ncclFindInterfaces)");
    return r;
  }
  const bool virbr = knobs.nccl_minor >= 28;
  r = find_with(ifs, virbr ? "^docker,lo,virbr" : "^docker,lo");
  if (!r.empty()) {
    rules.push_back(std::string("no ib* interface and NCCL_SOCKET_IFNAME unset: every interface with an address "
                                "except docker*, lo*") +
                    (virbr ? ", virbr*" : "") + " is used: " + names(ifs, r) + " (socket.cc ncclFindInterfaces)");
    return r;
  }
  for (const char* last : {"docker", "lo", "virbr"}) {
    if (std::string(last) == "virbr" && !virbr) break;
    r = find_with(ifs, last);
    if (!r.empty()) {
      rules.push_back(std::string("only ") + last + "* interfaces have an address: " + names(ifs, r) +
                      " (socket.cc ncclFindInterfaces, last resort)");
      return r;
    }
  }
  rules.push_back("no interface with an address (socket.cc ncclFindInterfaces)");
  return r;
}

NetChoice choose_nccl_net(const std::vector<NetInterface>& ifs, const std::vector<RdmaPort>& ports,
                          const NetChoiceKnobs& knobs) {
  NetChoice c;
  const std::vector<std::uint32_t> found = nccl_find_interfaces(ifs, knobs, c.rules);
  if (found.empty())
    throw std::invalid_argument("NCCL would fail to initialise: " + c.rules.back() +
                                "; NCCL needs one interface for bootstrap (bootstrap.cc)");
  // Bootstrap and the IB transport's out-of-band address take the first interface found (v2.18.3-1
  // bootstrap.cc:43, net_ib.cc:169).
  c.bootstrap = found.front();
  const std::string forced = lower(knobs.net);
  if (!forced.empty() && forced != "ib" && forced != "socket")
    throw std::invalid_argument("NCCL_NET='" + knobs.net +
                                "' names no transport NCCL has (IB or Socket; plugins "
                                "are not modelled)");
  // The IB transport: ports that are not IBV_PORT_ACTIVE are skipped (v2.8.4-1 net_ib.cc:166-168; v2.18.3-1
  // :210-212); with none left it reports 0 devices ("NET/IB : No device found.", an INFO line) and is rejected.
  std::vector<std::uint32_t> active;
  std::string skipped;
  for (std::uint32_t p = 0; p < ports.size(); ++p) {
    if (ports[p].state == RdmaPortState::Active)
      active.push_back(p);
    else
      skipped += (skipped.empty() ? "" : ", ") + ports[p].device + " (port " + to_string(ports[p].state) + ")";
  }
  const bool ib_allowed = !knobs.ib_disable && forced != "socket";
  if (ib_allowed && !active.empty()) {
    c.transport = NetKind::IB;
    c.devices = active;
    c.rules.push_back("NET/IB: " + std::to_string(active.size()) + " ACTIVE RDMA port(s)" +
                      (skipped.empty() ? std::string() : "; skipped " + skipped) +
                      " (net_ib.cc: ports not IBV_PORT_ACTIVE are skipped)");
    return c;
  }
  if (forced == "ib")
    throw std::invalid_argument("NCCL_NET=IB but no RDMA port is ACTIVE" +
                                (skipped.empty() ? std::string() : " (" + skipped + ")") +
                                ": NCCL fails to initialise (net.cc: the forced transport has 0 devices)");
  c.transport = NetKind::Socket;
  if (knobs.ib_disable) {
    c.rules.push_back("NCCL_IB_DISABLE=1: NET/Socket (net.cc)");
    c.socket_fix = "without NCCL_IB_DISABLE (--ib-disable) the RDMA port would carry IB verbs";
  } else if (forced == "socket") {
    c.rules.push_back("NCCL_NET=Socket (net.cc)");
    c.socket_fix = "without NCCL_NET=Socket (--net Socket) the RDMA port would carry IB verbs";
  } else if (ports.empty()) {
    c.rules.push_back("no RDMA device: NET/IB has 0 devices and is rejected, NCCL falls back to NET/Socket (net.cc)");
    c.socket_fix = "an RDMA device (RoCE or InfiniBand, or a VF or PVRDMA adapter in a VM) would carry IB verbs";
  } else {
    c.rules.push_back("no ACTIVE RDMA port (" + skipped +
                      "): NET/IB logs 'No device found.' at INFO level and is rejected; NCCL falls back to "
                      "NET/Socket silently (net_ib.cc, net.cc)");
    c.socket_fix =
        "an ACTIVE port (the RDMA device mapped to its netdev, link up: see ibdev2netdev) would carry IB verbs";
  }
  c.socket_rule = c.rules.back();
  // The socket transport uses every interface found as its own device (net_socket.cc ncclNetSocketInit).
  c.devices = found;
  for (std::uint32_t i : found)
    c.device_speed_gbps.push_back(ifs[i].reported_speed_gbps > 0 ? ifs[i].reported_speed_gbps
                                                                 : kDefaultSocketSpeedGbps);
  socket_threads(c, ifs[found.front()], knobs);
  return c;
}

std::string describe(const NetChoice& c, const std::vector<NetInterface>& ifs, const std::vector<RdmaPort>& ports) {
  std::string s = c.transport == NetKind::IB ? "NET/IB on" : "NET/Socket on";
  for (std::size_t k = 0; k < c.devices.size(); ++k) {
    s += " [" + std::to_string(k) + "]";
    if (c.transport == NetKind::IB) {
      s += ports[c.devices[k]].device;
      continue;
    }
    const NetInterface& f = ifs[c.devices[k]];
    std::ostringstream sp;
    sp << c.device_speed_gbps[k];
    s += f.name + " (" + f.kind + ", " + sp.str() + " Gb/s " +
         (f.reported_speed_gbps > 0 ? "as the OS reports it" : "assumed: speed unreadable") + ")";
  }
  if (c.bootstrap) s += "; bootstrap on " + ifs[*c.bootstrap].name;
  return s;
}

}  // namespace vgsim::topo
