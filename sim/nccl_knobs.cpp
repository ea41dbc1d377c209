// Parsing and overlaying NCCL's user-facing knobs (include/vgsim/sim/nccl_knobs.hpp).
#include "vgsim/sim/nccl_knobs.hpp"

#include <algorithm>
#include <cctype>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"

namespace vgsim::sim {

namespace {
template <typename F>
auto parsed(const std::string& origin, const std::string& option, const std::string& value, F parse) {
  try {
    return parse(value);
  } catch (const UnitError& e) {
    throw InputError(origin, option, "bad value", "'" + value + "'", e.what());
  }
}
// NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD as written: "" or "auto" -> -2 (NCCL's default), else a whole number
// in [lo, hi] (NCCL's MAX_THREADS 16, MAX_SOCKETS 64; net_socket.cc).
int socket_count(const std::string& origin, const char* name, const std::string& v, int lo, int hi) {
  if (v.empty() || v == "auto") return -2;
  const bool digits = v.size() <= 3 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int n = digits ? std::stoi(v) : -1;
  if (!digits || n < lo || n > hi)
    throw InputError(origin, name, "not a socket thread or socket count", "'" + v + "'",
                     "auto or a whole number " + std::to_string(lo) + ".." + std::to_string(hi));
  return n;
}
}  // namespace

void NcclKnobs::merge(const NcclKnobs& over) {
  if (!over.algo.empty()) algo = over.algo;
  if (!over.proto.empty()) proto = over.proto;
  if (over.channels) channels = over.channels;
  if (!over.p2p_level.empty()) p2p_level = over.p2p_level;
  if (!over.gdr_level.empty()) gdr_level = over.gdr_level;
  if (over.ib_disable) ib_disable = over.ib_disable;
  if (over.p2p_disable) p2p_disable = over.p2p_disable;
  if (over.shm_disable) shm_disable = over.shm_disable;
  if (over.gdr_disable) gdr_disable = over.gdr_disable;
  if (!over.version.empty()) version = over.version;
  if (!over.net.empty()) net = over.net;
  if (over.gdr_read) gdr_read = over.gdr_read;
  if (!over.socket_ifname.empty()) socket_ifname = over.socket_ifname;
  if (!over.socket_nthreads.empty()) socket_nthreads = over.socket_nthreads;
  if (!over.nsocks_perthread.empty()) nsocks_perthread = over.nsocks_perthread;
}

topo::PathType parse_path_level(const std::string& value, const std::string& nccl_version) {
  const int minor = coll::parse_nccl_minor(nccl_version);
  const bool integer = !value.empty() && value.size() <= 9 &&
                       std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!integer) {
    if (!value.empty() && (value[0] == '-' || value[0] == '+' || std::isdigit(static_cast<unsigned char>(value[0]))))
      throw UnitError("'" + value + "' is not a path level: a name (LOC, NVL, PIX, PXB, PHB, SYS) or an integer " +
                      std::string(minor == 4 ? "0..5" : "0..4"));
    return topo::parse_path_type(value);
  }
  const long n = std::stol(value);
  using P = topo::PathType;
  if (minor == 4) {  // 2.4.8: GDR / P2P used while distance < n, enum PIX 0, PXB 1, PHB 2, NODE 3, SYS 4
    static const P k24[] = {P::LOC, P::PIX, P::PXB, P::PHB, P::PHB, P::SYS};
    if (n <= 5) return k24[n];
    throw UnitError("NCCL 2.4 path level " + value +
                    " is out of range: 0..5 (0 none, 1 PIX, 2 PXB, 3 PHB, 4 up to "
                    "NODE, 5 SYS; NCCL 2.4.8 compares distance >= level) or a name");
  }
  static const P kLegacy[] = {P::LOC, P::PIX, P::PXB, P::PHB, P::SYS};  // paths.cc levelsOldToNew
  if (n <= 4) return kLegacy[n];
  throw UnitError("NCCL " + nccl_version + " path level " + value +
                  " is out of range: 0..4 (NCCL's legacy integers: 0 LOC, "
                  "1 PIX, 2 PXB, 3 PHB, 4 SYS; NCCL reads larger numbers as SYS, write SYS to mean it) or a name (LOC, "
                  "NVL, PIX, PXB, PHB, SYS)");
}

coll::NcclTuning NcclKnobs::tuning(const std::string& origin) const {
  return parsed(origin, "--nccl-version", version, [](const std::string& v) { return coll::NcclTuning::defaults(v); });
}

