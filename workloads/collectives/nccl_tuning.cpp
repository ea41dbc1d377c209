// NCCL's cost model (see nccl_tuning.hpp). Constants: docs/SOURCES.md#nccl-tuning, read in
// NVIDIA/nccl src/graph/tuning.cc at v2.30 HEAD and its history back to 2.18; values marked [verify] there or
// recalled from tuning.cc without a stored copy say so in their source string.
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "nccl_versions.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"

namespace vgsim::coll {

namespace {
std::string lower(std::string s) {
  std::string o;
  for (char c : s)
    if (c != '_' && c != '-' && c != ' ') o.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return o;
}
const char* kProtoKey[3] = {"ll", "ll128", "simple"};
const char* kAlgoKey[2] = {"ring", "tree"};
const char* kLinkKey[3] = {"nvlink", "pcie", "net"};
const char* kArchKey[4] = {"volta", "ampere", "hopper", "blackwell"};
const char* kNodesKey[3] = {"nodes1", "nodes2", "nodes3plus"};
const char* kCpuKey[3] = {"intel", "amd", "other"};
constexpr const char* kRef = "docs/SOURCES.md#nccl-tuning ";

struct Entry {
  std::string name, unit, source;
  double* p;
};

// The table in sections, in the stable order `vgsim params` lists: Ring / Tree latencies, NVLS and NVLS Tree,
// bandwidth caps, overheads and corrections, thread trimming, point-to-point.
void latency_entries(NcclTuning& t, const std::string& v, std::vector<Entry>& e) {
  for (int a = 0; a < 2; ++a)
    for (int p = 0; p < 3; ++p)
      e.push_back({std::string("nccl.base_latency.") + kAlgoKey[a] + "." + kProtoKey[p], "us",
                   v + kRef + "baseLatencies (Tree/Simple 0 before 2.30, 8.4 at 2.30: 1.3 drift note)",
                   &t.base_latency_us[a][p]});
  for (int l = 0; l < 3; ++l)
    for (int a = 0; a < 2; ++a)
      for (int p = 0; p < 3; ++p)
        e.push_back({std::string("nccl.hw_latency.") + kLinkKey[l] + "." + kAlgoKey[a] + "." + kProtoKey[p], "us",
                     v + kRef + "hwLatencies (same cells 2.18-2.30)", &t.hw_latency_us[l][a][p]});
}

void nvls_entries(NcclTuning& t, const std::string& v, std::vector<Entry>& e) {
  // NVLS exists only with Simple, and its per-hop row only for NVLink (NVLS Tree: NVLink and NET rows).
  e.push_back({"nccl.base_latency.nvls.simple", "us", v + kRef + "baseLatencies: NVLS / NVLS Tree 0",
               &t.base_latency_us[static_cast<int>(Algo::NVLS)][static_cast<int>(Proto::Simple)]});
  e.push_back({"nccl.hw_latency.nvlink.nvls.simple", "us",
               v + kRef +
                   "hwLatencies NVLINK/NVLS Simple 25 (once per call: lat = intraLat; the engine "
                   "charges a quarter on each of a chunk's 4 switch legs)",
               &t.hw_latency_us[static_cast<int>(Link::NVLink)][static_cast<int>(Algo::NVLS)]
                               [static_cast<int>(Proto::Simple)]});
  for (GpuArch a : {GpuArch::Hopper, GpuArch::Blackwell})
    e.push_back({std::string("nccl.nvls_efficiency.") + kArchKey[static_cast<int>(a)], "ratio",
                 v + kRef +
                     "NVLS: intra bw x efficiency (0.85 Hopper, 0.74 Blackwell); vgsim also uses it as "
                     "the payload efficiency of NVLS flows",
                 &t.nvls_efficiency[static_cast<int>(a)]});
  const int nvt = static_cast<int>(Algo::NVLSTree), simple_p = static_cast<int>(Proto::Simple);
  e.push_back({"nccl.base_latency.nvlstree.simple", "us", v + kRef + "baseLatencies: NVLS / NVLS Tree 0",
               &t.base_latency_us[nvt][simple_p]});
  e.push_back({"nccl.hw_latency.nvlink.nvlstree.simple", "us",
               v + kRef +
                   "hwLatencies NVLINK/NVLSTree Simple 25 (intraLat once per call: lat = intraLat + "
                   "2 log2(N) interLat; the engine charges a quarter on each of a chunk's 4 switch legs)",
               &t.hw_latency_us[static_cast<int>(Link::NVLink)][nvt][simple_p]});
  e.push_back({"nccl.hw_latency.net.nvlstree.simple", "us",
               v + kRef + "hwLatencies NET/NVLSTree Simple 20.9 (interLat, per tree hop up and down)",
               &t.hw_latency_us[static_cast<int>(Link::Net)][nvt][simple_p]});
  e.push_back({"nccl.nvls.max_channels", "channels", "NCCL " + t.version + "; " + kRef + "NVLS uses up to 16 channels",
               &t.nvls_max_channels});
}

void bandwidth_entries(NcclTuning& t, const std::string& v, std::vector<Entry>& e) {
  for (int p = 0; p < 3; ++p)
    e.push_back({std::string("nccl.proto_efficiency.") + kProtoKey[p], "ratio",
                 std::string(kRef) + "LL 8 of 16 B = 0.5, LL128 120/128 (model 0.92), Simple 1",
                 &t.proto_efficiency[p]});
  const char* llrow[4] = {"volta_intel", "ampere_amd", "hopper", "blackwell"};
  for (int r = 0; r < 4; ++r)
    for (int n = 0; n < 3; ++n)
      e.push_back({std::string("nccl.ll_max_bw.") + llrow[r] + "." + kNodesKey[n], "GB/s",
                   v + kRef + "llMaxBws (one node: GPU row; multi-node: Intel row 0, AMD row 1)",
                   &t.ll_max_bw_GBps[r][n]});
  for (int r = 0; r < 4; ++r)
    for (int n = 0; n < 3; ++n)
      e.push_back({std::string("nccl.per_ch_max_tree_bw.") + kArchKey[r] + "." + kNodesKey[n], "GB/s",
                   v + kRef + "perChMaxTreeBws", &t.per_ch_max_tree_bw_GBps[r][n]});
  for (int r = 0; r < 4; ++r)
    e.push_back({std::string("nccl.per_ch_max_ring_ll128_bw.") + kArchKey[r], "GB/s",
                 v + kRef + "perChMaxRingLL128Bw (20 Volta/Ampere, 36.7 Hopper, 40 Blackwell)",
                 &t.per_ch_max_ring_ll128_bw_GBps[r]});
  for (int r = 0; r < 4; ++r)
    for (int n = 0; n < 3; ++n)
      e.push_back({std::string("nccl.per_ch_max_tree_ll128_bw.") + kArchKey[r] + "." + kNodesKey[n], "GB/s",
                   "perChMaxTreeLL128Bws recalled from tuning.cc, not in the stored reference [verify]",
                   &t.per_ch_max_tree_ll128_bw_GBps[r][n]});
}

void correction_entries(NcclTuning& t, std::vector<Entry>& e) {
  for (int c = 0; c < 3; ++c)
    e.push_back({std::string("nccl.net_overhead.") + kCpuKey[c], "us",
                 std::string(kRef) + "NCCL_NET_OVERHEAD default: 1.0 Intel, 2.0 AMD, 1.0 elsewhere",
                 &t.net_overhead_us[c]});
  e.push_back({"nccl.net_overhead.simple_factor", "ratio", std::string(kRef) + "tripled for Simple",
               &t.net_overhead_simple_factor});
  e.push_back({"nccl.latency_inter", "us",
               std::string(kRef) + "graph->latencyInter: net plugin latency, 0 for built-in IB and Socket; "
                                   "added per inter-node hop, twice for Simple",
               &t.latency_inter_us});
  for (int p = 0; p < 3; ++p)
    for (int i = 0; i < 23; ++i)
      e.push_back({std::string("nccl.tree_correction.") + kProtoKey[p] + "." + std::to_string(i), "ratio",
                   "treeCorrectionFactor recalled from tuning.cc (shape matches " + std::string(kRef) +
                       "0.4-0.6 at 64KB-1MB, 0.9-1.0 at the ends) [verify]",
                   &t.tree_correction[p][i]});
  e.push_back({"nccl.ring_plateau.pre_ampere", "ratio", std::string(kRef) + "ring plateau (older GPUs)",
               &t.ring_plateau_factor[0]});
  e.push_back({"nccl.ring_plateau.ampere_plus", "ratio", std::string(kRef) + "ring plateau (Ampere and later)",
               &t.ring_plateau_factor[1]});
  e.push_back({"nccl.bw_factor.ring_ll", "ratio", std::string(kRef) + "Ring LL x0.5", &t.ring_ll_bw_factor});
  e.push_back({"nccl.bw_factor.ring_ll128", "ratio", std::string(kRef) + "Ring LL128 x0.92", &t.ring_ll128_bw_factor});
  e.push_back({"nccl.bw_factor.tree", "ratio", std::string(kRef) + "Tree allreduce x0.92", &t.tree_bw_factor});
  e.push_back({"nccl.bw_factor.tree_ll_divisor", "ratio", std::string(kRef) + "Tree LL /3.8", &t.tree_ll_bw_divisor});
  e.push_back({"nccl.bw_factor.tree_ll128_one_node", "ratio", std::string(kRef) + "Tree LL128 x7/9 on one node",
               &t.tree_ll128_bw_factor_one_node});
  e.push_back(
      {"nccl.bw_factor.tree_ll128", "ratio", std::string(kRef) + "Tree LL128 x120/128", &t.tree_ll128_bw_factor});
  e.push_back({"nccl.bw_factor.tree_algbw_ratio", "ratio", std::string(kRef) + "Tree algBw = busBw x 0.5",
               &t.tree_algbw_ratio});
  e.push_back({"nccl.bw_factor.nvls_tree_ratio_coeff", "ratio",
               "NCCL v2.18.3-1 tuning.cc:174-200 NVLSTree bus-to-alg ratio .70 x nNodes / (2 (nNodes - 1)), "
               "docs/SOURCES.md#nccl-versions; used for N > 2 nodes; HEAD's ratio was not read "
               "[assumption: carried forward]",
               &t.nvls_tree_ratio_coeff});
}

void thread_and_p2p_entries(NcclTuning& t, std::vector<Entry>& e) {
  for (int p = 0; p < 3; ++p)
    e.push_back({std::string("nccl.thread_threshold.") + kProtoKey[p], "bytes/thread",
                 std::string(kRef) + "comm.h thresholds: LL 8 (x nranks for ring), LL128 8, Simple 64",
                 &t.thread_threshold[p]});
  for (int p = 0; p < 3; ++p)
    e.push_back({std::string("nccl.max_threads.") + kProtoKey[p], "threads",
                 std::string(kRef) + "Simple 512, LL 512, LL128 640", &t.max_threads[p]});
  // Point-to-point (alltoall). Grades: [ref] docs/SOURCES.md#nccl-tuning; [recalled] NCCL source not in it, [verify].
  e.push_back({"nccl.p2p.net_channels_per_peer", "channels",
               "NCCL_NCHANNELS_PER_NET_PEER default 2 (graph/paths.cc ncclTopoGetNchannels) [recalled, verify; " +
                   std::string(kRef) + "names the variable, not its value]; power of two 1..64",
               &t.p2p_net_channels_per_peer});
  e.push_back({"nccl.p2p.min_channels", "channels", "NCCL_MIN_P2P_NCHANNELS default 1 (paths.cc) [recalled, verify]",
               &t.p2p_min_channels});
  e.push_back({"nccl.p2p.max_channels", "channels",
               "NCCL_MAX_P2P_NCHANNELS default MAXCHANNELS (paths.cc) [recalled]; MAXCHANNELS 64: " + std::string(kRef),
               &t.p2p_max_channels});
  e.push_back({"nccl.p2p.ops_per_batch", "works",
               "NCCL_MAX_DEV_WORK_P2P_PER_BATCH 8 (device.h, NCCL >= 2.19) [recalled, verify]; 1..64",
               &t.p2p_ops_per_batch});
  for (int l = 0; l < 3; ++l)
    e.push_back({std::string("nccl.p2p.chunk.") + kLinkKey[l], "bytes",
                 std::string(kRef) + "init.cc NCCL_P2P_NVL_CHUNKSIZE 512 KiB, _PCI_ 128 KiB, _NET_ 128 KiB [ref]; "
                                     "one per communicator: NET on several nodes, NVL when all paths are NVLink, else "
                                     "PCI [recalled]",
                 &t.p2p_chunk_bytes[l]});
  for (int a = 0; a < 4; ++a)
    e.push_back({std::string("nccl.p2p.nvlink_bw_per_link.") + kArchKey[a], "GB/s",
                 std::string(kRef) + "topo.h NVLink per link: SM70 20, SM80 20, SM90 20.6, SM100 40.1 [ref]; an "
                                     "NVLink peer gets 2 max(1, path bw / this) channels (paths.cc) [recalled]",
                 &t.nvlink_bw_per_link_GBps[a]});
}

std::vector<Entry> entries(NcclTuning& t) {
  std::vector<Entry> e;
  const std::string v = "NCCL " + t.version + " tuning.cc; ";
  latency_entries(t, v, e);
  nvls_entries(t, v, e);
  bandwidth_entries(t, v, e);
  correction_entries(t, e);
  thread_and_p2p_entries(t, e);
  return e;
}
}  // namespace

const char* to_string(Link l) { return l == Link::NVLink ? "nvlink" : l == Link::PCIe ? "pcie" : "net"; }
const char* to_string(GpuArch a) { return kArchKey[static_cast<int>(a)]; }
Link parse_link(const std::string& s) {
  const std::string n = lower(s);
  if (n == "nvlink" || n == "nvl") return Link::NVLink;
  if (n == "pcie" || n == "pci") return Link::PCIe;
  if (n == "net" || n == "network") return Link::Net;
  throw UnitError("unknown link class '" + s + "', expected one of: nvlink, pcie, net");
}
GpuArch parse_gpu_arch(const std::string& s) {
  const std::string n = lower(s);
  if (n == "volta" || n == "sm70") return GpuArch::Volta;
  if (n == "ampere" || n == "sm80" || n == "sm86") return GpuArch::Ampere;
  if (n == "hopper" || n == "sm90") return GpuArch::Hopper;
  if (n == "blackwell" || n == "sm100") return GpuArch::Blackwell;
  throw UnitError("unknown GPU architecture '" + s + "', expected one of: volta, ampere, hopper, blackwell");
}

NcclTuning NcclTuning::defaults(const std::string& version) {
  const int minor = parse_nccl_minor(version);
  NcclTuning t;
  t.version = version;
  t.minor = minor;
  // 1.2 baseLatencies, LL / LL128 / Simple. Tree/Simple: 8.4 at 2.30 HEAD (0 before: 1.3 drift note).
  const double ring_base[3] = {6.6, 14.0, 8.4};
  const double tree_base[3] = {6.8, 14.0, 8.4};
  std::copy(ring_base, ring_base + 3, t.base_latency_us[0]);
  std::copy(tree_base, tree_base + 3, t.base_latency_us[1]);
  // 1.3 hwLatencies [link][algo][proto]: NVLink Tree .6/1.25/4, Ring .6/1.9/3.4; PCI Tree 1/1.9/4, Ring 1/2.5/5.7;
  // NET Tree 5/8.5/14, Ring 2.7/4/14.
  const double hw[3][2][3] = {
      {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}}, {{1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}}, {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}}};
  for (int l = 0; l < 3; ++l)
    for (int a = 0; a < 2; ++a)
      for (int p = 0; p < 3; ++p) t.hw_latency_us[l][a][p] = hw[l][a][p];
  // NVLS (1.2 base 0; 1.3 NVLINK/NVLS Simple 25 us; 1.5 efficiency 0.85 Hopper, 0.74 Blackwell; 1.6 16 channels).
  const int nvls = static_cast<int>(Algo::NVLS), simple = static_cast<int>(Proto::Simple);
  t.base_latency_us[nvls][simple] = 0.0;
  t.hw_latency_us[static_cast<int>(Link::NVLink)][nvls][simple] = 25.0;
  // NVLS Tree (1.2 base 0; 1.3 NVLINK/NVLSTree Simple 25 us, NET/NVLSTree Simple 20.9 us; same NVLS efficiency).
  const int nvt = static_cast<int>(Algo::NVLSTree);
  t.base_latency_us[nvt][simple] = 0.0;
  t.hw_latency_us[static_cast<int>(Link::NVLink)][nvt][simple] = 25.0;
  t.hw_latency_us[static_cast<int>(Link::Net)][nvt][simple] = 20.9;
  t.nvls_efficiency[static_cast<int>(GpuArch::Hopper)] = 0.85;
  t.nvls_efficiency[static_cast<int>(GpuArch::Blackwell)] = 0.74;
  t.nvls_max_channels = 16;
  t.proto_efficiency[0] = 0.5;
  t.proto_efficiency[1] = 0.92;
  t.proto_efficiency[2] = 1.0;
  const double ll[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
  const double tr[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
  const double tll128[4][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {55.6, 31.67, 20.0}};
  std::copy(&ll[0][0], &ll[0][0] + 12, &t.ll_max_bw_GBps[0][0]);
  std::copy(&tr[0][0], &tr[0][0] + 12, &t.per_ch_max_tree_bw_GBps[0][0]);
  std::copy(&tll128[0][0], &tll128[0][0] + 12, &t.per_ch_max_tree_ll128_bw_GBps[0][0]);
  const double rll128[4] = {20.0, 20.0, 36.7, 40.0};
  std::copy(rll128, rll128 + 4, t.per_ch_max_ring_ll128_bw_GBps);
  t.net_overhead_us[0] = 1.0;
  t.net_overhead_us[1] = 2.0;
  t.net_overhead_us[2] = 1.0;
  const double corr[3][23] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .6},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  std::copy(&corr[0][0], &corr[0][0] + 69, &t.tree_correction[0][0]);
  t.ring_plateau_factor[0] = 1.9;
  t.ring_plateau_factor[1] = 1.4;
  t.thread_threshold[0] = 8;
  t.thread_threshold[1] = 8;
  t.thread_threshold[2] = 64;
  t.max_threads[0] = 512;
  t.max_threads[1] = 640;
  t.max_threads[2] = 512;
  if (minor < 30) detail::apply_version_tables(t, minor);  // 2.4 .. 2.29 (nccl_versions.cpp)
  return t;
}

