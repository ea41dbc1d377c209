// A collective algorithm added from outside the library (issue 14's acceptance): a toy "direct" allreduce, in which
// every rank sends its whole buffer to every other rank and reduces locally, is this one file plus the one line that
// registers it (kDirect below). It is then selected by name like NCCL_ALGO (--algo direct), validated, planned by
// the communicator, simulated end to end on the engine, and given a closed form by the analytical fidelity.
#include <algorithm>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "test_clusters.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/sim/planning/analytical.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"
#include "vgsim/workloads/collectives/validate.hpp"

using namespace vgsim;

namespace {

// Direct allreduce of S bytes on n ranks: per channel c (S split over channels as evenly as bytes allow), one
// transfer r -> d for every ordered pair r != d, all independent. Each rank sends and receives (n-1) S.
coll::CollectiveSchedule direct_allreduce(coll::Op op, coll::Proto proto, std::uint32_t n, std::uint32_t ppn,
                                          Bytes size, const coll::GenOptions& o) {
  if (op != coll::Op::AllReduce) throw std::invalid_argument("direct: allreduce only");
  coll::CollectiveSchedule s;
  s.op = op;
  s.algo = coll::parse_algo("direct");
  s.proto = proto;
  s.ranks = n;
  s.ranks_per_node = ppn;
  s.channels = o.channels;
  s.size = size;
  s.loops = 1;
  for (std::uint32_t c = 0; c < o.channels; ++c) {
    const Bytes part = size / o.channels + (c < size % o.channels ? 1 : 0);
    for (std::uint32_t r = 0; r < n; ++r)
      for (std::uint32_t d = 0; d < n; ++d)
        if (r != d) {
          coll::Transfer t;
          t.src = r;
          t.dst = d;
          t.channel = c;
          t.bytes = part;
          t.dep_begin = static_cast<std::uint32_t>(s.deps.size());
          s.transfers.push_back(t);
        }
  }
  return s;
}

coll::AlgorithmInfo direct() {
  coll::AlgorithmInfo a;
  a.name = "direct";
  a.nccl_name = "Direct";
  a.title = "Direct";
  a.help = "direct (toy: every rank sends its buffer to every rank)";
  a.ops = {coll::Op::AllReduce};
  a.simple_only = true;
  a.opt_in = true;  // never chosen unless named: the other tests in this executable keep NCCL's choices
  a.generate = direct_allreduce;
  a.required_bytes = [](coll::Op, std::uint32_t n, Bytes S, std::uint32_t) { return Bytes{n} * (n - 1) * S; };
  a.check_bytes = [](const coll::CollectiveSchedule& s, const coll::ByteTally& b, const coll::Fail& fail) {
    for (std::uint32_t r = 0; r < s.ranks; ++r)
      if (b.recv[r] != Bytes{s.ranks - 1} * s.size) fail("rank " + std::to_string(r) + " misses a buffer");
  };
  // Costs: a ring step's base and per-hop latency; NCCL-style algBw = channels x bw / (n-1) (each rank's link
  // carries (n-1) S), used only by the argmin.
  a.base_latency_us = [](const coll::NcclTuning& t, coll::Proto p) {
    return coll::algorithm(coll::Algo::Ring).base_latency_us(t, p);
  };
  a.hop_latency_us = [](const coll::NcclTuning& t, coll::Link l, coll::Proto p, const coll::CommShape& c) {
    return coll::hop_latency_us(t, l, coll::Algo::Ring, p, c);
  };
  a.latency_us = [](const coll::NcclTuning& t, coll::Op, coll::Proto p, const coll::CommShape& c) {
    return coll::algorithm(coll::Algo::Ring).base_latency_us(t, p) +
           coll::hop_latency_us(t, c.nodes > 1 ? coll::Link::Net : c.intra, coll::Algo::Ring, p, c);
  };
  a.bandwidth_GBps = [](const coll::NcclTuning&, coll::Op, coll::Proto, const coll::CommShape& c) {
    return c.ranks <= 1 ? 0.0 : c.channels * c.bw_inter_GBps / (c.ranks - 1);
  };
  // Closed form: all transfers start together; each connection's bytes at its (shared) rate, then one latency:
  // base + max over hop classes of (S / (eff x bw) + a).
  a.analytical = [](const coll::AnalyticalCall& k, const coll::PathCosts& costs) {
    auto leg = [&](const coll::HopCost& h) {
      return transfer_time(static_cast<double>(k.size) / k.channels / costs.payload_efficiency, h.bw_per_channel) +
             h.latency;
    };
    const std::uint32_t nodes = k.ranks / k.ranks_per_node;
    return costs.base +
           std::max(k.ranks_per_node > 1 ? leg(costs.intra) : Time{0}, nodes > 1 ? leg(costs.inter) : Time{0});
  };
  return a;
}

const coll::Algo kDirect = coll::register_algorithm(direct());  // the one registration line

}  // namespace

