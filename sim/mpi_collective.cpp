// Open MPI collectives on the engine (include/vgsim/sim/mpi_collective.hpp). Resources: one progress core per rank
// (capacity in work units: a flow of w seconds of core work carries w x 1e12 units, so a core's work items share it
// max-min), one NIC transmit and one receive resource per node at line rate x mpi.wire_efficiency. A message runs as
// three stages in sequence, none overlapped with the next (a blocking progress thread with socket-sized buffers:
// ASSUMPTION, the mechanism the OSU data support, data/measured/osu-openmpi/README.md): the sender's copy on its core,
// the wire (latency, plus rendezvous round trips above the eager limit), the receiver's copy plus its reduction on its
// core. RDMA transports (openib, ucx, psm2) skip both copies above the eager limit (zero-copy rendezvous); shared
// memory (vader) is latency plus copies (two copies when eager, one CMA copy above). Node memory bandwidth contention
// is not modelled.
#include "vgsim/sim/mpi_collective.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/simulator.hpp"

namespace vgsim::sim {

namespace {

constexpr double kUnitsPerSecond = 1e12;

// Per-byte core costs (seconds per byte) for a working set of `ws` bytes: in-cache rate below mpi.cache_size, DRAM
// rate (3 bytes of traffic per byte copied or reduced at mpi.core_memory_bandwidth) for the share beyond it.
struct CoreCosts {
  double copy_s_per_byte = 0, reduce_s_per_byte = 0;
};
CoreCosts core_costs(const MpiPhysics& ph, double ws) {
  const double cache = ph.cache_MiB * 1048576.0;
  const double f = ws > cache ? 1.0 - cache / ws : 0.0;
  const double dram = 3.0 / (ph.core_dram_GBps * 1e9);
  return {(1 - f) / (ph.copy_GBps * 1e9) + f * dram, (1 - f) / (ph.reduce_GBps * 1e9) + f * dram};
}

class MpiRun : public FlowObserver {
 public:
  MpiRun(const MpiConfig& c, const coll::OmpiSchedule& s, std::uint32_t rpn, double working_set)
      : c_(c), s_(s), rpn_(rpn), costs_(core_costs(c.physics, working_set)) {
    const std::uint32_t p = s.schedule.ranks, nodes = (p + rpn - 1) / rpn;
    const Bandwidth wire{c.nic_speed.bytes_per_s * c.physics.wire_efficiency};
    for (std::uint32_t r = 0; r < p; ++r)
      core_.push_back(sim_.add_resource("core" + std::to_string(r), Bandwidth{kUnitsPerSecond}));
    for (std::uint32_t n = 0; n < nodes; ++n) {
      tx_.push_back(sim_.add_resource("node" + std::to_string(n) + ".tx", wire));
      rx_.push_back(sim_.add_resource("node" + std::to_string(n) + ".rx", wire));
    }
    const auto& tr = s.schedule.transfers;
    pending_.resize(tr.size());
    dependents_.resize(tr.size());
    routes_.resize(tr.size());
    for (std::size_t t = 0; t < tr.size(); ++t) {
      pending_[t] = tr[t].dep_count;
      for (std::uint32_t k = 0; k < tr[t].dep_count; ++k)
        dependents_[s.schedule.deps[tr[t].dep_begin + k]].push_back(t);
    }
  }
  Time run() {
    for (std::size_t t = 0; t < pending_.size(); ++t)
      if (pending_[t] == 0) stage(t, 0);
    sim_.run();
    return end_;
  }
  void on_flow_done(Simulator&, std::uint64_t tag) override { stage(tag >> 2, static_cast<int>(tag & 3) + 1); }

 private:
  bool same_node(std::size_t t) const {
    const auto& x = s_.schedule.transfers[t];
    return x.src / rpn_ == x.dst / rpn_;
  }
  // Seconds of core work of stage 0 (sender) or 2 (receiver) of transfer t.
  double core_work(std::size_t t, int st) const {
    const auto& x = s_.schedule.transfers[t];
    const double m = static_cast<double>(x.bytes);
    const bool shm = same_node(t);
    const bool eager = x.bytes <= (shm ? c_.shm_eager_limit : c_.eager_limit);
    const bool copies = shm ? (eager || st == 2) : (eager || c_.transport == MpiTransport::Tcp);
    double w = copies ? m * costs_.copy_s_per_byte : 0.0;
    if (st == 2 && s_.reduces[t]) w += m * costs_.reduce_s_per_byte;
    return w;
  }
  void stage(std::size_t t, int st) {
    for (; st <= 2; ++st) {
      const auto& x = s_.schedule.transfers[t];
      FlowSpec f;
      if (st == 1) {
        const bool shm = same_node(t);
        const double lat = shm ? c_.physics.shm_latency_us : c_.physics.latency_us;
        const bool rndv = x.bytes > (shm ? c_.shm_eager_limit : c_.eager_limit);
        f.latency = Time::from_us(lat * (1.0 + (rndv ? 2.0 * c_.physics.rendezvous_round_trips : 0.0)));
        if (shm) {
          routes_[t] = {};
          f.route = nullptr, f.hops = 0, f.bytes = 1e-3;
        } else {
          routes_[t] = {tx_[x.src / rpn_], rx_[x.dst / rpn_]};
          f.route = routes_[t].data(), f.hops = 2, f.bytes = std::max(1e-3, static_cast<double>(x.bytes));
        }
      } else {
        const double w = core_work(t, st);
        if (w <= 0) continue;
        f.route = &core_[st == 0 ? x.src : x.dst], f.hops = 1, f.bytes = w * kUnitsPerSecond;
      }
      sim_.start_flow(f, this, (t << 2) | static_cast<std::uint64_t>(st));
      return;
    }
    end_ = std::max(end_, sim_.now());
    for (std::size_t d : dependents_[t])
      if (--pending_[d] == 0) stage(d, 0);
  }