int parse_nccl_minor(const std::string& version) {
  // "2.<minor>", optionally ".<patch>" and "-<build>" (NCCL's own spelling, e.g. 2.18.3-1).
  const std::string range =
      "NCCL 2.4 .. 2.30 (a patch level such as 2.18.3 is accepted; vgsim has no tables "
      "before 2.4)";
  std::size_t i = 0;
  auto number = [&](int& out) {
    const std::size_t start = i;
    out = 0;
    while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i])) && i - start < 6)
      out = out * 10 + (version[i++] - '0');
    return i > start;
  };
  int major = 0, minor = 0, patch = 0, build = 0;
  bool ok = number(major) && i < version.size() && version[i++] == '.' && number(minor);
  if (ok && i < version.size() && version[i] == '.') ok = (++i, number(patch));
  if (ok && i < version.size() && version[i] == '-') ok = (++i, number(build));
  ok = ok && i == version.size();
  if (!ok) throw UnitError("'" + version + "' is not an NCCL version (expected " + range + ")");
  if (major != 2 || minor < 4 || minor > 30)
    throw UnitError("unsupported NCCL version '" + version + "', expected " + range);
  return minor;
}

std::vector<NcclTuning::Param> NcclTuning::list() const {
  std::vector<Param> out;
  for (auto& e : entries(const_cast<NcclTuning&>(*this))) {
    std::string source = e.source;  // the HEAD tables' source unless the version's tables name another
    for (const auto& [prefix, s] : sources)
      if (e.name.compare(0, prefix.size(), prefix) == 0) source = s;
    out.push_back({e.name, e.unit, source, *e.p});
  }
  return out;
}