TEST_CASE("a registered toy algorithm is parsed, printed, listed and validated by name") {
  CHECK(coll::parse_algo("direct") == kDirect);
  CHECK(coll::parse_algo("DIRECT") == kDirect);
  CHECK(std::string(coll::to_string(kDirect)) == "direct");
  CHECK(coll::algorithm_help().find("direct (toy") != std::string::npos);
  // --algo / nccl.algo: the declaration's help and choices come from the registry.
  for (const ParamDecl& p : sim::nccl_knob_params())
    if (p.name == "nccl.algo") {
      CHECK(std::find(p.choices.begin(), p.choices.end(), "direct") != p.choices.end());
      CHECK(p.help.find("direct (toy") != std::string::npos);
    }
  CHECK_THROWS_WITH(coll::parse_algo("pat"), Catch::Contains("Ring, Tree, NVLS, NVLSTree, Direct"));
  CHECK_FALSE(coll::Allowed{}.allows(kDirect));  // opt-in
  CHECK(coll::parse_allowed("direct", "").forces_algo());
  CHECK_THROWS(coll::register_algorithm(direct()));  // the name is taken
  coll::GenOptions o;
  o.channels = 2;
  const coll::CollectiveSchedule s = coll::generate(coll::Op::AllReduce, kDirect, coll::Proto::Simple, 4, 1, 1001, o);
  CHECK(s.transfers.size() == 2u * 4 * 3);
  CHECK(coll::validate(s).empty());
  coll::CollectiveSchedule broken = s;
  broken.transfers.pop_back();
  CHECK_FALSE(coll::validate(broken).empty());
}

TEST_CASE("a registered toy algorithm runs end to end through the communicator, forced by name") {
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-4x-100gbe", test::catalog());
  sim::CommOptions opt;
  sim::NcclKnobs knobs;
  knobs.algo = "direct";  // --algo direct
  knobs.apply(opt);
  REQUIRE(opt.algo == kDirect);
  opt.channels = 1;
  opt.path.gdr_level = topo::PathType::SYS;  // GPUDirect on every GPU: no host staging
  const sim::Communicator comm(cluster, sim::place_ranks(cluster, 4, 1), opt);
  const std::uint32_t n = 4;
  const Bytes S = 64 * MiB;
  const sim::CollectiveResult res = sim::simulate_collective(comm, coll::Op::AllReduce, S);
  REQUIRE(res.plan.algo == kDirect);
  CHECK(res.plan.proto == coll::Proto::Simple);
  CHECK(res.plan.schedule->transfers.size() == n * (n - 1));
  CHECK_THROWS_AS(sim::simulate_collective(comm, coll::Op::AllGather, S), InputError);  // allreduce only

  // Hand-derived time. The n(n-1) transfers of S bytes start together after the base latency. Every route r -> d
  // (identical hosts, one GPU each) crosses r's side (its PCIe path, NIC port out) and d's side (NIC port in, PCIe
  // path); r's side carries r's n-1 outgoing flows, d's side d's n-1 incoming flows, so max-min gives every flow
  // B / (n-1) of the route bottleneck B (below the per-flow cap), and the last bytes land, latency a = NCCL's NET hop
  // (a ring step's) + the route's latency after them:
  //   T = base + (n-1) S / B + a
  Simulator scratch;
  sim::Fabric fabric(cluster, scratch, opt.path);
  const sim::Route& r = fabric.route(comm.rank_to_endpoint()[0], comm.rank_to_endpoint()[1]);
  REQUIRE(r.gdr);
  const double B = r.bottleneck.bytes_per_s;
  REQUIRE(B / (n - 1) < res.plan.costs.max_rate_per_flow);
  const double a_us = (res.plan.costs.hop_latency[static_cast<int>(r.link_class)] + r.latency).us();
  const double expected_us = res.plan.costs.base_latency.us() + (n - 1) * static_cast<double>(S) / B * 1e6 + a_us;
  CHECK(res.time.us() == Approx(expected_us).epsilon(0.01));

  // The analytical fidelity runs the record's closed form on the same plan: the same time.
  const sim::planning::AnalyticalCollective an = sim::planning::analytical_collective(comm, res.plan, fabric);
  CHECK(an.time.us() == Approx(res.time.us()).epsilon(0.01));
}
