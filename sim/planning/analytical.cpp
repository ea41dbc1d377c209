// Analytical fidelity: closed-form collective times and training iterations (see
// include/vgsim/sim/planning/analytical.hpp).
#include "vgsim/sim/planning/analytical.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "vgsim/sim/training/exposure.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/models/bucketing.hpp"

namespace vgsim::sim::planning {

namespace {

struct Connection {
  std::uint32_t channel, src, dst;
  const Route* route;
  double payload = 0;  // bytes over the whole call
  double rate = 0;     // max-min fair wire rate, bytes/s
  double cap = 0;      // its per-flow wire cap, bytes/s (StepCosts::max_rate_per_flow, / switch_efficiency on legs,
                       // and the route's Route::connection_cap_bytes_per_s)
  double eff = 1;      // payload bytes per wire byte beyond the protocol's (StepCosts::switch_efficiency on legs)
  bool frozen = false;
};

// Progressive filling (max-min fairness) of the connections over their routes, each capped at its own cap.
void max_min(std::vector<Connection>& conns, const Simulator& sim) {
  std::unordered_map<ResourceId, double> remaining;
  for (const auto& c : conns)
    for (ResourceId r : c.route->resources) remaining.emplace(r, sim.resource_capacity(r).bytes_per_s);
  std::size_t left = conns.size();
  while (left > 0) {
    std::unordered_map<ResourceId, std::size_t> users;
    for (const auto& c : conns)
      if (!c.frozen)
        for (ResourceId r : c.route->resources) ++users[r];
    double share = std::numeric_limits<double>::infinity();
    for (const auto& c : conns)
      if (!c.frozen) share = std::min(share, c.cap);
    for (const auto& [r, n] : users) share = std::min(share, remaining[r] / static_cast<double>(n));
    // Freeze every unfrozen connection through a resource that is saturated at `share` (or all at the cap).
    std::vector<std::size_t> freeze;
    for (std::size_t i = 0; i < conns.size(); ++i) {
      if (conns[i].frozen) continue;
      bool hit = share >= conns[i].cap;
      for (ResourceId r : conns[i].route->resources)
        hit = hit || remaining[r] / static_cast<double>(users[r]) <= share * (1 + 1e-12);
      if (hit) freeze.push_back(i);
    }
    if (freeze.empty()) break;  // cannot happen: the minimum resource always freezes someone
    for (std::size_t i : freeze) {
      conns[i].frozen = true;
      conns[i].rate = share;
      for (ResourceId r : conns[i].route->resources) remaining[r] -= share;
      --left;
    }
  }
}

}  // namespace

AnalyticalCollective analytical_collective(const Communicator& comm, const CallPlan& plan, Fabric& fabric) {
  // A streamed ring or tree is materialized here: this fidelity sums bytes per connection over the stored transfers.
  const coll::CollectiveSchedule stored = plan.schedule->streamed
                                              ? coll::materialize(*plan.schedule, comm.options().max_transfers)
                                              : coll::CollectiveSchedule{};
  const coll::CollectiveSchedule& s = plan.schedule->streamed ? stored : *plan.schedule;
  std::vector<Connection> conns;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t> index;
  for (const auto& t : s.transfers) {
    const auto key = std::make_tuple(t.channel, t.src, t.dst);
    auto it = index.find(key);
    if (it == index.end()) {
      const auto& map = plan.channel_gpus[t.channel % plan.channel_gpus.size()];
      it = index.emplace(key, conns.size()).first;
      const Route* route = t.dst == coll::kSwitchRank   ? &fabric.switch_route(map[t.src], true)
                           : t.src == coll::kSwitchRank ? &fabric.switch_route(map[t.dst], false)
                                                        : &fabric.route(map[t.src], map[t.dst]);
      const bool leg = t.src == coll::kSwitchRank || t.dst == coll::kSwitchRank;
      const double eff = leg ? plan.costs.switch_efficiency : 1.0;
      conns.push_back({t.channel, t.src, t.dst, route, 0, 0,
                       std::min(plan.costs.max_rate_per_flow / eff, route->connection_cap_bytes_per_s), eff});
    }
    conns[it->second].payload += static_cast<double>(t.bytes);
  }
  AnalyticalCollective out;
  const StepCosts& sc = plan.costs;
  out.costs.base = sc.base_latency + sc.launch_overhead;  // both paid once per call, as in CollectiveRun::start_at
  out.costs.payload_efficiency = sc.payload_efficiency;
  max_min(conns, fabric.simulator());
  const double inf = std::numeric_limits<double>::infinity();
  double bw[2] = {inf, inf};
  Time lat[2] = {Time{0}, Time{0}};
  std::int64_t lat_sum[2] = {0, 0}, lat_n[2] = {0, 0};
  double staged[2] = {0.0, 0.0}, staged_sum[2] = {0.0, 0.0};  // host staging, per byte (max; sum for the mean)
  bool seen[2] = {false, false};
  const std::uint32_t rpn = comm.ranks_per_node();
  std::unordered_map<ResourceId, double> bytes;
  for (const auto& c : conns) {
    const bool switch_leg = c.src == coll::kSwitchRank || c.dst == coll::kSwitchRank;  // NVLS: inside the node
    const int cls = (switch_leg || c.src / rpn == c.dst / rpn) ? 0 : 1;
    seen[cls] = true;
    bw[cls] = std::min(bw[cls], c.rate * c.eff);  // payload moves at eff x the wire rate (switch legs: < 1)
    // Latency without the staged copy (0 bytes), which the closed form adds per transfer (coll::hop_latency).
    const Time l = delivery_latency(*c.route, 0, sc);
    lat[cls] = std::max(lat[cls], l);
    lat_sum[cls] += l.ps;
    ++lat_n[cls];
    const double st = sc.staged_copies ? c.route->staged_s_per_byte : 0.0;
    staged[cls] = std::max(staged[cls], st);
    staged_sum[cls] += st;
    for (ResourceId r : c.route->resources) bytes[r] += c.payload / (sc.payload_efficiency * c.eff);
  }
  // A ring's chain crosses every hop of a class in turn, so it pays their mean latency; other shapes keep the max.
  const bool ring = coll::algorithm(plan.algo).mean_hop_latency;
  for (int k = 0; k < 2; ++k)
    if (ring && lat_n[k] > 0) {
      lat[k] = Time::from_ps(lat_sum[k] / lat_n[k]);
      staged[k] = staged_sum[k] / static_cast<double>(lat_n[k]);
    }
  if (seen[0]) out.costs.intra = {lat[0], Bandwidth{bw[0]}, staged[0], sc.staging_granule};
  if (seen[1]) out.costs.inter = {lat[1], Bandwidth{bw[1]}, staged[1], sc.staging_granule};
  if (!seen[0]) out.costs.intra = out.costs.inter;
  if (!seen[1]) out.costs.inter = out.costs.intra;
  coll::GenOptions gen;
  gen.channels = plan.channels;
  out.time = coll::analytical_time(plan.op, plan.algo, plan.proto, comm.ranks(), rpn, plan.size, gen, out.costs);
  out.bytes.assign(bytes.begin(), bytes.end());
  std::sort(out.bytes.begin(), out.bytes.end());
  return out;
}

bool analytical_supported(const training::TrainingJob& job) {
  if (!job.serialize_collectives) return false;
  const auto& eps = job.cluster->endpoints();
  for (std::uint32_t e : job.rank_to_endpoint) {
    if (eps[e].mode != "vgpu") continue;
    for (std::uint32_t o = 0; o < eps.size(); ++o)
      if (o != e && eps[o].gpu == eps[e].gpu) return false;  // time-sliced with another VM
  }
  return true;
}

training::TrainingResult simulate_training_analytical(const training::TrainingJob& job) {
  using namespace training;
  TrainingResult out = result_header(job);
  const models::ComputeResult& cr = out.compute;
  Simulator sim;  // only holds the resource capacities for the Fabric; never run
  Fabric fabric(*job.cluster, sim, job.comm.path, job.comm.capacity_scale);
  std::unique_ptr<Communicator> comm;
  if (job.ranks() > 1) {
    comm = std::make_unique<Communicator>(*job.cluster, job.rank_to_endpoint, job.comm);
    out.transports = comm->describe_transports();
    out.transport_reasons = comm->transport_reasons();
  }
  std::map<std::pair<int, Bytes>, std::pair<CallPlan, AnalyticalCollective>> cache;
  // Horovod: the step engine's rule (training_run.hpp): one pass per tick phase, ticks anchored to each iteration's
  // last gradient, figures averaged; DDP and framework none: one pass.
  const int phases = has_tick_phases(job) ? std::max(1, job.tick_phases) : 1;
  std::vector<TrainingResult> runs;
  std::vector<Time> offsets;
  for (int phase = 0; phase < phases; ++phase) {
    const Time tick_offset = tick_phase_offset(job, phase, phases);
    TrainingResult run = out;
    std::vector<double> iter_bytes;
    Time t = job.clock_offset;
    for (int i = 0; i < job.iterations; ++i) {
      IterationRecord it;
      it.start = t;
      const std::int64_t k = out.micro_steps;
      it.backward_start = it.start + (cr.forward + cr.backward) * (k - 1) + cr.forward;
      it.backward_end = it.backward_start + cr.backward;
      std::vector<models::GradientGroup> groups;
      if (comm) {
        const auto tensors = models::gradient_tensors(cr, it.backward_start);
        groups = training::job_groups(job, tensors, training::tick_origin(tensors, tick_offset));
      }
      iter_bytes.assign(sim.resource_count(), 0.0);
      Time stream{0};
      // Backward progress while NCCL kernels hold SMs (the step engine's rule, compute_clock.hpp): rate 1 - share
      // during each collective, 1 otherwise; group g is ready once the work up to its last gradient is done, plus the
      // framework's own wait (Horovod tick, DDP order) from the unslowed plan.
      training::ComputeClock clock(it.backward_start, cr.backward);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        CollectiveRecord c = training::group_record(groups[g], static_cast<int>(g), job.ranks());
        const Time wait = training::framework_wait(groups[g], it.backward_start);
        c.ready = clock.time_when(groups[g].last_ready - it.backward_start) + wait;
        const coll::Op op = c.kind == models::GroupKind::AllGather ? coll::Op::AllGather : coll::Op::AllReduce;
        const auto key = std::make_pair(static_cast<int>(op), c.total_bytes);
        auto hit = cache.find(key);
        if (hit == cache.end()) {
          CallPlan plan = comm->plan(op, c.total_bytes);
          AnalyticalCollective a = analytical_collective(*comm, plan, fabric);
          hit = cache.emplace(key, std::make_pair(std::move(plan), std::move(a))).first;
        }
        const CallPlan& plan = hit->second.first;
        c.algo = coll::to_string(plan.algo);
        c.proto = coll::to_string(plan.proto);
        c.channels = plan.channels;
        c.replayed = false;
        c.start = std::max(c.ready, stream);
        c.finish = c.start + hit->second.second.time;
        stream = c.finish;
        clock.set_share(c.start, training::nccl_compute_share(job, plan.channels));
        clock.set_share(c.finish, 0.0);
        for (const auto& [r, b] : hit->second.second.bytes) iter_bytes[r] += b;
        it.collectives.push_back(std::move(c));
      }
      if (!groups.empty()) {
        const Time bwd_end = clock.finished() ? clock.done_at() : clock.time_when(clock.total());
        it.nccl_slowdown = bwd_end - it.backward_end;
        it.backward_end = bwd_end;
      }
      it.optimizer_start = groups.empty() ? it.backward_end : std::max(stream, it.backward_end);
      it.end = it.optimizer_start + cr.optimizer;
      t = it.end;
      run.iterations.push_back(std::move(it));
    }
    training::summarize_steady_state(job, iter_bytes, sim, run);
    runs.push_back(std::move(run));
    offsets.push_back(tick_offset);
  }
  if (!has_tick_phases(job)) return std::move(runs.front());
  return training::average_tick_phases(runs, offsets);
}

training::TrainingStudy simulate_study_analytical(const training::TrainingJob& job) {
  training::TrainingStudy s;
  s.result = simulate_training_analytical(job);
  s.result.exposure = training::explain_exposure(job, s.result, simulate_training_analytical);
  if (job.ranks() == 1) {
    s.single_gpu = s.result;
  } else {
    training::TrainingJob one = training::with_ranks(job, 1, 1);
    one.iterations = 1;
    s.single_gpu = simulate_training_analytical(one);
  }
  s.scaling_efficiency = s.result.samples_per_s / (s.result.ranks * s.single_gpu.samples_per_s);
  return s;
}

}  // namespace vgsim::sim::planning