namespace {
double* find_param(NcclTuning& t, const std::string& name) {
  auto es = entries(t);
  std::vector<std::string> names;
  for (auto& e : es) {
    if (e.name == name) return e.p;
    names.push_back(e.name);
  }
  std::string hint = did_you_mean(name, names);
  throw UnitError(
      "unknown NCCL tuning parameter '" + name + "'" +
      (hint.empty() ? std::string(" (`vgsim params` lists the accepted names)") : ", did you mean '" + hint + "'?"));
}
}  // namespace

double NcclTuning::get(const std::string& name) const { return *find_param(const_cast<NcclTuning&>(*this), name); }
void NcclTuning::set(const std::string& name, double value) {
  double* p = find_param(*this, name);
  if (!std::isfinite(value) || value < 0)
    throw UnitError("NCCL tuning parameter '" + name + "' must be a finite value >= 0, got " + std::to_string(value));
  *p = value;
}

namespace {
// Calls `each` with every item of a comma list ("ring,tree"; empty items skipped); returns whether it was an
// exclusion ("^ring").
template <typename F>
bool for_each_item(const std::string& s, F each) {
  std::string body = s;
  const bool exclude = !body.empty() && body[0] == '^';
  if (exclude) body = body.substr(1);
  std::size_t pos = 0;
  while (pos <= body.size()) {
    const std::size_t comma = body.find(',', pos);
    const std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!lower(item).empty()) each(item);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return exclude;
}
std::uint64_t bit(Algo a) { return std::uint64_t{1} << a.id; }
}  // namespace

