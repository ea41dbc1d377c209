// nccl-tests command lines for `vgsim collective` (see cli/nccl_tests_compat.hpp). The option list, parsesize, the
// type and reduction lists and the rank count follow NVIDIA/nccl-tests src/common.cu (longopts, parsesize,
// test_typenames, test_opnames; ranks = processes x nThreads x nGpus, each process driving GPUs
// localRank x nThreads x nGpus + i of its node).
#include "nccl_tests_compat.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"

namespace vgsim::cli {

namespace {

// nccl-tests' options (src/common.cu longopts) that vgsim accepts and ignores, with why they cannot change a
// simulation. The others (-t -g -b -e -i -f -o -d -r, and -n -w -c printed in the preamble) are modelled.
struct IgnoredOption {
  const char* flags;  // CLI11 spelling: short and nccl-tests' long name
  const char* name;   // nccl-tests' long name, for the note
  const char* help;
};
constexpr std::array<IgnoredOption, 19> kIgnored{{
    {"-m,--agg_iters", "agg_iters", "calls aggregated per iteration (one simulated call per size)"},
    {"-N,--run_cycles", "run_cycles", "times the sweep repeats (a simulation gives the same rows each cycle)"},
    {"-p,--parallel_init", "parallel_init", "communicator set-up in parallel threads (not simulated)"},
    {"-z,--blocking", "blocking", "barriers between calls (one call per size on an idle cluster)"},
    {"-y,--stream_null", "stream_null", "the default CUDA stream (not simulated)"},
    {"-T,--timeout", "timeout", "a watchdog timeout (a simulation does not hang)"},
    {"-G,--cudagraph", "cudagraph", "CUDA graph launches (launch overhead is not simulated; printed in the preamble)"},
    {"-C,--report_cputime", "report_cputime", "CPU instead of GPU time (the simulated time is one time)"},
    {"-S,--report_timestamps", "report_timestamps", "a timestamp per row (not printed)"},
    {"-J,--output_file", "output_file", "nccl-tests' JSON file (not written; --json writes vgsim's rows)"},
    {"-a,--average", "average", "which rank's time is reported (every simulated rank ends at once)"},
    {"-R,--local_register", "local_register", "buffer registration (not modelled)"},
    {"-x,--cta_policy", "cta_policy", "NCCL's CTA policy (not modelled)"},
    {"-D,--device_implementation", "device_implementation", "a device-API implementation (not modelled)"},
    {"-V,--device_cta_count", "device_cta_count", "CTAs of the device implementation (not modelled)"},
    {"-M,--memory", "memory", "a GPU memory report (no memory is allocated)"},
    {"-u,--unalign", "unalign", "buffer misalignment (not modelled)"},
    {"-I,--per_iter_timing", "per_iter_timing", "per-iteration timing columns (one deterministic time)"},
    {"-K,--per_iter_skip", "per_iter_skip", "samples left out of -I (one deterministic time)"},
}};
constexpr std::size_t kAggIters = 0, kCudaGraph = 6, kOutputFile = 9;

// nccl-tests reads these with strtol(optarg, NULL, 0): decimal, 0x hex or 0 octal, optionally signed.
bool is_integer(const std::string& v) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
  char* end = nullptr;
  std::strtoll(v.c_str(), &end, 0);
  return end && *end == '\0';
}

int integer_or(const IgnoredNcclTestsOptions& o, std::size_t k, int fallback) {
  if (k >= o.values.size() || o.values[k].empty()) return fallback;
  return static_cast<int>(std::strtoll(o.values[k].c_str(), nullptr, 0));
}

}  // namespace

void add_ignored_nccl_tests_options(CLI::App* c, IgnoredNcclTestsOptions& o) {
  o.values.assign(kIgnored.size(), "");
  for (std::size_t k = 0; k < kIgnored.size(); ++k)
    c->add_option(kIgnored[k].flags, o.values[k],
                  std::string("nccl-tests option, accepted and ignored: ") + kIgnored[k].help);
}

std::string ignored_options_note(const IgnoredNcclTestsOptions& o) {
  std::string listed;
  for (std::size_t k = 0; k < o.values.size() && k < kIgnored.size(); ++k) {
    const std::string& v = o.values[k];
    if (v.empty()) continue;
    const std::string flag = std::string(kIgnored[k].flags).substr(0, 2) + "/--" + kIgnored[k].name;
    if (k != kOutputFile && !is_integer(v))
      throw InputError("", flag, "not an integer", v,
                       "an integer, as nccl-tests takes it (the option is accepted and does not change a simulation)");
    listed += (listed.empty() ? "" : ", ") + std::string(kIgnored[k].flags).substr(0, 2) + " " + v + " (" +
              kIgnored[k].name + ")";
  }
  if (listed.empty()) return "";
  return "nccl-tests options accepted and ignored (they do not change a simulation; vgsim collective --help says "
         "why): " +
         listed;
}

