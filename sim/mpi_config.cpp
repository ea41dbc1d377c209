// The Open MPI model's parameters (include/vgsim/sim/mpi_collective.hpp): declarations with bounds and sources, the
// defaults per transport, and the configuration of a cluster plus `--set mpi.*` values. Protocol limits are from the
// (docs/SOURCES.md#open-mpi, strength A: TCP BTL btl_tcp_component.c v3.1.6/v4.1.6 l.317; openib
// btl_openib_mca.c v4.1.6 l.548-553; vader btl_vader_component.c v4.1.6 l.240-255; PSM2 psm_config.h
// PSM2_12.0.1 l.153-169). Costs are ASSUMPTIONs with bounds unless a source is named; calibrate them with
// `vgsim calibrate fit-mpi`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/mpi_collective.hpp"

namespace vgsim::sim {

namespace {

struct TransportDefaults {
  double latency_us;
  double wire_efficiency;
  Bytes eager_limit;
  const char* latency_source;
  const char* eager_source;
  const char* wire_source;
};

const TransportDefaults& defaults_of(MpiTransport t) {
  static const TransportDefaults tcp{
      5.0,
      1448.0 / 1538.0,
      65536,
      "ASSUMPTION: kernel TCP stack one way (syscall, softirq, wake-up), 5 us, bounded 2-200 us; plus the NIC's "
      "receive interrupt moderation",
      "btl_tcp_eager_limit 65536 (btl_tcp_component.c v3.1.6 = v4.1.6 l.317; includes the ob1 header)",
      "TCP payload per 1500 B MTU frame over wire bytes, 1448/1538 (IEEE 802.3, RFC 791/793/7323; as the presets)"};
  static const TransportDefaults openib{1.5,
                                        0.97,
                                        12288,
                                        "ASSUMPTION: verbs MPI small-message latency class 1-2 us, bounded 0.5-20 us",
                                        "btl_openib_eager_limit 12 KiB (btl_openib_mca.c v4.1.6 l.548)",
                                        "ASSUMPTION: RDMA payload share at 4 KiB MTU, bounded 0.9-1"};
  static const TransportDefaults ucx{1.5,
                                     0.97,
                                     8192,
                                     "ASSUMPTION: UCX small-message latency class 1-2 us, bounded 0.5-20 us",
                                     "ASSUMPTION: UCX_RNDV_THRESH is auto (ucp_context.c l.142); 8 KiB = UCX_SEG_SIZE "
                                     "(l.260) as the eager/rendezvous switch",
                                     "ASSUMPTION: RDMA payload share at 4 KiB MTU, bounded 0.9-1"};
  static const TransportDefaults psm2{
      1.0,
      0.97,
      64000,
      "ASSUMPTION: Omni-Path MPI latency about 1 us (docs/SOURCES.md#cpu-training, grade D), bounded 0.5-20 us",
      "PSM2 MQ_HFI_THRESH_RNDV_XEON 64000 (psm_config.h PSM2_12.0.1 l.153-169)",
      "ASSUMPTION: Omni-Path LTP framing (1056-bit LTP, 16-bit CRC and credits) about 97 %, bounded 0.9-1"};
  switch (t) {
    case MpiTransport::Tcp:
      return tcp;
    case MpiTransport::Openib:
      return openib;
    case MpiTransport::Ucx:
      return ucx;
    case MpiTransport::Psm2:
      return psm2;
  }
  return tcp;
}

ParamDecl num(const std::string& name, const std::string& unit, double lo, double hi, const std::string& help,
              const std::string& source, bool lo_open = false) {
  ParamDecl d;
  d.name = name, d.type = ParamType::Number, d.unit = unit, d.min = lo, d.max = hi, d.min_open = lo_open;
  d.help = help, d.source = source;
  return d;
}

ParamDecl choice(const std::string& name, std::vector<std::string> choices, const std::string& help,
                 const std::string& source) {
  ParamDecl d;
  d.name = name, d.type = ParamType::Choice, d.choices = std::move(choices), d.help = help, d.source = source;
  return d;
}

ParamDecl typed(const std::string& name, ParamType t, const std::string& help, const std::string& source) {
  ParamDecl d;
  d.name = name, d.type = t, d.help = help, d.source = source;
  return d;
}

// Skylake-SP-class single-core rates (ASSUMPTIONS with bounds; the OSU cluster's CPU is not stated).
constexpr double kCopyGBps = 10.0;
constexpr double kCoreDramGBps = 6.4;
constexpr double kCacheMiB = 16.0;
constexpr double kShmLatencyUs = 0.5;
constexpr double kScalarClockHz = 2.4e9;

// op/base: a scalar `out[i] += in[i]` loop, about one float per cycle (docs/SOURCES.md#open-mpi, op_base_functions.c
// l.39-50, grade A for the code, the rate is an ASSUMPTION); op/avx (>= 4.1): about 10x (Zhong et al., EuroMPI
// 2020, grade B, in cache).
double default_reduce_GBps(coll::OmpiRelease r, double clock_hz) {
  return 4.0 * clock_hz * 1e-9 * (coll::has_op_avx(r) ? 10.0 : 1.0);
}

double clock_of(const topo::Catalog&, const std::string&) {
  return kScalarClockHz;  // ASSUMPTION: 2.4 GHz (the Gold 6148's base clock, catalog cpus.json); any core of this era
}

// Receive interrupt moderation a kernel TCP message waits for, by NIC driver default (grade D: recalled driver
// constants, not checked against the source; calibrate mpi.latency): Intel i40e (X710/XL710) I40E_ITR_RX_DEF =
// I40E_ITR_20K, one interrupt per 50 us; Mellanox mlx5 (ConnectX) adaptive moderation (DIM) that drops to its lowest
// profile at ping-pong message rates: about 0 us added.
double nic_rx_moderation_us(const std::string& nic_model) {
  if (nic_model.rfind("intel-x710", 0) == 0 || nic_model.rfind("intel-xl710", 0) == 0) return 50.0;
  return 0.0;
}

}  // namespace

const char* to_string(MpiTransport t) {
  switch (t) {
    case MpiTransport::Tcp:
      return "tcp";
    case MpiTransport::Openib:
      return "openib";
    case MpiTransport::Ucx:
      return "ucx";
    case MpiTransport::Psm2:
      return "psm2";
  }
  return "?";
}

MpiTransport parse_mpi_transport(const std::string& s) {
  for (MpiTransport t : {MpiTransport::Tcp, MpiTransport::Openib, MpiTransport::Ucx, MpiTransport::Psm2})
    if (s == to_string(t)) return t;
  throw UnitError("unknown MPI transport '" + s + "': expected tcp, openib, ucx or psm2");
}

const std::vector<ParamDecl>& mpi_param_decls() {
  static const std::vector<ParamDecl> decls = [] {
    std::vector<ParamDecl> d;
    d.push_back(choice("mpi.release", {"3.1", "4.0", "4.1", "5.0"},
                       "Open MPI release: coll/tuned decision table (3.1/4.0 vs 4.1/5.0) and op/avx (4.1+)",
                       "default 4.0: the OSU development data follow the 3.1/4.0 table (data/measured/osu-openmpi/"
                       "README.md)"));
    d.push_back(choice("mpi.transport", {"tcp", "openib", "ucx", "psm2"},
                       "inter-node point-to-point path: btl tcp, btl openib (verbs), pml ucx, mtl psm2",
                       "default from the NIC: psm2 on Omni-Path, else tcp (ASSUMPTION: RoCE needs explicit UCX/openib "
                       "setup, so Ethernet runs TCP)"));
    d.push_back(typed("mpi.dynamic_rules", ParamType::Boolean,
                      "coll_tuned_use_dynamic_rules: without it a forced algorithm is ignored",
                      "Open MPI default false (coll_tuned_component.c v4.1.6 l.177-183)"));
    d.push_back(typed("mpi.algorithm", ParamType::Text,
                      "forced coll/tuned algorithm (coll_tuned_<op>_algorithm): default, a name or an id",
                      "Open MPI default 0 = fixed rules (coll_tuned_allreduce_decision.c v4.1.6 l.77-119)"));
    d.push_back(typed("mpi.segment_size", ParamType::Bytes, "coll_tuned_allreduce_algorithm_segmentsize (forced)",
                      "Open MPI default 0 = no segmentation (docs/SOURCES.md#open-mpi)"));
    d.push_back(typed("mpi.eager_limit", ParamType::Bytes, "inter-node eager/rendezvous switch",
                      "transport default: tcp 65536, openib 12288, ucx 8192, psm2 64000 (docs/SOURCES.md#open-mpi)"));
    d.push_back(typed("mpi.shm_eager_limit", ParamType::Bytes, "shared-memory (vader) eager limit",
                      "btl_vader eager 4 KiB without XPMEM (btl_vader_component.c v4.1.6 l.240-255)"));
    d.push_back(num("mpi.latency", "us", 0.1, 500, "one-way time of a small inter-node message (stack + wire)",
                    "transport default (see vgsim params --library mpi)"));
    d.push_back(num("mpi.shm_latency", "us", 0.05, 50, "one-way time of a small shared-memory message",
                    "ASSUMPTION 0.5 us (vader fifo + wake-up), bounded 0.05-50"));
    d.push_back(num("mpi.wire_efficiency", "fraction", 0.3, 1, "payload share of the NIC line rate",
                    "transport default", true));
    d.push_back(num("mpi.copy_bandwidth", "GB/s", 0.1, 100,
                    "bytes per second a progress core copies in cache (send side and receive side each)",
                    "ASSUMPTION 10 GB/s: one Skylake-SP-class core's in-cache copy incl. the TCP stack, bounded "
                    "1-50",
                    true));
    d.push_back(num("mpi.reduce_bandwidth", "GB/s", 0.1, 1000, "vector bytes per second a core reduces in cache",
                    "op/base scalar loop: 4 B x 2.4 GHz (1 float/cycle; op_base_functions.c l.39-50, rate "
                    "ASSUMPTION); op/avx (4.1+): x10 (Zhong et al. EuroMPI 2020, grade B)",
                    true));
    d.push_back(
        num("mpi.core_memory_bandwidth", "GB/s", 0.5, 100,
            "one core's streaming DRAM bandwidth (copies and reductions out of cache move 3 B per byte)",
            "ASSUMPTION 6.4 GB/s: Little's law, ~10 line-fill buffers x 64 B / ~100 ns DRAM latency (Skylake-SP mesh; "
            "grade C arithmetic, single-core STREAM on such parts is 6-13 GB/s), bounded 3-30",
            true));
    d.push_back(num("mpi.cache_size", "MiB", 0.5, 1024,
                    "working set (2 x the collective's buffer) above which copies and reductions run at DRAM rate",
                    "ASSUMPTION 16 MiB: order of a Xeon's shared L3 (Gold 6148 27.5 MB, grade D)", true));
    d.push_back(num("mpi.rendezvous_round_trips", "", 0, 4,
                    "extra round trips of a message above the eager limit (RNDV header, ACK/PUT request)",
                    "1: ob1 RNDV + ACK (docs/SOURCES.md#open-mpi; the TCP PUT path is grade C)"));
    return d;
  }();
  return decls;
}

MpiConfig mpi_config_from(const topo::Cluster& cluster, const topo::Catalog& catalog,
                          const std::vector<std::string>& sets, const std::string& origin) {
  std::map<std::string, Json> given;
  ParamRegistry reg;
  reg.add(mpi_param_decls());
  for (const std::string& kv : sets) {
    const auto [name, text] = split_assignment(kv, origin);
    given[name] = read_param(reg.require(name, origin), text, origin);
  }
  auto text_of = [&](const std::string& n, const std::string& dflt) {
    return given.count(n) ? given[n].get<std::string>() : dflt;
  };
  MpiConfig c;
  c.cluster_name = cluster.name();
  std::string nic_model, cpu_model;
  std::uint32_t sockets = 1;
  if (!cluster.hosts().empty()) {
    const topo::HostInfo& h = cluster.hosts()[0];
    cpu_model = h.cpu_model, sockets = std::max<std::uint32_t>(1, h.sockets);
    if (!h.nics.empty()) {
      const topo::NicInfo& n = cluster.nics()[h.nics[0]];
      nic_model = n.model, c.nic_speed = n.speed;
    }
  }
  if (!cpu_model.empty() && catalog.cpus().count(cpu_model))
    c.node_memory_bandwidth = Bandwidth{catalog.cpu(cpu_model).memory_bandwidth.bytes_per_s * sockets};
  auto note = [&](const std::string& n, const std::string& v, const std::string& src) {
    c.provenance.emplace_back(n, v + "  # " + (given.count(n) ? origin : src));
  };
  c.release = coll::parse_ompi_release(text_of("mpi.release", "4.0"));
  const bool opa = nic_model.find("omnipath") != std::string::npos;
  c.transport = parse_mpi_transport(text_of("mpi.transport", opa ? "psm2" : "tcp"));
  c.dynamic_rules = given.count("mpi.dynamic_rules") ? given["mpi.dynamic_rules"].get<bool>() : false;
  c.forced_algorithm = text_of("mpi.algorithm", "default");
  if (c.forced_algorithm == "default" || c.forced_algorithm == "0") c.forced_algorithm.clear();
  c.segment_bytes = parse_bytes(text_of("mpi.segment_size", "0"));
  const TransportDefaults& td = defaults_of(c.transport);
  c.eager_limit = parse_bytes(text_of("mpi.eager_limit", std::to_string(td.eager_limit)));
  c.shm_eager_limit = parse_bytes(text_of("mpi.shm_eager_limit", "4096"));
  auto number = [&](const std::string& n, double dflt) { return given.count(n) ? given[n].get<double>() : dflt; };
  MpiPhysics& ph = c.physics;
  const double moderation = c.transport == MpiTransport::Tcp ? nic_rx_moderation_us(nic_model) : 0.0;
  ph.latency_us = number("mpi.latency", td.latency_us + moderation);
  ph.shm_latency_us = number("mpi.shm_latency", kShmLatencyUs);
  ph.wire_efficiency = number("mpi.wire_efficiency", td.wire_efficiency);
  ph.copy_GBps = number("mpi.copy_bandwidth", kCopyGBps);
  ph.reduce_GBps = number("mpi.reduce_bandwidth", default_reduce_GBps(c.release, clock_of(catalog, cpu_model)));
  ph.core_dram_GBps = number("mpi.core_memory_bandwidth", kCoreDramGBps);
  ph.cache_MiB = number("mpi.cache_size", kCacheMiB);
  ph.rendezvous_round_trips = number("mpi.rendezvous_round_trips", 1.0);
  note("mpi.release", coll::to_string(c.release), "default (3.1/4.0 table; see data/measured/osu-openmpi/README.md)");
  note("mpi.transport", to_string(c.transport), "from the NIC " + (nic_model.empty() ? "(none)" : nic_model));
  note("mpi.dynamic_rules", c.dynamic_rules ? "true" : "false", "Open MPI default");
  note("mpi.algorithm", c.forced_algorithm.empty() ? "default" : c.forced_algorithm, "Open MPI default (fixed rules)");
  note("mpi.segment_size", std::to_string(c.segment_bytes), "Open MPI default");
  note("mpi.eager_limit", std::to_string(c.eager_limit), td.eager_source);
  note("mpi.shm_eager_limit", std::to_string(c.shm_eager_limit), "btl_vader, no XPMEM");
  auto g = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  note("mpi.latency", g(ph.latency_us),
       std::string(td.latency_source) + (moderation > 0
                                             ? "; + " + g(moderation) + " us receive interrupt moderation of " +
                                                   nic_model + " (i40e ITR default, grade D)"
                                             : ""));
  note("mpi.shm_latency", g(ph.shm_latency_us), "ASSUMPTION (vader fifo + wake-up)");
  note("mpi.wire_efficiency", g(ph.wire_efficiency), td.wire_source);
  note("mpi.copy_bandwidth", g(ph.copy_GBps), "ASSUMPTION (Skylake-SP-class core)");
  note("mpi.reduce_bandwidth", g(ph.reduce_GBps),
       std::string(coll::has_op_avx(c.release) ? "op/avx: 10 x " : "op/base: ") +
           "4 B x 2.4 GHz (ASSUMPTION: one float per cycle)");
  note("mpi.core_memory_bandwidth", g(ph.core_dram_GBps), "ASSUMPTION (Little's law, one Skylake-SP core)");
  note("mpi.cache_size", g(ph.cache_MiB), "ASSUMPTION (order of a Xeon L3)");
  note("mpi.rendezvous_round_trips", g(ph.rendezvous_round_trips), "ob1 RNDV + ACK");
  return c;
}

}  // namespace vgsim::sim