bool Allowed::allows(Algo a) const {
  if (algos) return a.id < 64 && (*algos & bit(a)) != 0;
  return !algorithm(a).opt_in;
}
bool Allowed::forces_algo() const { return algos && std::popcount(*algos) == 1; }

Allowed parse_allowed(const std::string& algo_s, const std::string& proto_s) {
  Allowed a;
  const std::string algo_body = !algo_s.empty() && algo_s[0] == '^' ? algo_s.substr(1) : algo_s;
  if (!lower(algo_body).empty()) {
    std::uint64_t named = 0, defaults = 0;
    const bool exclude = for_each_item(algo_s, [&](const std::string& x) { named |= bit(parse_algo(x)); });
    for (Algo x : algorithms())
      if (!algorithm(x).opt_in) defaults |= bit(x);
    a.algos = exclude ? defaults & ~named : named;
  }
  const std::string proto_body = !proto_s.empty() && proto_s[0] == '^' ? proto_s.substr(1) : proto_s;
  if (!lower(proto_body).empty()) {
    bool named[3] = {false, false, false};
    const bool exclude =
        for_each_item(proto_s, [&](const std::string& x) { named[static_cast<int>(parse_proto(x))] = true; });
    for (int p = 0; p < 3; ++p) a.proto[p] = exclude ? !named[p] : named[p];
  }
  return a;
}