void NcclKnobs::apply(CommOptions& opt, const std::string& origin) const {
  // "auto" (nccl.algo / nccl.proto's first choice, any case) leaves the choice to NCCL's model, as an unset knob does.
  auto is_auto = [](std::string v) {
    for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return v == "auto";
  };
  if (!algo.empty() && !is_auto(algo)) opt.algo = parsed(origin, "--algo", algo, coll::parse_algo);
  if (!proto.empty() && !is_auto(proto)) opt.proto = parsed(origin, "--proto", proto, coll::parse_proto);
  if (channels) opt.channels = channels;
  const std::string v = version.empty() ? "2.30" : version;
  if (!p2p_level.empty() || !gdr_level.empty()) (void)tuning(origin);  // a bad version is named as --nccl-version
  auto level = [&](const std::string& s) { return parse_path_level(s, v); };
  if (!p2p_level.empty()) opt.path.p2p_level = parsed(origin, "--p2p-level", p2p_level, level);
  if (!gdr_level.empty()) opt.path.gdr_level = parsed(origin, "--gdr-level", gdr_level, level);
  // A forced algorithm or protocol the release does not have (NCCL would reject NCCL_ALGO / NCCL_PROTO).
  if (!algo.empty() || !proto.empty()) {
    const coll::NcclTuning t = tuning(origin);
    if (opt.proto == coll::Proto::LL128 && !t.has_ll128)
      throw InputError(origin, "--proto", "NCCL " + v + " has no LL128 protocol (it arrived in 2.5)", proto,
                       "ll or simple, or --nccl-version 2.5 or later");
    const coll::AlgorithmInfo* a = opt.algo ? &coll::algorithm(*opt.algo) : nullptr;
    if (a && t.minor < a->since_minor)
      throw InputError(
          origin, "--algo",
          "NCCL " + v + " has no " + a->title + " algorithm (from 2." + std::to_string(a->since_minor) + ")", algo,
          "ring or tree, or --nccl-version 2." + std::to_string(a->since_minor) + " or later");
  }
  if (ib_disable) opt.path.ib_disable = *ib_disable;
  if (p2p_disable) opt.path.p2p_disable = *p2p_disable;
  if (shm_disable) opt.path.shm_disable = *shm_disable;
  if (gdr_disable) opt.path.gdr_disable = *gdr_disable;
  opt.path.nccl_minor = parsed(origin, "--nccl-version", v, coll::parse_nccl_minor);
  if (!net.empty()) {
    std::string n = net;
    for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (n != "ib" && n != "socket")
      throw InputError(origin, "nccl.net", "NCCL_NET names a transport vgsim does not model", "'" + net + "'",
                       "IB or Socket (NCCL's built-in transports; net plugins are not modelled)");
    opt.path.net = n == "ib" ? "IB" : "Socket";
  }
  opt.path.socket_ifname = socket_ifname;
  if (gdr_read) opt.path.gdr_read = *gdr_read ? 1 : 0;
  opt.path.socket_nthreads = socket_count(origin, "--socket-nthreads (nccl.socket_nthreads)", socket_nthreads, 0, 16);
  opt.path.nsocks_perthread =
      socket_count(origin, "--nsocks-perthread (nccl.nsocks_perthread)", nsocks_perthread, 1, 64);
}

void NcclKnobs::set(const std::string& name, const Json& value) {
  const auto text = [&] { return value.get<std::string>(); };
  if (name == "nccl.version")
    version = text();
  else if (name == "nccl.algo")
    algo = text() == "auto" ? "" : text();
  else if (name == "nccl.proto")
    proto = text() == "auto" ? "" : text();
  else if (name == "nccl.channels")
    channels = value.get<std::uint32_t>();
  else if (name == "nccl.p2p_level")
    p2p_level = text();
  else if (name == "nccl.gdr_level")
    gdr_level = text();
  else if (name == "nccl.ib_disable")
    ib_disable = value.get<bool>();
  else if (name == "nccl.p2p_disable")
    p2p_disable = value.get<bool>();
  else if (name == "nccl.shm_disable")
    shm_disable = value.get<bool>();
  else if (name == "nccl.gdr_disable")
    gdr_disable = value.get<bool>();
  else if (name == "nccl.net")
    net = text() == "auto" ? "" : text();
  else if (name == "nccl.socket_ifname")
    socket_ifname = text() == "auto" ? "" : text();
  else if (name == "nccl.gdr_read")
    gdr_read = text() == "auto" ? std::optional<bool>() : std::optional<bool>(text() == "1");
  else if (name == "nccl.socket_nthreads")
    socket_nthreads = value.is_string() ? text() : std::to_string(value.get<long long>());
  else if (name == "nccl.nsocks_perthread")
    nsocks_perthread = value.is_string() ? text() : std::to_string(value.get<long long>());
  else
    throw std::logic_error("not an NCCL knob: " + name);
}