int agg_iters(const IgnoredNcclTestsOptions& o) { return integer_or(o, kAggIters, 1); }
int graph_launches(const IgnoredNcclTestsOptions& o) { return integer_or(o, kCudaGraph, 0); }

Bytes parse_nccl_tests_size(const std::string& option, const std::string& text) {
  // parsesize: sscanf("%lf %1s"), then K/k 1024, M/m 1024^2, G/g 1024^3 ("NOTE: We use the binary system").
  if (text.size() >= 2) {
    const char unit = text.back();
    const std::string number = text.substr(0, text.size() - 1);
    double scale = 0;
    if (unit == 'k' || unit == 'K') scale = 1024.0;
    if (unit == 'm' || unit == 'M') scale = 1024.0 * 1024;
    if (unit == 'g' || unit == 'G') scale = 1024.0 * 1024 * 1024;
    char* end = nullptr;
    const double v = scale > 0 ? std::strtod(number.c_str(), &end) : 0;
    if (scale > 0 && end && *end == '\0' && std::isdigit(static_cast<unsigned char>(number.back())) && v * scale >= 0 &&
        v * scale < 9.2e18)  // Bytes is a signed 64-bit count
      return static_cast<Bytes>(v * scale + 0.5);
  }
  try {
    return parse_bytes(text);
  } catch (const UnitError& e) {
    throw InputError("", option, "bad size", "'" + text + "'",
                     std::string(e.what()) + "; nccl-tests' units K, M, G may be lower case (1m, 8k, 1g)");
  }
}

namespace {
struct TypeInfo {
  const char* name;
  std::int64_t bytes;
  int since_minor;  // NCCL 2.<minor> that has it (nccl-tests adds it to "all" from there)
  bool needs_sm90;  // nccl-tests leaves it out of "all" on GPUs below compute capability 9.0
};
// src/common.cu test_typenames (NCCL >= 2.10 build), in order.
constexpr std::array<TypeInfo, 12> kTypes{{{"int8", 1, 0, false},
                                           {"uint8", 1, 0, false},
                                           {"int32", 4, 0, false},
                                           {"uint32", 4, 0, false},
                                           {"int64", 8, 0, false},
                                           {"uint64", 8, 0, false},
                                           {"half", 2, 0, false},
                                           {"float", 4, 0, false},
                                           {"double", 8, 0, false},
                                           {"bfloat16", 2, 10, false},
                                           {"f8e4m3", 1, 24, true},
                                           {"f8e5m2", 1, 24, true}}};
std::string type_names() {
  std::string s;
  for (const auto& t : kTypes) s += std::string(s.empty() ? "" : ", ") + t.name;
  return s + " or all";
}
struct RedopInfo {
  const char* name;
  int since_minor;
};
// src/common.cu test_opnames, in order (avg from NCCL 2.10, PreMulSum "mulsum" from 2.11).
constexpr std::array<RedopInfo, 6> kRedops{
    {{"sum", 0}, {"prod", 0}, {"max", 0}, {"min", 0}, {"avg", 10}, {"mulsum", 11}}};
}  // namespace

std::int64_t type_size(const std::string& type) {
  for (const auto& t : kTypes)
    if (type == t.name) return t.bytes;
  std::vector<std::string> names;
  for (const auto& t : kTypes) names.emplace_back(t.name);
  const std::string hint = did_you_mean(type, names);
  throw InputError("", "-d/--type", "unknown data type" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), type,
                   type_names() + " (nccl-tests' names)");
}

std::vector<std::string> data_types(const std::string& datatype, int nccl_minor, std::uint32_t min_sm_version) {
  if (datatype != "all") {
    type_size(datatype);  // checks the name
    return {datatype};
  }
  std::vector<std::string> out;
  for (const auto& t : kTypes)
    if (nccl_minor >= t.since_minor && (!t.needs_sm90 || min_sm_version >= 90)) out.emplace_back(t.name);
  return out;
}

bool is_reduction(const std::string& name) {
  return name == "all" ||
         std::any_of(kRedops.begin(), kRedops.end(), [&](const RedopInfo& r) { return name == r.name; });
}

std::vector<std::string> reductions(const std::string& redop, int nccl_minor) {
  if (redop != "all") return {redop};
  std::vector<std::string> out;
  for (const auto& r : kRedops)
    if (nccl_minor >= r.since_minor) out.emplace_back(r.name);
  return out;
}

