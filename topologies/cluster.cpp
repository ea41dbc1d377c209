// Cluster loading, validation and NCCL-style routing (see include/vgsim/topologies/cluster.hpp).
// A cluster file declares host templates (sockets, PCIe switches, GPUs, NVLink bridges or an NVSwitch, NICs, socket
// threads), hosts built from them (with a count), and a fabric (one switch or leaf/spine). Each template is parsed
// and validated once into a Boost.Graph (topologies/detail) plus a block of LOCAL directed resources; every host
// instance copies the block with its name prefixed, so host h's resource k is resources()[base_h + k].
// Capacities: bytes/s per direction; PCIe links are rate x lanes x measured efficiency (catalog pcie); NIC ports at
// line rate. Nothing is cached between path() calls, so results never depend on query order.
#include "vgsim/topologies/cluster.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "topologies/detail/cluster_impl.hpp"
#include "topologies/detail/host_graph.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::topo {

namespace fs = std::filesystem;
using detail::EdgeKind;
using detail::EdgeProp;
using detail::HostGraph;
using detail::NodeKind;
using detail::NodeProp;
using detail::Vertex;

using detail::HostInst;
using detail::kNone;
using detail::NicDev;
using detail::Port;
using detail::Template;

const char* to_string(LinkClass c) {
  switch (c) {
    case LinkClass::NVLink:
      return "NVLink";
    case LinkClass::PCIe:
      return "PCIe";
    case LinkClass::Net:
      return "Net";
  }
  return "?";
}
const char* to_string(PathType t) {
  static const char* names[] = {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS", "NET"};
  return names[static_cast<int>(t)];
}
const char* to_string(Transport t) {
  switch (t) {
    case Transport::P2P:
      return "P2P";
    case Transport::SHM:
      return "SHM";
    case Transport::NetIB:
      return "NetIB";
    case Transport::NetSocket:
      return "NetSocket";
  }
  return "?";
}
PathType parse_path_type(const std::string& s) {
  const std::vector<std::string> names = {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS", "NET"};
  for (std::size_t i = 0; i < names.size(); ++i)
    if (s == names[i]) return static_cast<PathType>(i);
  const std::string g = did_you_mean(s, names);
  throw UnitError("'" + s + "' is not an NCCL path type (expected LOC, NVL, PIX, PXB, PHB, SYS or NET" +
                  (g.empty() ? std::string() : "; did you mean '" + g + "'?") + ")");
}

namespace {

std::string fmt_gbps(Bandwidth b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s", b.GBps());
  return buf;
}

// Where an NVLink resource's per-link rate came from: NCCL's topology model (nccl_per_link) or the datasheet.
std::string nvlink_rate_source(const GpuModel& m) {
  return m.nvlink_nccl_per_link < m.nvlink_per_link
             ? "NCCL topo.h per-link rate, datasheet " + fmt_gbps(m.nvlink_per_link)
             : std::string("datasheet");
}

std::string list_of(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Catalog lookups that report the cluster file location on failure.
template <class Map>
const typename Map::mapped_type& model_at(const Map& m, JsonReader& r, const std::string& key, const char* what) {
  const std::string k = r.string(key);
  auto it = m.find(k);
  if (it != m.end()) return it->second;
  std::vector<std::string> keys;
  for (const auto& [kk, v] : m) keys.push_back(kk);
  const std::string g = did_you_mean(k, keys);
  r.fail(key, std::string("unknown ") + what + " model (not in the catalog)",
         (g.empty() ? std::string() : "did you mean '" + g + "'? ") + "one of: " + list_of(keys));
}

std::uint32_t add_res(Template& t, std::string name, Bandwidth cap, std::string kind, std::string source) {
  t.res.push_back(ResourceInfo{std::move(name), cap, std::move(kind), std::move(source)});
  return static_cast<std::uint32_t>(t.res.size() - 1);
}

std::uint32_t gen_rank(const std::string& g) { return g == "gen3" ? 3 : g == "gen4" ? 4 : g == "gen5" ? 5 : 0; }

// A PCIe link between `child` and `parent`: two directed resources and a graph edge.
void add_pcie_link(Template& t, const Catalog& cat, Vertex child, Vertex parent, const std::string& child_name,
                   const std::string& child_gen, std::uint32_t lanes, const std::string& parent_gen) {
  const std::string gen = gen_rank(child_gen) <= gen_rank(parent_gen) ? child_gen : parent_gen;
  const PcieGen& pg = cat.pcie(gen);
  const Bandwidth cap = pg.per_lane * (static_cast<double>(lanes) * pg.efficiency);
  const std::string src = "PCIe " + gen + " x" + std::to_string(lanes) + " = " + fmt_gbps(pg.per_lane) + "/lane x " +
                          std::to_string(lanes) + " x efficiency " + std::to_string(pg.efficiency).substr(0, 4) +
                          " (catalog pcie." + gen + ": " + pg.source.substr(0, 80) + "...)";
  EdgeProp e;
  e.kind = EdgeKind::Pcie;
  e.from = static_cast<std::uint32_t>(child);
  e.res_fwd = add_res(t, child_name + "/pcie-up", cap, "pcie", src);
  e.res_back = add_res(t, child_name + "/pcie-down", cap, "pcie", src);
  e.latency = pg.hop_latency;
  boost::add_edge(child, parent, e, t.g);
}

// Parses an "attach" value: a socket ("socket1") or a switch name; an array of more than one is impossible wiring.
Vertex read_attach(JsonReader& r, const std::map<std::string, Vertex>& points, const std::string& what) {
  const Json& v = r.json().contains("attach") ? r.json()["attach"] : Json();
  r.allow("attach");
  std::vector<std::string> known;
  for (const auto& [k, x] : points) known.push_back(k);
  std::string name;
  if (v.is_array()) {
    if (v.size() != 1 || !v[0].is_string())
      r.fail("attach", "impossible wiring: a " + what + " attaches to exactly one PCIe switch or root port",
             "one of: " + list_of(known));
    name = v[0].get<std::string>();
  } else if (v.is_string()) {
    name = v.get<std::string>();
  } else {
    r.fail("attach", v.is_null() ? "missing required key" : "wrong type",
           "the name of a PCIe switch or a socket root port, one of: " + list_of(known));
  }
  auto it = points.find(name);
  if (it == points.end()) {
    const std::string g = did_you_mean(name, known);
    r.fail("attach", "dangling reference: no PCIe switch or socket named '" + name + "' in this host template",
           (g.empty() ? std::string() : "did you mean '" + g + "'? ") + "one of: " + list_of(known) +
               " (switches must be listed before the devices and switches attached to them)");
  }
  return it->second;
}

// --- Host templates -----------------------------------------------------------------------------------------------

// What later steps of a template refer to by name: one namespace for switches, GPUs and NICs, the PCIe points devices
// attach to (with the generation a device below each negotiates with), the GPUs, and which GPUs are NVLink-bridged.
struct Wiring {
  std::string tname;
  std::set<std::string> names;
  std::map<std::string, Vertex> attach_points;
  std::map<Vertex, std::string> point_gen;
  std::map<std::string, std::uint32_t> gpu_index;
  std::vector<std::uint32_t> bridge_links;  // per GPU: NVLink links its bridges use (0: in no bridge)
};

void claim(Wiring& w, JsonReader& d, const std::string& n) {
  if (n.rfind("socket", 0) == 0) d.fail("name", "reserved name (socketN names the root ports)", "another name");
  if (!w.names.insert(n).second)
    d.fail("name", "duplicated name in host template '" + w.tname + "'", "a unique device name");
}

// The template-local index of the GPU named `n` (a reference at JSON path `path`).
std::uint32_t gpu_ref(const Template& t, const Wiring& w, const std::string& file, const std::string& path,
                      const std::string& n) {
  auto it = w.gpu_index.find(n);
  if (it == w.gpu_index.end()) {
    const std::string g = did_you_mean(n, t.gpu_names);
    throw InputError(file, path, "dangling reference: no GPU named '" + n + "' in host template '" + w.tname + "'",
                     "\"" + n + "\"",
                     (g.empty() ? std::string() : "did you mean '" + g + "'? ") + "one of: " + list_of(t.gpu_names));
  }
  return it->second;
}

// The CPU model and the optional per-template overrides of its memory and inter-socket bandwidth.
struct HostCpu {
  const CpuModel* cpu = nullptr;
  std::optional<Bandwidth> memory_bandwidth, inter_socket;
};

HostCpu read_cpu(JsonReader& r, const Catalog& cat, Template& t) {
  HostCpu c;
  c.cpu = &model_at(cat.cpus(), r, "cpu", "CPU");
  t.cpu = c.cpu->key;
  t.sockets = static_cast<std::uint32_t>(r.integer("sockets", 1, 8));
  t.pcie_p2p = r.opt_boolean("pcie_p2p").value_or(true);
  c.memory_bandwidth = r.opt_bandwidth("memory_bandwidth");
  c.inter_socket = r.opt_bandwidth("inter_socket");
  return c;
}

// Sockets, their memory and the inter-socket links.
void add_sockets(Template& t, Wiring& w, const HostCpu& c) {
  const CpuModel& cpu = *c.cpu;
  const std::string& tname = t.name;
  for (std::uint32_t s = 0; s < t.sockets; ++s) {
    const std::string sn = "socket" + std::to_string(s);
    const Vertex v = boost::add_vertex(NodeProp{NodeKind::Socket, sn, s}, t.g);
    t.socket_v.push_back(v);
    w.attach_points[sn] = v;
    w.point_gen[v] = cpu.pcie_gen;
    const std::string src = c.memory_bandwidth ? "cluster file memory_bandwidth of template '" + tname + "'"
                                               : "catalog cpu " + cpu.key + ": " + cpu.source.substr(0, 100) + "...";
    const Bandwidth cap = c.memory_bandwidth.value_or(cpu.memory_bandwidth);
    t.memory_res.push_back(add_res(t, sn + "/memory", cap, "memory", src));
  }
  for (std::uint32_t a = 0; a < t.sockets; ++a)
    for (std::uint32_t b = a + 1; b < t.sockets; ++b) {
      const Bandwidth cap = c.inter_socket.value_or(cpu.inter_socket);
      const std::string src = c.inter_socket
                                  ? "cluster file inter_socket of template '" + tname + "'"
                                  : "catalog cpu " + cpu.key + " inter_socket (all UPI/xGMI links, per direction)";
      EdgeProp e;
      e.kind = EdgeKind::InterSocket;
      e.from = static_cast<std::uint32_t>(t.socket_v[a]);
      e.res_fwd = add_res(t, "socket" + std::to_string(a) + "->socket" + std::to_string(b), cap, "upi", src);
      e.res_back = add_res(t, "socket" + std::to_string(b) + "->socket" + std::to_string(a), cap, "upi", src);
      e.latency = cpu.inter_socket_latency;
      boost::add_edge(t.socket_v[a], t.socket_v[b], e, t.g);
    }
}

// PCIe switches (a switch attaches to a socket or to a switch listed before it).
void read_pcie_switches(JsonReader& r, Template& t, const Catalog& cat, Wiring& w) {
  for (JsonReader& s : r.opt_objects("pcie_switches")) {
    const std::string n = s.string("name");
    claim(w, s, n);
    const std::string gen = s.one_of("gen", {"gen3", "gen4", "gen5"});
    const auto lanes = static_cast<std::uint32_t>(s.integer("lanes", 1, 32));
    const Vertex parent = read_attach(s, w.attach_points, "PCIe switch");
    s.finish();
    const Vertex v = boost::add_vertex(NodeProp{NodeKind::Switch, n, t.g[parent].socket}, t.g);
    add_pcie_link(t, cat, v, parent, n, gen, lanes, w.point_gen[parent]);
    w.attach_points[n] = v;
    w.point_gen[v] = gen;
  }
}

void read_gpus(JsonReader& r, Template& t, const Catalog& cat, Wiring& w) {
  for (JsonReader& d : r.objects("gpus")) {
    const std::string n = d.string("name");
    claim(w, d, n);
    const GpuModel& m = model_at(cat.gpus(), d, "model", "GPU");
    const Vertex parent = read_attach(d, w.attach_points, "GPU");
    d.finish();
    const Vertex v = boost::add_vertex(NodeProp{NodeKind::Gpu, n, t.g[parent].socket}, t.g);
    add_pcie_link(t, cat, v, parent, n, m.pcie_gen, m.pcie_lanes, w.point_gen[parent]);
    w.gpu_index[n] = static_cast<std::uint32_t>(t.gpu_names.size());
    t.gpu_names.push_back(n);
    t.gpu_models.push_back(m.key);
    t.gpu_v.push_back(v);
    t.gpu_socket.push_back(t.g[parent].socket);
    t.nvl_latency.push_back(m.nvlink_latency);
  }
  t.nvsw_up.assign(t.gpu_names.size(), kNone);
  t.nvsw_down.assign(t.gpu_names.size(), kNone);
}

// One entry of "nvlink_bridges" as written: ["gpuA", "gpuB"] or {"gpus": [...], "links": N}.
struct BridgeDecl {
  const Json* json = nullptr;  // the entry
  std::string path;
  std::string a, b;  // GPU names
  std::optional<std::int64_t> links;
};

BridgeDecl read_bridge(const Json& entry, const std::string& file, const std::string& p) {
  BridgeDecl d;
  d.json = &entry;
  d.path = p;
  const Json* members = &entry;
  std::optional<JsonReader> obj;
  if (entry.is_object()) {
    obj.emplace(entry, file, p);
    d.links = obj->opt_integer("links", 1, 64);
    obj->allow("gpus");
    members = entry.contains("gpus") ? &entry["gpus"] : nullptr;
    obj->finish();
  }
  if (!members || !members->is_array() ||
      !std::all_of(members->begin(), members->end(), [](const Json& x) { return x.is_string(); }))
    throw InputError(file, p, "wrong type", json_snippet(entry),
                     "[\"gpuA\", \"gpuB\"] or {\"gpus\": [\"gpuA\", \"gpuB\"], \"links\": N}");
  if (members->size() != 2)
    throw InputError(file, p, "impossible wiring: an NVLink bridge joins exactly two GPUs", json_snippet(entry),
                     "two GPU names");
  d.a = (*members)[0].get<std::string>();
  d.b = (*members)[1].get<std::string>();
  if (d.a == d.b)
    throw InputError(file, p, "impossible wiring: a bridge lists the same GPU twice", json_snippet(entry),
                     "two different GPUs");
  return d;
}

// A bridge between two distinct GPUs, each with at most one bridge partner: two directed NVLink resources.
void add_bridge(Template& t, const Catalog& cat, Wiring& w, const std::string& file, const BridgeDecl& d) {
  const std::string& p = d.path;
  const std::uint32_t a = gpu_ref(t, w, file, p, d.a), b = gpu_ref(t, w, file, p, d.b);
  if (t.bridge_res.count({a, b}))
    throw InputError(file, p, "impossible wiring: GPUs '" + d.a + "' and '" + d.b + "' are already bridged",
                     json_snippet(*d.json), "one entry per GPU pair (its \"links\" count the links)");
  const GpuModel& ma = cat.gpu(t.gpu_models[a]);
  const GpuModel& mb = cat.gpu(t.gpu_models[b]);
  const std::uint32_t max_links = std::min(ma.nvlink_links, mb.nvlink_links);
  if (max_links == 0)
    throw InputError(file, p, "impossible wiring: GPU model without NVLink in a bridge", json_snippet(*d.json),
                     "GPUs whose catalog model has NVLink links");
  const std::uint32_t n = d.links ? static_cast<std::uint32_t>(*d.links) : max_links;
  if (n > max_links)
    throw InputError(file, p + ".links", "more NVLink links than the GPU models have", std::to_string(n),
                     "at most " + std::to_string(max_links));
  // A mesh (e.g. DGX-1's hybrid cube-mesh) is several bridges per GPU within its link count.
  for (std::uint32_t x : {a, b}) {
    const std::uint32_t links = cat.gpu(t.gpu_models[x]).nvlink_links;
    if (w.bridge_links[x] + n > links)
      throw InputError(file, p,
                       "impossible wiring: GPU '" + t.gpu_names[x] + "' would have " +
                           std::to_string(w.bridge_links[x] + n) + " NVLink links in all its bridges",
                       json_snippet(*d.json),
                       "at most the " + std::to_string(links) + " links of its catalog model over all its bridges");
    w.bridge_links[x] += n;
  }
  const Bandwidth per = std::min(ma.nvlink_nccl_per_link, mb.nvlink_nccl_per_link);
  const Bandwidth cap = per * static_cast<double>(n);
  const std::string src = std::to_string(n) + " NVLink links x " + fmt_gbps(per) + " per direction (catalog " + ma.key +
                          " nvlink: " + nvlink_rate_source(ma) + ")";
  EdgeProp e;
  e.kind = EdgeKind::NvLink;
  e.from = static_cast<std::uint32_t>(t.gpu_v[a]);
  e.res_fwd = add_res(t, d.a + "->" + d.b + "/nvlink", cap, "nvlink", src);
  e.res_back = add_res(t, d.b + "->" + d.a + "/nvlink", cap, "nvlink", src);
  e.latency = std::max(ma.nvlink_latency, mb.nvlink_latency);
  boost::add_edge(t.gpu_v[a], t.gpu_v[b], e, t.g);
  t.bridge_res[{a, b}] = e.res_fwd;
  t.bridge_res[{b, a}] = e.res_back;
}

// NVLink bridges: each joins exactly two distinct GPUs; a GPU may be in several (a mesh) within its model's links.
void read_nvlink_bridges(JsonReader& r, Template& t, const Catalog& cat, Wiring& w) {
  w.bridge_links.assign(t.gpu_names.size(), 0);
  if (!r.has("nvlink_bridges")) return;
  const Json& arr = r.json()["nvlink_bridges"];
  r.allow("nvlink_bridges");
  const std::string bpath = r.path_of("nvlink_bridges");
  if (!arr.is_array()) r.fail("nvlink_bridges", "wrong type", "an array of [\"gpuA\", \"gpuB\"] pairs");
  for (std::size_t i = 0; i < arr.size(); ++i)
    add_bridge(t, cat, w, r.file(), read_bridge(arr[i], r.file(), bpath + "[" + std::to_string(i) + "]"));
}

// NVSwitch: every listed GPU gets an up and a down resource of links x per-link bandwidth.
void read_nvswitch(JsonReader& r, Template& t, const Catalog& cat, const Wiring& w) {
  auto nv = r.opt_object("nvswitch");
  if (!nv) return;
  const std::vector<std::string> members = nv->strings("gpus");
  nv->finish();
  const Vertex sw = boost::add_vertex(NodeProp{NodeKind::NvSwitch, "nvswitch", 0}, t.g);
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::string p = nv->path_of("gpus") + "[" + std::to_string(i) + "]";
    const std::uint32_t gi = gpu_ref(t, w, nv->file(), p, members[i]);
    if (!seen.insert(gi).second)
      throw InputError(r.file(), p, "impossible wiring: GPU listed twice on the NVSwitch", members[i], "distinct GPUs");
    if (w.bridge_links[gi] > 0)
      throw InputError(r.file(), p, "impossible wiring: GPU is both NVLink-bridged and on the NVSwitch", members[i],
                       "either a bridge or the NVSwitch");
    const GpuModel& m = cat.gpu(t.gpu_models[gi]);
    if (m.nvlink_links == 0)
      throw InputError(r.file(), p, "impossible wiring: GPU model without NVLink on an NVSwitch", members[i],
                       "a GPU whose catalog model has NVLink links");
    const Bandwidth cap = m.nvlink_nccl_per_link * static_cast<double>(m.nvlink_links);
    const std::string src = std::to_string(m.nvlink_links) + " NVLink links x " + fmt_gbps(m.nvlink_nccl_per_link) +
                            " per direction (catalog " + m.key + " nvlink: " + nvlink_rate_source(m) + ")";
    EdgeProp e;
    e.kind = EdgeKind::NvLink;
    e.from = static_cast<std::uint32_t>(t.gpu_v[gi]);
    e.res_fwd = add_res(t, members[i] + "/nvlink-up", cap, "nvlink", src);
    e.res_back = add_res(t, members[i] + "/nvlink-down", cap, "nvlink", src);
    e.latency = m.nvlink_latency;
    boost::add_edge(t.gpu_v[gi], sw, e, t.g);
    t.nvsw_up[gi] = e.res_fwd;
    t.nvsw_down[gi] = e.res_back;
  }
}

// NICs: "ports" is the number of cabled ports (each one an NCCL net device), at most the model's.
void read_nics(JsonReader& r, Template& t, const Catalog& cat, Wiring& w) {
  for (JsonReader& d : r.opt_objects("nics")) {
    const std::string n = d.string("name");
    claim(w, d, n);
    const NicModel& m = model_at(cat.nics(), d, "model", "NIC");
    const auto ports = static_cast<std::uint32_t>(d.opt_integer("ports", 1, 64).value_or(m.ports));
    if (ports > m.ports)
      d.fail("ports", "impossible wiring: more cabled ports than the NIC model has",
             "at most " + std::to_string(m.ports) + " (catalog " + m.key + ")");
    const Vertex parent = read_attach(d, w.attach_points, "NIC");
    d.finish();
    const Vertex v = boost::add_vertex(NodeProp{NodeKind::Nic, n, t.g[parent].socket}, t.g);
    add_pcie_link(t, cat, v, parent, n, m.pcie_gen, m.pcie_lanes, w.point_gen[parent]);
    const auto ni = static_cast<std::uint32_t>(t.nics.size());
    t.nics.push_back(NicDev{n, m.key, v, t.g[parent].socket, ports, m.port_speed, m.rdma, m.devices, m.pci_vendor});
    for (std::uint32_t p = 0; p < ports; ++p) {
      const std::string pn = n + "/port" + std::to_string(p);
      const std::string src = "line rate of catalog " + m.key + " (" + fmt_gbps(m.port_speed) + " per direction)";
      Port port{ni, p, add_res(t, pn + "/tx", m.port_speed, "nic-port", src),
                add_res(t, pn + "/rx", m.port_speed, "nic-port", src)};
      t.ports.push_back(port);
      t.port_total.bytes_per_s += m.port_speed.bytes_per_s;
    }
  }
}

// Socket threads of NCCL's TCP transport: capacity threads x per-thread copy rate; and per cabled port a TCP goodput
// resource, line rate x TCP payload efficiency (NetSocket paths cross both: threads or wire, whichever binds). Defaults
// (used when the file has no socket_threads block), each with its source:
//  - threads 1: NCCL_SOCKET_NTHREADS default per env.rst (docs/SOURCES.md#nccl-net; the code's generic auto is 0 = the
//    proxy thread only, also one copying thread); NSOCKS_PERTHREAD default 1.
//  - per_thread 5 GB/s: ESTIMATE, the middle of the 4-6 GB/s busbw the untuned (one thread, one socket) transport
//    reaches on 100 GbE (docs/SOURCES.md#measured-bandwidths, nccl#450), i.e. what one thread's copies + kernel TCP
//    sustain.
//  - payload_efficiency 1448/1538 = 0.9415: standard 1500 B MTU, TCP payload 1500 - 20 (IPv4) - 20 (TCP) - 12 (TCP
//    timestamps, on by default in Linux) = 1448 B per frame; wire bytes per frame 1500 + 14 (Ethernet header)
//    + 4 (FCS) + 8 (preamble/SFD) + 12 (inter-frame gap) = 1538 B (IEEE 802.3 framing, RFC 791/793/7323 headers).
//  - latency 15 us: ASSUMPTION, kernel TCP stack cost per message one way (send syscall, softirq, receive wake-up);
//    netperf TCP_RR round trips on 10-25 GbE are a few tens of us (docs/SOURCES.md#vm-network: "tens to hundreds of
//    us").
//  - per_stream 25 Gb/s: ASSUMPTION, bounded 15-35 Gb/s, what one TCP connection sustains on a tuned 100G host
//    (ESnet fasterdata, "Performance Expectations for a 100G Host", 2024; docs/SOURCES.md#socket-streams). A
//    connection of NCCL's socket transport runs on its sockets (net_socket.cc: the control socket alone, or
//    threads x sockets per thread), so it moves at most sockets x per_stream (Path::connection_cap).
struct SocketThreads {
  std::int64_t threads = 1;
  Bandwidth per = Bandwidth::from_GBps(5.0);
  Bandwidth per_stream = Bandwidth::from_Gbps(25.0);
  double payload_eff = 1448.0 / 1538.0;
  Time lat = Time::from_s(15e-6);
  std::string src =
      "default: 1 thread (NCCL_SOCKET_NTHREADS default, docs/SOURCES.md#nccl-net) x 5 GB/s (ESTIMATE: untuned "
      "TCP 100GbE busbw 4-6 GB/s, docs/SOURCES.md#measured-bandwidths, nccl#450), capped at line rate x 1448/1538 "
      "(TCP payload per 1500 B MTU frame)";
};

SocketThreads read_socket_threads(JsonReader& r) {
  SocketThreads s;
  if (auto st = r.opt_object("socket_threads")) {
    s.threads = st->integer("threads", 1, 64);
    s.per = st->bandwidth("per_thread");
    if (auto e = st->opt_number("payload_efficiency")) {
      if (!(*e > 0.0 && *e <= 1.0)) st->fail("payload_efficiency", "not a fraction", "a number in (0, 1]");
      s.payload_eff = *e;
    }
    if (auto l = st->opt_time("latency")) s.lat = *l;
    if (st->has("per_stream")) s.per_stream = st->bandwidth("per_stream");
    s.src = "cluster file socket_threads (" + std::to_string(s.threads) + " x " + fmt_gbps(s.per) + ", per stream " +
            fmt_gbps(s.per_stream) + ", wire payload efficiency " + std::to_string(s.payload_eff) +
            "): " + st->opt_string("source").value_or("no source given");
    st->finish();
  }
  return s;
}

// The TCP goodput resources of every cabled port and one socket-I/O resource per GPU (rank).
void add_socket_resources(Template& t, const SocketThreads& s) {
  t.socket_thread_count = static_cast<std::uint32_t>(s.threads);
  t.per_thread = s.per;
  t.per_stream = s.per_stream;
  t.socket_latency = s.lat;
  t.threads_source = s.src;
  const Bandwidth cap = s.per * static_cast<double>(s.threads);
  for (Port& port : t.ports) {
    const std::string pn = t.nics[port.nic].name + "/port" + std::to_string(port.port);
    const Bandwidth wire = t.nics[port.nic].speed * s.payload_eff;
    const std::string wsrc = "line rate x TCP payload efficiency " + std::to_string(s.payload_eff) + " (" + s.src + ")";
    port.tcp_tx = add_res(t, pn + "/tcp-tx", wire, "socket-wire", wsrc);
    port.tcp_rx = add_res(t, pn + "/tcp-rx", wire, "socket-wire", wsrc);
  }
  // One socket-I/O resource per GPU (rank), shared by its sends and receives: NCCL's socket transport moves the data
  // on the rank's proxy thread by default (net_socket.cc from 2.6: 0 helper threads for a generic NIC, "progress
  // request using main thread"; one proxy thread per communicator per rank, nccl#374; docs/SOURCES.md#nccl-paths);
  // with helper threads (socket_threads.threads > 1) they serve the same rank.
  for (std::size_t g = 0; g < t.gpu_names.size(); ++g)
    t.socket_proxy.push_back(add_res(t, t.gpu_names[g] + "/socket-threads", cap, "socket-threads",
                                     s.src + "; one per rank, sends and receives share it"));
}

// The raw "hypervisor" / "vms" of a host template or host entry, read once the hosts exist (virtualization.cpp).
detail::VirtDecl read_virt_decl(JsonReader& r) {
  detail::VirtDecl virt;
  virt.path = r.path();
  for (const char* k : {"hypervisor", "vms"})
    if (r.has(k)) {
      r.allow(k);
      (std::string(k) == "vms" ? virt.vms : virt.hypervisor) = r.json()[k];
    }
  return virt;
}

// NIC choice per GPU: nearest ports by PCIe distance; ties spread round-robin by GPU index.
void choose_nics(Template& t) {
  for (std::uint32_t gi = 0; gi < t.gpu_v.size(); ++gi) {
    std::vector<std::uint32_t> best;
    PathType best_t = PathType::NET;
    for (std::uint32_t p = 0; p < t.ports.size(); ++p) {
      const PathType d = detail::pcie_route(t.g, t.gpu_v[gi], t.nics[t.ports[p].nic].v).type;
      if (d < best_t) best_t = d, best.clear();
      if (d == best_t) best.push_back(p);
    }
    t.nic_choice.push_back(best.empty() ? kNone : best[gi % best.size()]);
  }
}

Template parse_template(const std::string& tname, JsonReader& r, const Catalog& cat) {
  Template t;
  t.name = tname;
  const HostCpu cpu = read_cpu(r, cat, t);
  Wiring w;
  w.tname = tname;
  add_sockets(t, w, cpu);
  read_pcie_switches(r, t, cat, w);
  read_gpus(r, t, cat, w);
  read_nvlink_bridges(r, t, cat, w);
  read_nvswitch(r, t, cat, w);
  read_nics(r, t, cat, w);
  add_socket_resources(t, read_socket_threads(r));
  t.virt = read_virt_decl(r);
  r.finish();
  choose_nics(t);
  return t;
}

// --- The cluster: templates, hosts, their instances, the fabric ----------------------------------------------------

// Parses every template of "host_templates" (comment keys aside); returns template name -> index.
std::map<std::string, std::uint32_t> read_templates(JsonReader& r, Cluster::Impl& m, const Catalog& cat) {
  std::map<std::string, std::uint32_t> tmpl_index;
  JsonReader tr = r.object("host_templates");
  for (auto it = tr.json().begin(); it != tr.json().end(); ++it) {
    if (it.key() == "source" || it.key() == "notes" || it.key() == "note" || it.key() == "comment" ||
        it.key() == "sources")
      continue;
    JsonReader one = tr.object(it.key());
    tmpl_index[it.key()] = static_cast<std::uint32_t>(m.templates.size());
    m.templates.push_back(parse_template(it.key(), one, cat));
  }
  tr.finish();
  if (m.templates.empty()) tr.fail("", "no host template", "at least one named host template");
  return tmpl_index;
}

// One entry of "hosts": `count` hosts of a template, named by "name" or "name_prefix" + host index.
void read_host_entry(JsonReader& hr, Cluster::Impl& m, const std::map<std::string, std::uint32_t>& tmpl_index,
                     std::set<std::string>& host_names) {
  const std::string tn = hr.string("template");
  auto it = tmpl_index.find(tn);
  if (it == tmpl_index.end()) {
    std::vector<std::string> tmpl_names;
    for (const auto& [k, v] : tmpl_index) tmpl_names.push_back(k);
    const std::string g = did_you_mean(tn, tmpl_names);
    hr.fail("template", "dangling reference: no host template named '" + tn + "'",
            (g.empty() ? std::string() : "did you mean '" + g + "'? ") + "one of: " + list_of(tmpl_names));
  }
  const auto count = static_cast<std::uint32_t>(hr.opt_integer("count", 1, 100000).value_or(1));
  const std::optional<std::string> fixed = hr.opt_string("name");
  const std::string prefix = hr.opt_string("name_prefix").value_or("host");
  if (fixed && count != 1) hr.fail("name", "a fixed name needs count 1", "\"name_prefix\" for several hosts");
  const detail::VirtDecl virt = read_virt_decl(hr);
  hr.finish();
  for (std::uint32_t k = 0; k < count; ++k) {
    HostInst h;
    h.name = fixed ? *fixed : prefix + std::to_string(m.insts.size());
    if (!host_names.insert(h.name).second)
      hr.fail(fixed ? "name" : "name_prefix", "duplicated host name '" + h.name + "'", "unique host names");
    h.tmpl = it->second;
    h.virt = virt;
    m.insts.push_back(h);
  }
}

void read_hosts(JsonReader& r, Cluster::Impl& m, const std::map<std::string, std::uint32_t>& tmpl_index) {
  std::set<std::string> host_names;
  for (JsonReader& hr : r.objects("hosts")) read_host_entry(hr, m, tmpl_index, host_names);
  if (m.insts.empty()) r.fail("hosts", "no hosts", "at least one host");
}

// Host hi's copy of its template: resources (names prefixed with the host's), GPUs and NIC ports.
void instantiate_host(Cluster::Impl& m, std::uint32_t hi, const Catalog& cat) {
  HostInst& h = m.insts[hi];
  const Template& t = m.templates[h.tmpl];
  h.res_base = static_cast<std::uint32_t>(m.resources.size());
  h.port_base = static_cast<std::uint32_t>(m.nics.size());
  h.gpu_base = static_cast<std::uint32_t>(m.gpus.size());
  for (const auto& ri : t.res)
    m.resources.push_back(ResourceInfo{h.name + "/" + ri.name, ri.capacity, ri.kind, ri.source});
  HostInfo info;
  info.name = h.name;
  info.cpu_model = t.cpu;
  info.template_name = t.name;
  info.sockets = t.sockets;
  info.pcie_p2p = t.pcie_p2p;
  for (std::uint32_t g = 0; g < t.gpu_names.size(); ++g) {
    const auto gi = static_cast<std::uint32_t>(m.gpus.size());
    m.gpus.push_back(GpuInfo{h.name + "/" + t.gpu_names[g], hi, g, t.gpu_models[g], t.gpu_socket[g]});
    m.gpu_models.push_back(cat.gpu(t.gpu_models[g]));
    info.gpus.push_back(gi);
  }
  for (const Port& p : t.ports) {
    const NicDev& d = t.nics[p.nic];
    info.nics.push_back(static_cast<std::uint32_t>(m.nics.size()));
    m.nics.push_back(NicInfo{h.name + "/" + d.name + "/port" + std::to_string(p.port), hi, d.model, p.port, d.socket,
                             d.speed, d.rdma, d.devices});
  }
  info.nic_count = static_cast<std::uint32_t>(t.ports.size());
  m.hosts.push_back(std::move(info));
}

void instantiate_hosts(Cluster::Impl& m, const Catalog& cat) {
  std::size_t total_res = 0;
  for (const auto& h : m.insts) total_res += m.templates[h.tmpl].res.size();
  m.resources.reserve(total_res + 64);
  for (std::uint32_t hi = 0; hi < m.insts.size(); ++hi) instantiate_host(m, hi, cat);
}

// Leaf/spine: hosts_per_leaf hosts per leaf; each leaf-spine link carries the leaf's host-facing bandwidth divided by
// oversubscription x spines.
void add_leaf_spine(JsonReader& fr, Cluster::Impl& m) {
  m.leaf_spine = true;
  const auto per_leaf = static_cast<std::uint32_t>(fr.integer("hosts_per_leaf", 1, 100000));
  m.spines = static_cast<std::uint32_t>(fr.integer("spines", 1, 4096));
  const double over = fr.number("oversubscription", 1.0, 1000.0);
  const std::uint32_t leaves = static_cast<std::uint32_t>((m.insts.size() + per_leaf - 1) / per_leaf);
  std::vector<double> down_bw(leaves, 0.0);
  for (std::uint32_t hi = 0; hi < m.insts.size(); ++hi) {
    m.insts[hi].leaf = hi / per_leaf;
    down_bw[hi / per_leaf] += m.templates[m.insts[hi].tmpl].port_total.bytes_per_s;
  }
  m.leaf_up.assign(leaves, {});
  m.leaf_down.assign(leaves, {});
  for (std::uint32_t l = 0; l < leaves; ++l)
    for (std::uint32_t s = 0; s < m.spines; ++s) {
      const Bandwidth cap{down_bw[l] / (over * m.spines)};
      char src[200];
      std::snprintf(src, sizeof src,
                    "leaf host-facing bandwidth %.4g GB/s / (oversubscription %.3g x %u spines), cluster file fabric",
                    down_bw[l] * 1e-9, over, m.spines);
      m.leaf_up[l].push_back(static_cast<std::uint32_t>(m.resources.size()));
      m.resources.push_back(
          ResourceInfo{"leaf" + std::to_string(l) + "->spine" + std::to_string(s), cap, "switch-link", src});
      m.leaf_down[l].push_back(static_cast<std::uint32_t>(m.resources.size()));
      m.resources.push_back(
          ResourceInfo{"spine" + std::to_string(s) + "->leaf" + std::to_string(l), cap, "switch-link", src});
    }
}

// "fabric": one switch or leaf/spine; required when the cluster has several hosts.
void read_fabric(JsonReader& r, Cluster::Impl& m) {
  const bool needs_fabric = m.insts.size() > 1;
  if (auto fr = r.opt_object("fabric")) {
    const std::string type = fr->one_of("type", {"switch", "leaf-spine"});
    m.link_latency = fr->time("link_latency");
    m.switch_latency = fr->time("switch_latency");
    if (type == "leaf-spine") add_leaf_spine(*fr, m);
    fr->finish();
  } else if (needs_fabric) {
    r.fail("fabric", "missing required key (the cluster has several hosts)",
           "{\"type\": \"switch\" | \"leaf-spine\", \"link_latency\": ..., \"switch_latency\": ...}");
  }
}

}  // namespace

Cluster::Cluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Cluster::Cluster(Cluster&&) noexcept = default;
Cluster& Cluster::operator=(Cluster&&) noexcept = default;
Cluster::~Cluster() = default;

const std::string& Cluster::name() const { return impl_->name; }
const std::string& Cluster::description() const { return impl_->description; }
const std::string& Cluster::file() const { return impl_->file; }
const std::vector<ResourceInfo>& Cluster::resources() const { return impl_->resources; }
const std::vector<HostInfo>& Cluster::hosts() const { return impl_->hosts; }
const std::vector<GpuInfo>& Cluster::gpus() const { return impl_->gpus; }
const std::vector<NicInfo>& Cluster::nics() const { return impl_->nics; }
const GpuModel& Cluster::gpu_model(std::uint32_t gpu) const { return impl_->gpu_models.at(gpu); }

// Linear scans: only tests and tools look names up, and an index of every resource name cost a 100,000-GPU cluster
// about a million map entries at load time.
std::optional<std::uint32_t> Cluster::find_gpu(const std::string& n) const {
  for (std::uint32_t i = 0; i < impl_->gpus.size(); ++i)
    if (impl_->gpus[i].name == n) return i;
  return std::nullopt;
}
std::optional<std::uint32_t> Cluster::find_resource(const std::string& n) const {
  for (std::uint32_t i = 0; i < impl_->resources.size(); ++i)
    if (impl_->resources[i].name == n) return i;
  return std::nullopt;
}

std::optional<std::uint32_t> Cluster::nic_of(std::uint32_t gpu) const {
  const Impl& m = *impl_;
  const GpuInfo& g = m.gpus.at(gpu);
  const std::uint32_t p = m.tmpl_of_gpu(gpu).nic_choice[g.index_in_host];
  if (p == kNone) return std::nullopt;
  return m.insts[g.host].port_base + p;
}

PathType Cluster::gpu_nic_distance(std::uint32_t gpu, std::uint32_t nic) const {
  const Impl& m = *impl_;
  const GpuInfo& g = m.gpus.at(gpu);
  const NicInfo& n = m.nics.at(nic);
  if (n.host != g.host) return PathType::NET;
  const Template& t = m.tmpl_of_gpu(gpu);
  const std::uint32_t p = nic - m.insts[g.host].port_base;
  return detail::pcie_route(t.g, t.gpu_v[g.index_in_host], t.nics[t.ports[p].nic].v).type;
}

namespace {
// A NET route's GPUDirect legs between bare-metal GPUs a (sending) and b (receiving) over NIC ports na / nb: each
// within NCCL_NET_GDR_LEVEL of its NIC, the sender also allowed to read (Impl::gdr_read); sets p.gdr (both) and
// p.gdr_receive_only (the receiver writes GPU memory while the sender stages, NCCL_NET_GDR_READ off).
std::pair<bool, bool> gdr_legs(const Cluster& c, const Cluster::Impl& m, Path& p, std::uint32_t a, std::uint32_t b,
                               std::uint32_t na, std::uint32_t nb, bool rdma, const PathOptions& o) {
  const bool near_a = rdma && !o.gdr_disable && c.gpu_nic_distance(a, na) <= o.gdr_level;
  const bool gdr_a = near_a && m.gdr_read(a, m.hosts[m.gpus[a].host].gpus, o);
  const bool gdr_b = rdma && !o.gdr_disable && c.gpu_nic_distance(b, nb) <= o.gdr_level;
  p.gdr = gdr_a && gdr_b;
  p.gdr_receive_only = near_a && !gdr_a && gdr_b;
  return {gdr_a, gdr_b};
}
}  // namespace

namespace {
// Sets a bare-metal socket connection's streams and cap on `p` (Path::connection_cap) for a listener on template
// `tb` (the sender on `ta`, the same template when null); returns whether the proxy threads move its bytes themselves
// (no helper threads).
bool set_socket_connection(const Cluster::Impl& m, const detail::Template& tb, const PathOptions& o, Path& p,
                           const detail::Template* ta = nullptr) {
  const NetChoice listener = m.host_net(tb, o);
  Cluster::Impl::set_socket_connection(p, listener, ta ? *ta : tb, tb);
  return listener.socket_threads == 0;
}
}  // namespace

Path Cluster::path(std::uint32_t a, std::uint32_t b, const PathOptions& o) const {
  const Impl& m = *impl_;
  if (a >= m.gpus.size() || b >= m.gpus.size()) throw std::out_of_range("vgsim: Cluster::path: GPU index out of range");
  Path p;
  if (a == b) return p;  // LOC: nothing crossed
  const GpuInfo& ga = m.gpus[a];
  const GpuInfo& gb = m.gpus[b];
  auto finish = [&](Path& q) {
    q.bottleneck = Bandwidth{0};
    bool first = true;
    for (auto r : q.resources) {
      const Bandwidth c = m.resources[r].capacity;
      if (first || c < q.bottleneck) q.bottleneck = c;
      first = false;
    }
    return q;
  };

  if (ga.host == gb.host) {
    const HostInst& h = m.insts[ga.host];
    const Template& t = m.templates[h.tmpl];
    const std::uint32_t la = ga.index_in_host, lb = gb.index_in_host;
    const bool p2p_ok_nvl = !o.p2p_disable && PathType::NVL <= o.p2p_level;
    auto bridge = t.bridge_res.find({la, lb});
    const bool nvl = bridge != t.bridge_res.end() || (t.nvsw_up[la] != kNone && t.nvsw_up[lb] != kNone);
    const detail::HostRoute pr = detail::pcie_route(t.g, t.gpu_v[la], t.gpu_v[lb]);
    if (nvl) {
      p.type = PathType::NVL;
      if (p2p_ok_nvl) {
        p.transport = Transport::P2P;
        p.link_class = LinkClass::NVLink;
        if (bridge != t.bridge_res.end()) {
          p.resources.push_back(h.res_base + bridge->second);
          p.latency = std::max(t.nvl_latency[la], t.nvl_latency[lb]);
        } else {
          p.resources.push_back(h.res_base + t.nvsw_up[la]);
          p.resources.push_back(h.res_base + t.nvsw_down[lb]);
          p.latency = t.nvl_latency[la] + t.nvl_latency[lb];
        }
        return finish(p);
      }
    } else {
      p.type = pr.type;
      if (!o.p2p_disable && t.pcie_p2p && pr.type <= o.p2p_level) {
        p.transport = Transport::P2P;
        p.link_class = LinkClass::PCIe;
        for (auto x : pr.resources) p.resources.push_back(h.res_base + x);
        p.latency = pr.latency;
        return finish(p);
      }
    }
    p.link_class = LinkClass::PCIe;
    if (!o.shm_disable) {
      // SHM: a's PCIe up to its CPU, host memory of that socket, then (across sockets if needed) down to b.
      p.transport = Transport::SHM;
      const std::uint32_t s = t.gpu_socket[la];
      const detail::HostRoute up = detail::pcie_route(t.g, t.gpu_v[la], t.socket_v[s]);
      const detail::HostRoute down = detail::pcie_route(t.g, t.socket_v[s], t.gpu_v[lb]);
      m.append(p, up, h.res_base);
      p.resources.push_back(h.res_base + t.memory_res[s]);
      m.append(p, down, h.res_base);
      m.staged_copy(p, up, h.res_base);
      m.staged_copy(p, down, h.res_base);
      return finish(p);
    }
    // P2P and SHM both off: NCCL falls back to the network transport through the local NIC (loopback in the NIC).
    const std::uint32_t pa = t.nic_choice[la], pb = t.nic_choice[lb];
    if (pa == kNone)
      throw std::invalid_argument("vgsim: P2P and SHM disabled and host '" + h.name + "' has no NIC for " + ga.name);
    const bool rdma = !o.sockets_forced() && t.nics[t.ports[pa].nic].rdma;
    p.transport = rdma ? Transport::NetIB : Transport::NetSocket;
    p.link_class = LinkClass::Net;
    p.type = PathType::NET;
    const auto [gdr_a, gdr_b] = gdr_legs(*this, m, p, a, b, h.port_base + pa, h.port_base + pb, rdma, o);
    const bool proxy = !rdma && set_socket_connection(m, t, o, p);
    m.host_leg(p, a, pa, gdr_a, proxy, false);
    m.host_leg(p, b, pb, gdr_b, proxy, true);
    return finish(p);
  }

  // Different hosts: NET.
  const HostInst& ha = m.insts[ga.host];
  const HostInst& hb = m.insts[gb.host];
  const Template& ta = m.templates[ha.tmpl];
  const Template& tb = m.templates[hb.tmpl];
  const std::uint32_t pa = ta.nic_choice[ga.index_in_host], pb = tb.nic_choice[gb.index_in_host];
  if (pa == kNone || pb == kNone) {
    const Template& t = pa == kNone ? ta : tb;
    throw InputError(m.file.empty() ? m.name : m.file, "$.host_templates." + t.name + ".nics",
                     "host '" + (pa == kNone ? ha.name : hb.name) + "' has no NIC, but " + ga.name + " and " + gb.name +
                         " are on different hosts",
                     "[]", "at least one NIC in the template of every host whose GPUs talk to other hosts");
  }
  const bool rdma = !o.sockets_forced() && ta.nics[ta.ports[pa].nic].rdma && tb.nics[tb.ports[pb].nic].rdma;
  p.transport = rdma ? Transport::NetIB : Transport::NetSocket;
  p.type = PathType::NET;
  p.link_class = LinkClass::Net;
  const auto [gdr_a, gdr_b] = gdr_legs(*this, m, p, a, b, ha.port_base + pa, hb.port_base + pb, rdma, o);
  const bool proxy = !rdma && set_socket_connection(m, tb, o, p, &ta);
  m.host_leg(p, a, pa, gdr_a, proxy, false);
  if (!rdma) p.latency += std::max(ta.socket_latency, tb.socket_latency);  // kernel TCP stack, per message
  if (!rdma) p.resources.push_back(ha.res_base + ta.ports[pa].tcp_tx);
  p.resources.push_back(ha.res_base + ta.ports[pa].tx);
  p.latency += m.link_latency + m.switch_latency;
  if (m.leaf_spine && m.insts[ga.host].leaf != m.insts[gb.host].leaf) {
    // ECMP stand-in: a deterministic spine per (source port, destination port) pair.
    const std::uint32_t spine = (ha.port_base + pa + hb.port_base + pb) % m.spines;
    p.resources.push_back(m.leaf_up[ha.leaf][spine]);
    p.resources.push_back(m.leaf_down[hb.leaf][spine]);
    p.latency += (m.link_latency + m.switch_latency) * 2;
  }
  p.latency += m.link_latency;
  p.resources.push_back(hb.res_base + tb.ports[pb].rx);
  if (!rdma) p.resources.push_back(hb.res_base + tb.ports[pb].tcp_rx);
  m.host_leg(p, b, pb, gdr_b, proxy, true);
  return finish(p);
}

bool Cluster::Impl::gdr_read(std::uint32_t gpu, const std::vector<std::uint32_t>& os_gpus, const PathOptions& o) const {
  if (o.gdr_read >= 0) return o.gdr_read == 1;
  if (o.nccl_minor >= 19 && gpu_models[gpu].sm_version >= 80) return true;
  if (o.nccl_minor >= 6 && os_gpus.size() == 1) return true;
  const Template& t = tmpl_of_gpu(gpu);
  const std::uint32_t lg = gpus[gpu].index_in_host;
  for (std::uint32_t other : os_gpus) {
    if (other == gpu || gpus[other].host != gpus[gpu].host) continue;
    const std::uint32_t lo = gpus[other].index_in_host;
    if (t.bridge_res.count({lg, lo}) || (t.nvsw_up[lg] != kNone && t.nvsw_up[lo] != kNone)) return true;
  }
  return false;
}

Cluster Cluster::load(const std::string& file, const Catalog& catalog) {
  return from_json(load_json_file(file), file, catalog);
}

Cluster Cluster::from_json(const Json& j, const std::string& file, const Catalog& catalog) {
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.file = file;
  JsonReader r(j, file);
  m.name = r.string("name");
  m.description = r.opt_string("description").value_or("");
  // The cluster's inline device models ("catalog", the schema of a catalog file) join the catalog for this cluster
  // only; every command resolves clusters here, so they work wherever a cluster does. A key the catalog already has
  // must be the identical entry (Catalog::add).
  std::optional<Catalog> with_inline;
  if (auto cr = r.opt_object("catalog")) {
    with_inline.emplace(catalog);
    with_inline->add(*cr);
  }
  const Catalog& cat = with_inline ? *with_inline : catalog;

  read_hosts(r, m, read_templates(r, m, cat));
  instantiate_hosts(m, cat);
  read_fabric(r, m);
  r.finish();

  detail::build_virtualization(m, cat);
  return Cluster(std::move(impl));
}

std::string Cluster::presets_dir() { return (fs::path(Catalog::data_dir()) / "topologies" / "presets").string(); }

std::vector<std::string> Cluster::preset_names() {
  std::vector<std::string> out;
  std::error_code ec;
  const std::string dir = presets_dir();
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Cluster Cluster::resolve(const std::string& name, const Catalog& catalog) {
  std::error_code ec;
  if (fs::is_regular_file(name, ec)) return load(name, catalog);
  const fs::path preset = fs::path(presets_dir()) / (name + ".json");
  if (fs::is_regular_file(preset, ec)) return load(preset.string(), catalog);
  // "--cluster": where the name came from when the caller does not say otherwise (JobSpec::cluster_at).
  if (fs::is_directory(name, ec))
    throw InputError("", "--cluster", "is a directory", "\"" + name + "\"", "a cluster JSON file or a preset name");
  const auto names = preset_names();
  const std::string g = did_you_mean(name, names);
  throw InputError("", "--cluster",
                   "neither a file nor a preset name" + (g.empty() ? std::string() : " (did you mean '" + g + "'?)"),
                   "\"" + name + "\"", "a cluster JSON file or a preset in " + presets_dir() + ": " + list_of(names));
}

}  // namespace vgsim::topo
