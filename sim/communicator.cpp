// NCCL-like communicator on a modeled cluster (see include/vgsim/sim/communicator.hpp).
//
// Modelling choices (each an approximation of NCCL, stated here once):
// - Channels: NCCL's topology search (search.cc) tries per-channel speeds from a ladder whose top rung is 40 GB/s
//   before Hopper and 60 GB/s on Hopper, keeps as many channels as the links sustain, and on multi-node
//   communicators uses every NIC of the node. We take channels = clamp(max(ceil(intra-node bottleneck / rung),
//   ceil(node NIC bandwidth / rung), NIC devices per node (catalog NicModel::devices)), 2, 32) unless forced; then
//   NCCL's small-message trimming (enqueue.cc) per call.
// - Per-flow caps: one channel is driven by one thread block, so a Simple flow moves at most the top rung
//   (per channel); LL is capped at llMaxBw / channels and LL128 at perChMaxRingLL128Bw (tuning.cc), both on payload.
// - Per-step latency: coll::hop_latency_us (NCCL's hwLatencies[link][algo][proto] + latencyInter on NET hops), with
//   tuning.cc's two multi-node adjustments (see plan()). The base latency (and CommOptions::launch_overhead, 0 by
//   default) is paid once per call. The executor overlaps the latencies of consecutive sends on a connection
//   (collective_run.hpp), so per-step latencies cost only along the data chain, as in NCCL's lat + S/bw form.
// - NVLS (NVLink SHARP) is available when every rank is on ONE node, on a whole GPU attached to that node's NVSwitch
//   (Cluster::nvswitch_path), with NVLink P2P between them and a Hopper or later GPU (catalog "arch"; NVLS needs
//   SM90 and NVSwitch gen3, and reference 1.5 gives NVLS efficiencies only for Hopper and Blackwell): derived, no
//   catalog flag. It runs nvls_max_channels (16) channels, Simple only; its flows carry payload at NCCL's NVLS
//   efficiency (0.85 Hopper), and each of the chunk's 4 switch legs carries a quarter of NCCL's 25 us NVLS latency.
// - NVLS Tree (NCCL >= 2.18) is available on >= 2 nodes with the same rank count when every node's ranks meet the
//   NVLS conditions above on their own node (whole GPUs on the node's NVSwitch, NVLink P2P, Hopper or later) and
//   there are >= 2 of them per node. It runs the NVLS channels, Simple only; its switch legs carry payload at NCCL's
//   NVLS efficiency (StepCosts::switch_efficiency), its network legs at the protocol's; a quarter of the NVLink
//   NVLSTree latency per switch leg and the NET NVLSTree latency per tree hop (NCCL: intraLat + 2 log2(N) interLat).
//   In NCCL's default choice (workloads/collectives/nvls_tree_algorithm.cpp says since when and why).
// - Both availability rules are the algorithms' records' (coll::AlgorithmInfo::unavailable); the constructor fills
//   the facts they read (CommShape::nvlink_p2p, on_nvswitch), and plan() turns a forced algorithm that cannot run
//   into the InputError its record words.
// - Alltoall is NCCL point-to-point: Ring/Simple markers only (NCCL_ALGO does not apply; LL for small p2p is not
//   modelled), p2p_geometry() for NCCL's p2p channels, channels per peer and chunk, every channel with the identity
//   rank -> GPU map (a rank's p2p connections leave from its own GPU on every channel).
#include "vgsim/sim/communicator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/nic_ring_order.hpp"
#include "vgsim/sim/one_rank_copy.hpp"
#include "vgsim/topologies/path_reasons.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/nvls_tree_stream.hpp"