namespace {
void check_shape(const CommShape& c) {
  if (c.ranks == 0 || c.nodes == 0 || c.ranks % c.nodes != 0)
    throw std::invalid_argument("NCCL model: ranks (" + std::to_string(c.ranks) + ") must be a multiple of nodes (" +
                                std::to_string(c.nodes) + ")");
  if (c.channels == 0) throw std::invalid_argument("NCCL model: channels must be >= 1");
}
}  // namespace

double hop_latency_us(const NcclTuning& t, Link link, Algo algo, Proto proto, const CommShape& c) {
  return algorithm(algo).hop_latency_us(t, link, proto, c);
}

double latency_us(const NcclTuning& t, Op op, Algo algo, Proto proto, const CommShape& c) {
  check_shape(c);
  return algorithm(algo).latency_us(t, op, proto, c);
}

double bandwidth_GBps(const NcclTuning& t, Op op, Algo algo, Proto proto, const CommShape& c) {
  check_shape(c);
  const AlgorithmInfo& info = algorithm(algo);
  if (!info.supports(op)) return 0.0;
  return info.bandwidth_GBps(t, op, proto, c);
}

AlgoTime algo_time(const NcclTuning& t, Op op, Algo algo, Proto proto, Bytes bytes, const CommShape& c) {
  AlgoTime r;
  const AlgorithmInfo& info = algorithm(algo);
  if (!info.supports(op) || (info.simple_only && proto != Proto::Simple) || c.nodes < info.min_nodes ||
      c.nodes > info.max_nodes) {
    r.time_us = -1;
    return r;
  }
  // The release's algorithms and protocols (nccl_versions.cpp): no LL128 before 2.5, no NVLS before 2.17 ...
  if ((proto == Proto::LL128 && !t.has_ll128) || t.minor < info.since_minor) {
    r.time_us = -1;
    return r;
  }
  r.latency_us = latency_us(t, op, algo, proto, c);
  r.bandwidth_GBps = bandwidth_GBps(t, op, algo, proto, c);
  if (info.size_terms) info.size_terms(t, op, proto, bytes, c, r);  // tree correction, ring plateau
  if (!(r.bandwidth_GBps > 0)) {
    r.time_us = -1;
    return r;
  }
  r.time_us = r.latency_us + static_cast<double>(bytes) / (1000.0 * r.bandwidth_GBps);
  return r;
}