  const MpiConfig& c_;
  const coll::OmpiSchedule& s_;
  std::uint32_t rpn_;
  CoreCosts costs_;
  Simulator sim_;
  std::vector<ResourceId> core_, tx_, rx_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::vector<std::size_t>> dependents_;
  std::vector<std::array<ResourceId, 2>> routes_;
  Time end_{0};
};

// The schedule Open MPI runs for this call, with the choice's names.
struct Planned {
  coll::OmpiSchedule schedule;
  MpiCollectiveResult result;
  double working_set = 0;
};
Planned plan(const MpiConfig& c, coll::Op op, Bytes size, std::uint32_t p) {
  Planned out;
  out.result.requested = c.forced_algorithm.empty() ? "default" : c.forced_algorithm;
  if (op == coll::Op::AllReduce) {
    std::optional<coll::OmpiAllreduce> forced;
    if (!c.forced_algorithm.empty()) forced = coll::parse_ompi_allreduce(c.forced_algorithm);
    const auto ch =
        coll::ompi_allreduce_decide(c.release, c.dynamic_rules, forced, c.segment_bytes, p, size, c.elem_bytes);
    out.schedule = coll::ompi_allreduce(ch.runs, p, size, c.elem_bytes, ch.segment_bytes);
    out.result.algorithm = coll::to_string(ch.runs), out.result.reason = ch.reason;
    out.working_set = 2.0 * static_cast<double>(size);
  } else if (op == coll::Op::AllGather) {
    std::optional<coll::OmpiAllgather> forced;
    if (!c.forced_algorithm.empty()) forced = coll::parse_ompi_allgather(c.forced_algorithm);
    const auto ch = coll::ompi_allgather_decide(c.release, c.dynamic_rules, forced, p, size);
    out.schedule = coll::ompi_allgather(ch.runs, p, size);
    out.result.algorithm = coll::to_string(ch.runs), out.result.reason = ch.reason;
    out.working_set = static_cast<double>(size) * (p + 1);
  } else {
    throw InputError("", "--op", "not modelled for the MPI library", coll::to_string(op), "allreduce or allgather");
  }
  return out;
}

std::string memo_key(const MpiConfig& c, coll::Op op, Bytes size, std::uint32_t nodes, std::uint32_t rpn) {
  const MpiPhysics& ph = c.physics;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%d|%d|%d|%s|%lld|%lld|%lld|%lld|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%d|%lld|%u|%u",
                static_cast<int>(c.release), static_cast<int>(c.transport), c.dynamic_rules ? 1 : 0,
                c.forced_algorithm.c_str(), static_cast<long long>(c.segment_bytes),
                static_cast<long long>(c.elem_bytes), static_cast<long long>(c.eager_limit),
                static_cast<long long>(c.shm_eager_limit), ph.latency_us, ph.shm_latency_us, ph.wire_efficiency,
                ph.copy_GBps, ph.reduce_GBps, ph.core_dram_GBps, ph.cache_MiB, ph.rendezvous_round_trips,
                c.nic_speed.bytes_per_s, static_cast<int>(op), static_cast<long long>(size), nodes, rpn);
  return buf;
}

}  // namespace

MpiCollectiveResult simulate_mpi_collective(const topo::Cluster&, const MpiConfig& c, coll::Op op, Bytes size,
                                            std::uint32_t nodes, std::uint32_t rpn) {
  if (nodes == 0 || rpn == 0)
    throw InputError("", "--nodes/--ranks-per-node", "no ranks", std::to_string(nodes) + " x " + std::to_string(rpn),
                     "at least one node and one rank per node");
  if (size < 0) throw InputError("", "size", "negative size", std::to_string(size), "a size >= 0");
  if (nodes > 1 && !(c.nic_speed.bytes_per_s > 0))
    throw InputError(c.cluster_name, "hosts[0].nics", "no NIC for an inter-node MPI collective", "none",
                     "a host with a NIC (catalog nics.json)");
  static std::mutex mutex;
  static std::map<std::string, MpiCollectiveResult> memo;
  const std::string key = memo_key(c, op, size, nodes, rpn);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  Planned pl;
  try {
    pl = plan(c, op, size, nodes * rpn);
  } catch (const UnitError& e) {  // an unknown forced algorithm, or one the release does not have
    throw InputError("--set / --mpi-algo", "mpi.algorithm", e.what(), c.forced_algorithm,
                     "an algorithm of this collective and release (vgsim params --library mpi)");
  }
  pl.result.messages = pl.schedule.schedule.transfers.size();
  if (!pl.schedule.schedule.transfers.empty()) {
    MpiRun run(c, pl.schedule, rpn, pl.working_set);
    pl.result.time = run.run();
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() > 100000) memo.clear();  // bound the memory of long sweeps and fits
  memo.emplace(key, pl.result);
  return pl.result;
}

}  // namespace vgsim::sim