namespace vgsim::sim {

// StepCosts::hop_latency is indexed by topo::LinkClass and filled from coll::Link: the orders must agree.
static_assert(static_cast<int>(topo::LinkClass::NVLink) == static_cast<int>(coll::Link::NVLink) &&
              static_cast<int>(topo::LinkClass::PCIe) == static_cast<int>(coll::Link::PCIe) &&
              static_cast<int>(topo::LinkClass::Net) == static_cast<int>(coll::Link::Net));

namespace {

coll::GpuArch arch_of(const std::string& arch) {
  if (arch == "volta" || arch == "pascal" || arch == "turing") return coll::GpuArch::Volta;
  if (arch == "ampere") return coll::GpuArch::Ampere;
  if (arch == "hopper") return coll::GpuArch::Hopper;
  if (arch == "blackwell") return coll::GpuArch::Blackwell;
  return coll::GpuArch::Ampere;
}

coll::CpuVendor vendor_of(const std::string& cpu_key) {
  if (cpu_key.find("xeon") != std::string::npos) return coll::CpuVendor::Intel;
  if (cpu_key.find("epyc") != std::string::npos) return coll::CpuVendor::AMD;
  return coll::CpuVendor::Other;
}

// search.cc ladders, top rung (GB/s per channel): pre-Hopper 40, Hopper and later 60.
double top_rung_GBps(coll::GpuArch a) { return a == coll::GpuArch::Hopper || a == coll::GpuArch::Blackwell ? 60 : 40; }

std::size_t arch_row(coll::GpuArch a) { return static_cast<std::size_t>(a); }

std::size_t node_col(std::uint32_t nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

std::string path_words(const topo::Path& p) {
  std::string s = std::string(topo::to_string(p.transport)) + "/" + topo::to_string(p.type) + " over " +
                  topo::to_string(p.link_class);
  if (p.transport == topo::Transport::NetIB)
    s += p.gdr                ? " with GPUDirect RDMA"
         : p.gdr_receive_only ? " with GPUDirect RDMA on receives, sends staged (NCCL_NET_GDR_READ off)"
                              : " host-staged (no GPUDirect)";
  s += ", bottleneck " + format_bandwidth(p.bottleneck);
  if (p.transport == topo::Transport::NetSocket && p.socket_streams > 0)
    s += "; each connection " + std::to_string(p.socket_streams) + " TCP stream" + (p.socket_streams > 1 ? "s" : "") +
         " (" + (p.socket_helpers ? std::to_string(p.socket_helpers) + " helper threads" : "the proxy thread") +
         ") capped at " + format_bandwidth(p.connection_cap);
  return s;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> os_instances(const topo::Cluster& cluster) {
  std::vector<std::vector<std::uint32_t>> out;
  std::uint64_t last_key = UINT64_MAX;
  const auto& eps = cluster.endpoints();
  for (std::uint32_t e = 0; e < eps.size(); ++e) {
    const std::uint64_t key = eps[e].vm.empty() ? eps[e].host : (std::uint64_t{1} << 32) | eps[e].vm_index;
    if (key != last_key) out.emplace_back(), last_key = key;
    out.back().push_back(e);
  }
  return out;
}

void require_gpu_endpoints(const topo::Cluster& cluster) {
  if (!cluster.endpoints().empty()) return;
  const std::string tmpl = cluster.hosts().empty() ? std::string("*") : cluster.hosts().front().template_name;
  throw InputError(cluster.file(), "$.host_templates." + tmpl + ".gpus", "no GPUs in cluster '" + cluster.name() + "'",
                   "[]", "at least one GPU in the host templates its hosts use");
}

std::vector<std::uint32_t> place_ranks(const topo::Cluster& cluster, std::uint32_t nodes, std::uint32_t gpus_per_node) {
  require_gpu_endpoints(cluster);
  const auto instances = os_instances(cluster);
  if (nodes == 0 || nodes > instances.size())
    throw InputError(cluster.file(), "--nodes", "not enough hosts or VMs in cluster '" + cluster.name() + "'",
                     std::to_string(nodes), "1.." + std::to_string(instances.size()));
  std::vector<std::uint32_t> ranks;
  for (std::uint32_t h = 0; h < nodes; ++h) {
    const auto& inst = instances[h];
    const std::string& where = cluster.endpoints()[inst[0]].vm.empty()
                                   ? cluster.hosts()[cluster.endpoints()[inst[0]].host].name
                                   : cluster.endpoints()[inst[0]].vm;
    if (gpus_per_node == 0 || gpus_per_node > inst.size())
      throw InputError(cluster.file(), "--gpus-per-node", "'" + where + "' has too few GPUs",
                       std::to_string(gpus_per_node), "1.." + std::to_string(inst.size()));
    for (std::uint32_t g = 0; g < gpus_per_node; ++g) ranks.push_back(inst[g]);
  }
  return ranks;
}

Communicator::Communicator(const topo::Cluster& cluster, std::vector<std::uint32_t> rank_to_endpoint,
                           CommOptions options)
    : cluster_(cluster), rank_to_endpoint_(std::move(rank_to_endpoint)), options_(std::move(options)) {
  if (rank_to_endpoint_.empty()) throw std::invalid_argument("Communicator: no ranks");
  const auto& eps = cluster.endpoints();
  std::set<std::uint32_t> seen;
  std::vector<std::uint64_t> node_order;  // NCCL's "node" is one OS instance: a bare-metal host or a VM
  for (std::uint32_t e : rank_to_endpoint_) {
    if (e >= eps.size()) throw std::invalid_argument("Communicator: endpoint index out of range");
    if (!seen.insert(e).second) throw std::invalid_argument("Communicator: an endpoint holds two ranks");
    const std::uint64_t key = eps[e].vm.empty() ? eps[e].host : (std::uint64_t{1} << 32) | eps[e].vm_index;
    if (node_order.empty() || node_order.back() != key) node_order.push_back(key);
  }
  nodes_ = static_cast<std::uint32_t>(node_order.size());
  if (std::set<std::uint64_t>(node_order.begin(), node_order.end()).size() != nodes_ || ranks() % nodes_ != 0)
    throw std::invalid_argument("Communicator: ranks must be node-major with the same count per node");
  ranks_per_node_ = ranks() / nodes_;
  auto node_of = [&](std::uint32_t e) {
    return eps[e].vm.empty() ? std::uint64_t{eps[e].host} : (std::uint64_t{1} << 32) | eps[e].vm_index;
  };

  // Each node's ring order (nodes built from one template with the same GPUs share it: computed once per layout).
  node_ring_order_.resize(nodes_);
  if (nodes_ > 1) {
    std::map<std::string, std::vector<std::uint32_t>> by_layout;
    for (std::uint32_t nd = 0; nd < nodes_; ++nd) {
      const std::vector<std::uint32_t> node(rank_to_endpoint_.begin() + nd * ranks_per_node_,
                                            rank_to_endpoint_.begin() + (nd + 1) * ranks_per_node_);
      std::string key = cluster.hosts()[eps[node[0]].host].template_name + (eps[node[0]].vm.empty() ? "" : "/vm");
      for (std::uint32_t e : node) key += "," + std::to_string(cluster.gpus()[eps[e].gpu].index_in_host);
      auto it = by_layout.find(key);
      if (it == by_layout.end()) it = by_layout.emplace(key, nic_ring_order(cluster, node, options_.path)).first;
      node_ring_order_[nd] = it->second;
    }
  }

  // Ring-neighbour routes decide the link classes and the bottlenecks NCCL's search would find.
  bool all_nvlink = true;
  double intra = 1e300, inter = 1e300;
  for (std::uint32_t r = 0; r < ranks(); ++r) {
    const std::uint32_t a = ring_endpoint(r, 0), b = ring_endpoint((r + 1) % ranks(), 0);
    if (a == b) continue;
    topo::Path p = cluster.endpoint_path(a, b, options_.path);
    if (node_of(a) == node_of(b)) {
      all_nvlink = all_nvlink && p.link_class == topo::LinkClass::NVLink;
      intra = std::min(intra, p.bottleneck.GBps());
      if (!intra_path_) intra_path_ = p;
    } else {
      inter = std::min(inter, p.bottleneck.GBps());
      if (!inter_path_) inter_path_ = p;
    }
  }
  total_intra_GBps_ = intra_path_ ? intra : 0.0;
  total_inter_GBps_ = inter_path_ ? inter : 0.0;

  shape_.ranks = ranks();
  shape_.nodes = nodes_;
  shape_.intra = all_nvlink ? coll::Link::NVLink : coll::Link::PCIe;
  const topo::GpuEndpoint& first = eps[rank_to_endpoint_[0]];
  shape_.arch = arch_of(cluster.gpu_model(first.gpu).arch);
  shape_.cpu = vendor_of(cluster.hosts()[first.host].cpu_model);
  // Network bandwidth of a node: NCCL spreads channels over all NIC ports of the node (one ring per NIC at least).
  // A VM uses only its own NIC port (if any); a bare-metal host all of its ports.
  double host_net_GBps = 0;
  std::uint32_t host_nics = 0;
  if (!first.vm.empty()) {
    const topo::VmInfo& vm = cluster.vms()[first.vm_index];
    if (vm.nic != UINT32_MAX)
      host_net_GBps = cluster.nics()[vm.nic].speed.GBps(), host_nics = cluster.nics()[vm.nic].devices;
  } else {
    for (std::uint32_t nic : cluster.hosts()[first.host].nics)
      host_net_GBps += cluster.nics()[nic].speed.GBps(), host_nics += cluster.nics()[nic].devices;
  }
  const double rung = top_rung_GBps(shape_.arch);
  double want = std::ceil(total_intra_GBps_ / rung);
  if (nodes_ > 1) want = std::max({want, std::ceil(host_net_GBps / rung), static_cast<double>(host_nics)});
  const auto auto_channels = static_cast<std::uint32_t>(std::clamp(want, 2.0, 32.0));
  shape_.channels = options_.channels.value_or(auto_channels);
  // Per-channel bandwidths as NCCL's search reports them, capped by the ladder's top rung. On several nodes every
  // ring channel also crosses the network, so the ring graph runs at the slower of the two (bwIntra = bwInter);
  // tree graphs keep the intra-node speed (search.cc raises it for tree patterns).
  const double inter_total = inter_path_ ? std::max(total_inter_GBps_, host_net_GBps) : 0.0;
  const double intra_total = intra_path_ ? total_intra_GBps_ : inter_total;
  const double ch = shape_.channels;
  if (nodes_ > 1) {
    shape_.bw_inter_GBps = std::min(rung, inter_total / ch);
    shape_.bw_intra_GBps = std::min(rung, std::min(intra_total, inter_total) / ch);
    shape_.tree_bw_intra_GBps = std::min(rung, intra_total / ch);
  } else {
    shape_.bw_intra_GBps = shape_.bw_inter_GBps = std::min(rung, intra_total / ch);
  }
  // NCCL enables LL128 by default only on NVLink intra paths (tuning.cc, reference section 1.5).
  shape_.ll128_enabled = all_nvlink;
  // The facts the algorithms' availability rules read (NVLS, NVLS Tree: coll::AlgorithmInfo::unavailable).
  shape_.nvlink_p2p = all_nvlink;
  shape_.on_nvswitch = true;
  for (std::uint32_t e : rank_to_endpoint_)
    if (shape_.on_nvswitch && !cluster.nvswitch_path(e, true)) {
      shape_.on_nvswitch = false;
      shape_.off_nvswitch = "endpoint " + eps[e].name + " (" + eps[e].mode + ")";
    }
  shape_.nvls_channels = options_.channels.value_or(static_cast<std::uint32_t>(options_.nccl.nvls_max_channels));
}

std::string Communicator::describe_net() const {
  if (nodes_ <= 1) return "";
  std::vector<topo::NetInterface> ifs;
  std::vector<topo::RdmaPort> ports;
  const topo::NetChoice ch = cluster_.nccl_net(rank_to_endpoint_.front(), options_.path, &ifs, &ports);
  std::string s = topo::describe(ch, ifs, ports) + "; why: ";
  for (std::size_t k = 0; k < ch.rules.size(); ++k) s += (k ? "; " : "") + ch.rules[k];
  return s;
}

std::string Communicator::describe_transports() const {
  std::string s;
  if (intra_path_) s += "intra-node: " + path_words(*intra_path_);
  if (inter_path_) s += std::string(s.empty() ? "" : "; ") + "inter-node: " + path_words(*inter_path_);
  if (s.empty()) s = "single rank: no transport";
  return s;
}

std::vector<std::string> Communicator::transport_reasons() const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> routes;
  for (std::uint32_t r = 0; r < ranks(); ++r)
    routes.emplace_back(rank_to_endpoint_[r], rank_to_endpoint_[(r + 1) % ranks()]);
  return topo::why_lines(cluster_, routes, options_.path);
}

namespace {
// A forced algorithm (--algo) where it cannot run: the record's collectives, availability, channels and protocol.
void check_forced(coll::Algo algo, coll::Op op, const coll::CommShape& shape, std::optional<coll::Proto> proto) {
  const coll::AlgorithmInfo& info = coll::algorithm(algo);
  const std::string key = info.name, op_name = coll::to_string(op);
  if (!info.supports(op))
    throw InputError(
        "", "--algo",
        info.ops_error.empty() ? "the " + key + " algorithm does not implement " + op_name : info.ops_error, key,
        "ring for " + op_name);
  const std::string why = coll::why_unavailable(algo, shape);
  if (!why.empty())
    throw InputError("", "--algo", info.title + " is not available on this communicator: " + why, key,
                     info.requirement);
  if (info.nvls_channels && shape.nvls_channels < 2)
    throw InputError("", "--channels",
                     "NCCL's NVLS model scales by (channels - 1) / channels, so one channel moves "
                     "nothing",
                     std::to_string(shape.nvls_channels), "2 or more with --algo " + key);
  if (info.simple_only && proto && *proto != coll::Proto::Simple)
    throw InputError("", "--proto", "NCCL runs " + info.title + " with the Simple protocol only",
                     coll::to_string(*proto), "Simple (or no --proto) with --algo " + key);
}
}  // namespace

namespace {
// One rank: NCCL runs no algorithm (enqueue.cc: "single rank communicators, collectives are issued as
// ncclMemcpyAsyncs"; updateCollCostTable gives Ring/Simple cost 0), so neither NCCL_ALGO nor NCCL_PROTO matters. The
// plan is an empty schedule whose base latency is the device-local copy (one_rank_copy.hpp); the executors finish an
// empty schedule after its base latency (+ CommOptions::launch_overhead), so the engine, the analytical fidelity and
// every caller see that time.
CallPlan one_rank_plan(const topo::Cluster& cluster, std::uint32_t endpoint, const CommOptions& options, coll::Op op,
                       Bytes size, std::uint32_t root) {
  CallPlan plan;
  plan.op = op;
  plan.algo = coll::Algo::Ring;
  plan.proto = coll::Proto::Simple;
  plan.channels = 1;
  plan.size = size;
  plan.model_time_us = 0.0;
  const topo::GpuEndpoint& ep = cluster.endpoints()[endpoint];
  plan.costs.base_latency = one_rank_copy_time(cluster.gpu_model(ep.gpu), ep, size);
  plan.costs.launch_overhead = options.launch_overhead;
  plan.channel_gpus = {{endpoint}};
  coll::CollectiveSchedule s;
  s.op = op;
  s.algo = plan.algo;
  s.proto = plan.proto;
  s.ranks = 1;
  s.channels = 1;
  s.size = size;
  s.ranks_per_node = 1;
  s.root = root;
  plan.schedule = std::make_shared<const coll::CollectiveSchedule>(std::move(s));
  return plan;
}
}  // namespace

CallPlan Communicator::plan(coll::Op op, Bytes size, std::uint32_t root) const {
  if (ranks() == 1) return one_rank_plan(cluster_, rank_to_endpoint_[0], options_, op, size, root);
  const coll::NcclTuning& t = options_.nccl;
  coll::Allowed allowed;  // the registry's default set (an opt-in algorithm only when forced)
  if (options_.algo) allowed.algos = std::uint64_t{1} << options_.algo->id;
  if (options_.proto) {
    for (int p = 0; p < 3; ++p) allowed.proto[p] = (p == static_cast<int>(*options_.proto));
  }
  coll::CommShape shape = shape_;
  if (options_.proto == coll::Proto::LL128) shape.ll128_enabled = true;  // forcing it enables it, as NCCL_PROTO does
  if (options_.algo) check_forced(*options_.algo, op, shape, options_.proto);
  if (op == coll::Op::AllToAll) {  // NCCL point-to-point: no algorithm or protocol choice (nccl_tuning.hpp select)
    if (options_.algo && *options_.algo != coll::Algo::Ring)
      throw InputError("", "--algo", "alltoall is a group of NCCL sends and receives, which NCCL_ALGO does not steer",
                       coll::to_string(*options_.algo), "no --algo (or ring) for alltoall");
    if (options_.proto && *options_.proto != coll::Proto::Simple)
      throw InputError("", "--proto",
                       "vgsim runs NCCL's sends and receives with the Simple protocol only (NCCL's LL "
                       "for small p2p operations is not modelled)",
                       coll::to_string(*options_.proto), "Simple (or no --proto) for alltoall");
  }
  const coll::Selection sel = coll::select(t, op, size, shape, allowed);

  CallPlan plan;
  plan.op = op;
  plan.algo = sel.algo;
  plan.proto = sel.proto;
  plan.size = size;
  plan.model_time_us = sel.cost.time_us;
  const coll::AlgorithmInfo& info = coll::algorithm(plan.algo);
  std::uint32_t channels = options_.channels ? *options_.channels : sel.launch.channels;
  if (info.even_channels && channels % 2 == 1) channels = channels == 1 ? 2 : channels - 1;  // half per tree
  const P2pGeometry p2p = op == coll::Op::AllToAll ? p2p_geometry() : P2pGeometry{};
  if (op == coll::Op::AllToAll) channels = p2p.channels;
  plan.channels = channels;

  // Step costs.
  const auto p = static_cast<std::size_t>(plan.proto);
  StepCosts& c = plan.costs;
  c.payload_efficiency = t.proto_efficiency[p];
  // The algorithm's leg efficiencies (NVLS: every leg a switch leg at NCCL's NVLS efficiency; NVLS Tree: switch legs).
  const coll::LegEfficiency eff = info.efficiency ? info.efficiency(t, shape) : coll::LegEfficiency{};
  c.payload_efficiency *= eff.payload;
  c.switch_efficiency = eff.switch_legs;
  c.base_latency = Time::from_us(info.base_latency_us(t, plan.proto));
  c.launch_overhead = options_.launch_overhead;
  c.staging_granule = op == coll::Op::AllToAll
                          ? p2p.chunk_bytes
                          : coll::call_slice_bytes(op, plan.algo, plan.proto, size, channels, ranks_per_node_);
  c.staged_copies = options_.staged_copies;
  // tuning.cc: on multi-node communicators the intra-node hop latency is raised to at least the network post
  // overhead (x3 for Simple); the algorithm's hop latency knows its own rows (the ring's NET hop with one rank per
  // node takes Tree's, latencies fully exposed).
  double net_overhead = t.net_overhead_us[static_cast<std::size_t>(shape.cpu)];
  if (plan.proto == coll::Proto::Simple) net_overhead *= t.net_overhead_simple_factor;
  for (coll::Link l : {coll::Link::NVLink, coll::Link::PCIe, coll::Link::Net}) {
    double us_v = coll::hop_latency_us(t, l, plan.algo, plan.proto, shape);
    if (l != coll::Link::Net && nodes_ > 1) us_v = std::max(us_v, net_overhead);
    c.hop_latency[static_cast<std::size_t>(l)] = Time::from_us(us_v);
  }
  const std::size_t row = nodes_ > 1 ? (shape.cpu == coll::CpuVendor::AMD ? 1 : 0) : arch_row(shape.arch);
  double payload_cap_GBps = top_rung_GBps(shape.arch);
  if (plan.proto == coll::Proto::LL) payload_cap_GBps = t.ll_max_bw_GBps[row][node_col(nodes_)] / channels;
  if (plan.proto == coll::Proto::LL128) payload_cap_GBps = t.per_ch_max_ring_ll128_bw_GBps[arch_row(shape.arch)];
  c.max_rate_per_flow = payload_cap_GBps * 1e9 / c.payload_efficiency;

  plan.channel_gpus.resize(channels);
  for (std::uint32_t ch = 0; ch < channels; ++ch) {
    // Point-to-point channels do not permute GPUs: rank r is its own GPU on every channel (alltoall's pairs stay).
    const std::uint32_t shift =
        op == coll::Op::AllToAll ? 0 : static_cast<std::uint32_t>(std::uint64_t{ch} * ranks_per_node_ / channels);
    auto& map = plan.channel_gpus[ch];
    map.resize(ranks());
    for (std::uint32_t r = 0; r < ranks(); ++r)
      map[r] = op == coll::Op::AllToAll ? rank_to_endpoint_[r] : ring_endpoint(r, shift);
  }

  coll::GenOptions gen;
  gen.max_transfers = options_.max_transfers;
  gen.steps = options_.steps;
  gen.channels = channels;
  gen.root = root;
  if (op == coll::Op::AllToAll) {
    gen.chunk_bytes = p2p.chunk_bytes;
    gen.p2p_channels_per_peer = p2p.channels_per_peer;
    gen.p2p_ops_per_batch = p2p.ops_per_batch;
  }
  plan.schedule = std::make_shared<const coll::CollectiveSchedule>(
      coll::generate(op, plan.algo, plan.proto, ranks(), ranks_per_node_, size, gen));
  plan.fold_channels = options_.fold_channels && plan.schedule->streamed && channels > 1 &&
                       !coll::nvls_tree_streamable(*plan.schedule);  // NVLS Tree is not folded (channel_fold.hpp)
  return plan;
}

std::uint32_t Communicator::ring_endpoint(std::uint32_t r, std::uint32_t shift) const {
  const std::uint32_t node = r / ranks_per_node_, local = r % ranks_per_node_;
  if (node >= node_ring_order_.size() || node_ring_order_[node].empty())
    return rank_to_endpoint_[node * ranks_per_node_ + (local + shift) % ranks_per_node_];
  return rank_to_endpoint_[node * ranks_per_node_ + node_ring_order_[node][local]];
}

Communicator::P2pGeometry Communicator::p2p_geometry() const {
  const coll::NcclTuning& t = options_.nccl;
  auto whole = [](const char* name, double v, double lo, double hi, bool pow2) {
    const auto u = static_cast<std::uint64_t>(v);
    if (!(v >= lo && v <= hi) || static_cast<double>(u) != v || (pow2 && (u & (u - 1)) != 0))
      throw InputError("", std::string("--set ") + name, "p2p parameter out of range", std::to_string(v),
                       std::string(pow2 ? "a power of two" : "a whole number") + " in " +
                           std::to_string(static_cast<long long>(lo)) + ".." +
                           std::to_string(static_cast<long long>(hi)));
    return static_cast<std::uint32_t>(u);
  };
  auto pow2_up = [](std::uint32_t v) {
    std::uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
  };
  const std::uint32_t per_net_peer = whole("nccl.p2p.net_channels_per_peer", t.p2p_net_channels_per_peer, 1, 64, true);
  const std::uint32_t min_ch = whole("nccl.p2p.min_channels", t.p2p_min_channels, 1, 64, false);
  const std::uint32_t max_ch = whole("nccl.p2p.max_channels", t.p2p_max_channels, 1, 64, false);
  P2pGeometry g;
  g.ops_per_batch = whole("nccl.p2p.ops_per_batch", t.p2p_ops_per_batch, 1, 64, false);
  // paths.cc ncclTopoComputeP2pChannels [recalled]: p2pnChannels = pow2Up(max(min(nChannels, MAX_P2P), MIN_P2P));
  // p2pnChannelsPerPeer = pow2Up(min over peers of ncclTopoGetNchannels), at most p2pnChannels.
  g.channels = std::min<std::uint32_t>(64, pow2_up(std::max(std::min(shape_.channels, max_ch), min_ch)));
  std::uint32_t per_peer = g.channels;
  if (nodes_ > 1) per_peer = std::min(per_peer, per_net_peer);  // a remote peer: NCCL_NCHANNELS_PER_NET_PEER
  bool all_nvlink = ranks_per_node_ > 1;
  const double link_GBps = t.nvlink_bw_per_link_GBps[static_cast<std::size_t>(shape_.arch)];
  for (std::uint32_t a = 0; a < ranks_per_node_; ++a)  // a local peer: 2 (x NVLink links) channels
    for (std::uint32_t b = 0; b < ranks_per_node_; ++b) {
      if (a == b) continue;
      const topo::Path p = cluster_.endpoint_path(rank_to_endpoint_[a], rank_to_endpoint_[b], options_.path);
      std::uint32_t ch = 2;
      if (p.link_class == topo::LinkClass::NVLink && link_GBps > 0)
        ch = 2 * std::max<std::uint32_t>(1, static_cast<std::uint32_t>(p.bottleneck.GBps() / link_GBps));
      else
        all_nvlink = false;
      per_peer = std::min(per_peer, ch);
    }
  g.channels_per_peer = std::min(g.channels, pow2_up(per_peer));
  // init.cc p2pChunkSize [recalled]: NET on several nodes, NVL when every path is NVLink, else PCI.
  const coll::Link chunk_link = nodes_ > 1 ? coll::Link::Net : all_nvlink ? coll::Link::NVLink : coll::Link::PCIe;
  const double chunk = t.p2p_chunk_bytes[static_cast<std::size_t>(chunk_link)];
  if (!(chunk >= 1024 && chunk <= 64.0 * 1024 * 1024))
    throw InputError("", std::string("--set nccl.p2p.chunk.") + coll::to_string(chunk_link), "p2p chunk out of range",
                     std::to_string(chunk), "1 KiB .. 64 MiB");
  g.chunk_bytes = static_cast<Bytes>(chunk);
  return g;
}

CollectiveResult simulate_collective(const Communicator& comm, coll::Op op, Bytes size, std::uint32_t root) {
  CollectiveResult res;
  res.plan = comm.plan(op, size, root);
  Simulator sim;
  Fabric fabric(comm.cluster(), sim, comm.options().path, comm.options().capacity_scale);
  CollectiveRun run(*res.plan.schedule, res.plan.channel_gpus, res.plan.costs, fabric, res.plan.fold_channels);
  run.start();
  sim.run();
  res.time = run.finish_time() - run.start_time();
  res.events = sim.events_processed();
  res.flows = sim.flows_completed();
  return res;
}

}  // namespace vgsim::sim