namespace {
std::string num(std::uint64_t v) { return std::to_string(v); }

// --np: processes of t x g GPUs each, node after node (mpirun's default by-slot mapping, a node's slots = its GPUs /
// (t x g)), or spread evenly over --nodes.
RankLayout layout_from_processes(const RankRequest& q, const topo::Cluster& cluster) {
  if (q.gpus_per_node)
    throw InputError("", "--np", "--np and --gpus-per-node both set the GPUs used per node",
                     "--np " + num(q.np) + " --gpus-per-node " + num(q.gpus_per_node),
                     "one of them: --np N for `mpirun -np N` (ranks = N x -t x -g), or --nodes x --gpus-per-node");
  const auto instances = sim::os_instances(cluster);
  const std::uint64_t per_process = std::uint64_t{q.nthreads} * (q.ngpus ? q.ngpus : 1);
  const std::uint64_t slots = instances.empty() ? 0 : instances[0].size();  // GPUs of the first node
  const std::uint64_t ranks = std::uint64_t{q.np} * per_process;
  const std::string spelled = "--np " + num(q.np) + " x -t " + num(q.nthreads) + " x -g " + num(q.ngpus ? q.ngpus : 1) +
                              " = " + num(ranks) + " ranks";
  const std::string size = num(instances.size()) + " node(s) x " + num(slots) + " GPUs";
  if (per_process > slots)
    throw InputError("", "-t/-g", "a process drives -t x -g = " + num(per_process) + " GPUs of one node",
                     spelled + " on cluster '" + cluster.name() + "' (" + size + ")",
                     "-t x -g <= " + num(slots) + " (the GPUs of one node)");
  std::uint64_t nodes = q.nodes, per_node = 0;  // processes per node
  if (nodes) {
    if (nodes > instances.size())
      throw InputError("", "--nodes", "not enough nodes in cluster '" + cluster.name() + "'", num(nodes),
                       "1.." + num(instances.size()));
    if (q.np % nodes != 0)
      throw InputError("", "--np", "processes do not divide evenly over --nodes " + num(nodes), num(q.np),
                       "a multiple of " + num(nodes) + " (vgsim places the same number of ranks on every node)");
    per_node = q.np / nodes;
    if (per_node * per_process > slots)
      throw InputError("", "--np", "more ranks per node than a node has GPUs",
                       spelled + " over " + num(nodes) + " node(s) = " + num(per_node * per_process) + " per node",
                       "at most " + num(slots) + " ranks per node (cluster '" + cluster.name() + "': " + size + ")");
  } else {
    const std::uint64_t fit = slots / per_process;  // processes a node holds
    nodes = (q.np + fit - 1) / fit;
    if (nodes > instances.size())
      throw InputError("", "--np", "more ranks than the cluster has GPUs",
                       spelled + ", which need " + num(nodes) + " node(s) of " + num(fit * per_process) + " ranks",
                       "at most " + num(instances.size() * fit) + " processes of " + num(per_process) +
                           " GPU(s) on cluster '" + cluster.name() + "' (" + size + ")");
    per_node = std::min<std::uint64_t>(q.np, fit);
    if (q.np % per_node != 0)
      throw InputError("", "--np", "the last node would hold fewer ranks than the others", spelled,
                       "a multiple of " + num(per_node) +
                           " processes (vgsim places the same number of ranks on every "
                           "node), or --nodes to spread them evenly");
  }
  return {static_cast<std::uint32_t>(nodes), static_cast<std::uint32_t>(per_node * per_process), ""};
}
}  // namespace

RankLayout rank_layout(const RankRequest& q, const topo::Cluster& cluster) {
  if (q.np) return layout_from_processes(q, cluster);
  RankLayout l;
  l.nodes = q.nodes ? q.nodes : static_cast<std::uint32_t>(sim::os_instances(cluster).size());
  // nccl-tests runs g GPUs x t threads per process; one process per node unless --gpus-per-node says otherwise.
  l.gpus_per_node = q.gpus_per_node ? q.gpus_per_node
                    : q.ngpus       ? q.ngpus * std::max<std::uint32_t>(1, q.nthreads)
                                    : static_cast<std::uint32_t>(cluster.hosts()[0].gpus.size());
  if (q.ngpus && !q.gpus_per_node && l.nodes > 1)
    l.note = "-g " + num(q.ngpus) + " -t " + num(q.nthreads) + " without --np: one process per node, " + num(l.nodes) +
             " node(s) x " + num(l.gpus_per_node) + " GPU(s) = " + num(l.nodes * l.gpus_per_node) +
             " ranks (nccl-tests' rank count is mpirun -np x -t x -g: --np N simulates `mpirun -np N`)";
  return l;
}

}  // namespace vgsim::cli