Trimmed trim_channels(const NcclTuning& t, Algo algo, Proto proto, Bytes bytes, std::uint32_t channels,
                      std::uint32_t ranks) {
  const AlgorithmInfo& info = algorithm(algo);
  const int p = static_cast<int>(proto);
  double threshold = t.thread_threshold[p];
  if (info.ll_threshold_per_rank && proto == Proto::LL) threshold *= ranks;
  std::uint32_t nc = std::max<std::uint32_t>(1, channels);
  std::uint32_t nt = static_cast<std::uint32_t>(t.max_threads[p]);
  while (static_cast<double>(bytes) < static_cast<double>(nc) * nt * threshold) {
    if (nc >= 2)
      --nc;
    else if (nt % 128 == 0 && nt > 0)
      nt /= 2;
    else
      break;
  }
  if (proto == Proto::Simple) nt += info.simple_sync_threads;
  return {nc, nt};
}

Selection select(const NcclTuning& t, Op op, Bytes bytes, const CommShape& c, const Allowed& allowed) {
  Selection best;
  bool found = false;
  // A single allowed algorithm / protocol is forced (NCCL_ALGO, NCCL_PROTO; 2.4: NCCL_TREE_THRESHOLD): forcing
  // overrides the release's default enable rules (trees on one node in 2.4, LL128 by GPU architecture).
  const bool forced_algo = allowed.forces_algo();
  const bool forced_proto = std::count(allowed.proto, allowed.proto + 3, true) == 1;
  for (const Algo algo : algorithms()) {
    const AlgorithmInfo& info = algorithm(algo);
    if (!allowed.allows(algo) || !info.supports(op)) continue;
    if (info.unavailable && !info.unavailable(c).empty()) continue;
    if (!forced_algo && info.offered_by_default && !info.offered_by_default(t, c)) continue;
    for (int p = 0; p < 3; ++p) {
      const Proto proto = static_cast<Proto>(p);
      if (!allowed.proto[p]) continue;
      if ((op == Op::SendRecv || op == Op::AllToAll || info.simple_only) && proto != Proto::Simple) continue;
      if (proto == Proto::LL128 && !c.ll128_enabled) continue;
      if (proto == Proto::LL128 && !forced_proto && !((t.ll128_default_archs >> static_cast<int>(c.arch)) & 1u))
        continue;
      const AlgoTime at = algo_time(t, op, algo, proto, bytes, c);
      if (at.time_us < 0) continue;
      if (!found || at.time_us < best.cost.time_us) {
        best.algo = algo;
        best.proto = proto;
        best.cost = at;
        found = true;
      }
    }
  }
  if (!found)
    throw std::invalid_argument(std::string("NCCL model: no allowed algorithm/protocol for ") + to_string(op) +
                                " (check NCCL_ALGO / NCCL_PROTO and LL128 availability)");
  const bool nvls_channels = algorithm(best.algo).nvls_channels;
  best.launch = trim_channels(t, best.algo, best.proto, bytes, nvls_channels ? c.nvls_channels : c.channels, c.ranks);
  return best;
}

double busbw_factor(Op op, std::uint32_t n) {
  if (n == 0) return 0;
  switch (op) {
    case Op::AllReduce:
      return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll:
      return static_cast<double>(n - 1) / n;
    default:
      return 1.0;
  }
}

Bytes nccl_tests_size(Op op, Bytes count_bytes, std::uint32_t n) {
  return (op == Op::AllGather || op == Op::ReduceScatter || op == Op::AllToAll) ? count_bytes * n : count_bytes;
}

double algbw_GBps(Bytes size, double time_us) {
  return time_us > 0 ? static_cast<double>(size) / (time_us * 1e3) : 0.0;
}

}  // namespace vgsim::coll