const std::vector<ParamDecl>& nccl_knob_params() {
  static const std::vector<ParamDecl> decls = [] {
    auto d = [](const char* name, ParamType type, const char* help, const char* source) {
      ParamDecl p;
      p.name = name;
      p.type = type;
      p.help = help;
      p.source = source;
      return p;
    };
    const char* env = "NCCL default (NCCL's environment variable unset)";
    ParamDecl channels =
        d("nccl.channels", ParamType::Integer, "pinned channel count (NCCL_MIN/MAX_NCHANNELS; 0: NCCL's choice)",
          "NCCL default: from the route bottleneck, trimmed per size as NCCL does");
    channels.min = 0, channels.max = 64;  // 0: NCCL's choice
    channels.unit = "channels";
    ParamDecl algo = d("nccl.algo", ParamType::Choice, coll::algorithm_help().c_str(), env);
    algo.choices = {"auto"};  // then every registered algorithm's name (workloads/collectives/algorithm_registry.hpp)
    for (coll::Algo a : coll::algorithms()) algo.choices.push_back(coll::to_string(a));
    ParamDecl proto = d("nccl.proto", ParamType::Choice, "force the protocol like NCCL_PROTO", env);
    proto.choices = {"auto", "ll", "ll128", "simple"};
    ParamDecl net = d("nccl.net", ParamType::Choice, "NCCL_NET: force the IB (verbs) or Socket transport",
                      "NCCL default: unset (IB when an RDMA port is ACTIVE, else sockets; src/transport/net_ib.cc)");
    net.choices = {"auto", "IB", "Socket"};
    ParamDecl gdr_read =
        d("nccl.gdr_read", ParamType::Choice,
          "NCCL_NET_GDR_READ: 1 = the NIC reads GPU memory when sending (GPUDirect on sends), 0 = sends staged "
          "through host memory (receives may still use GPUDirect)",
          "NCCL default (auto): from 2.19 on for compute capability >= 8.0; otherwise only for a GPU with an "
          "NVLink peer or alone in its node (src/graph/paths.cc ncclTopoCheckGdr)");
    gdr_read.choices = {"auto", "0", "1"};
    const char* threads_default =
        "NCCL default (auto): 2.4 one helper thread x 1 socket; from 2.5 none (the proxy thread drives the control "
        "socket) for a generic NIC; AWS (0x1d0f) 2 x 8; GCP gVNIC (0x1ae0) 4 x 1 from 2.5 (src/transport/net_socket.cc "
        "ncclNetSocketGetNsockNthread)";
    return std::vector<ParamDecl>{
        d("nccl.version", ParamType::Text, "an NCCL release 2.4 .. 2.30 (a patch level such as 2.18.3 accepted)",
          "default: 2.30 (the HEAD tables of nccl_tuning.cpp)"),
        algo,
        proto,
        channels,
        d("nccl.p2p_level", ParamType::Text,
          "NCCL_P2P_LEVEL: LOC, NVL, PIX, PXB, PHB, SYS, or NCCL's legacy integer 0-4 (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 "
          "SYS; 2.4: 0-5)",
          "NCCL default: PXB"),
        d("nccl.gdr_level", ParamType::Text,
          "NCCL_NET_GDR_LEVEL: LOC, PIX, PXB, PHB, SYS, or NCCL's legacy integer 0-4 (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 "
          "SYS; 2.4: 0-5)",
          "NCCL default: PXB"),
        d("nccl.ib_disable", ParamType::Boolean, "NCCL_IB_DISABLE=1: TCP sockets between nodes", env),
        d("nccl.p2p_disable", ParamType::Boolean, "NCCL_P2P_DISABLE=1", env),
        d("nccl.shm_disable", ParamType::Boolean, "NCCL_SHM_DISABLE=1", env),
        d("nccl.gdr_disable", ParamType::Boolean, "no GPUDirect RDMA (e.g. no nvidia-peermem / ATS off)", env),
        net,
        d("nccl.socket_ifname", ParamType::Text,
          "NCCL_SOCKET_IFNAME: interface name prefixes, comma-separated; a leading ^ excludes, = matches exactly; "
          "auto = unset",
          "NCCL default: unset (ib* first, else every interface but docker*, lo*, virbr*; src/misc/socket.cc)"),
        gdr_read,
        d("nccl.socket_nthreads", ParamType::Text,
          "NCCL_SOCKET_NTHREADS: helper threads per socket connection, 0-16 (0: the proxy thread sends on the "
          "control socket); auto = unset",
          threads_default),
        d("nccl.nsocks_perthread", ParamType::Text,
          "NCCL_NSOCKS_PERTHREAD: TCP sockets per helper thread, 1-64 (threads x sockets at most 64); auto = unset",
          threads_default),
    };
  }();
  return decls;
}

}  // namespace vgsim::sim
