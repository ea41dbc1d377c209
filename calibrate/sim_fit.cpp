// Simulator fit and replay of measurements (include/vgsim/calibrate/sim_fit.hpp).
#include "vgsim/calibrate/sim_fit.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "detail/nnls.hpp"
#include "detail/text_table.hpp"
#include "nccl_fit.hpp"
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/mpi_fit.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::calibrate {

using detail::DistinctCalls;
using detail::largest_first;
using detail::NcclFit;
using detail::NcclReplayer;
using detail::on_cores;
using detail::simulated_times;

namespace {

bool is_nccl(const CollectiveMeasurement& m) { return m.library == "nccl" || m.library == "rccl"; }

FitQuality quality_of(const std::vector<double>& err) {
  FitQuality q;
  q.points = static_cast<std::int64_t>(err.size());
  double sq = 0;
  for (double e : err) sq += e * e, q.max_rel_error = std::max(q.max_rel_error, e);
  q.median_rel_error = median_of(err);
  q.rms_rel_error = err.empty() ? 0.0 : std::sqrt(sq / double(err.size()));
  return q;
}

std::vector<const CollectiveMeasurement*> usable_collectives(const std::vector<Measurement>& records) {
  std::vector<const CollectiveMeasurement*> out;
  for (const auto& r : records)
    if (const auto* c = std::get_if<CollectiveMeasurement>(&r); c && c->usable && c->size_bytes > 0 && c->time_us > 0)
      out.push_back(c);
  return out;
}

// The physical parameters of the bounded NCCL fit (sim_fit.hpp): an absolute base latency per (algo, proto) seen,
// one hop-latency scale, one efficiency of the bottleneck resource kinds, one ceiling efficiency per LL / LL128.
// Bounds: latencies >= 0, hop_scale >= 0, efficiencies in (0, 1]. Default-constructed = the target's own values.
struct PhysParams {
  std::map<std::string, double> base_us;  // "<algo>.<proto>" -> us (absent: the target's value)
  double hop_scale = 1.0, link_eff = 1.0;
  std::array<double, 3> cap_eff{1.0, 1.0, 1.0};  // [Proto]; Simple stays 1 (its ceiling is no model parameter)
  std::set<int> caps_fitted;                     // protocols whose ceiling efficiency was fitted
};

const char* proto_key(coll::Proto p) {
  return p == coll::Proto::LL ? "ll" : p == coll::Proto::LL128 ? "ll128" : "simple";
}
std::string pair_key(coll::Algo a, coll::Proto p) { return std::string(coll::to_string(a)) + "." + proto_key(p); }
bool is_hop_param(const std::string& nm) {
  return nm.rfind("nccl.hw_latency.", 0) == 0 || nm == "nccl.latency_inter" ||
         (nm.rfind("nccl.net_overhead.", 0) == 0 && nm != "nccl.net_overhead.simple_factor");
}
// The network's per-hop latencies and overheads: only data from more than one node constrains them.
bool is_inter_hop(const std::string& nm) {
  return nm.rfind("nccl.hw_latency.net.", 0) == 0 || nm == "nccl.latency_inter" ||
         (nm.rfind("nccl.net_overhead.", 0) == 0 && nm != "nccl.net_overhead.simple_factor");
}
bool is_ll_cap(const std::string& nm) { return nm.rfind("nccl.ll_max_bw.", 0) == 0; }
// nccl.ll_max_bw.<arch>.nodes1|nodes2|nodes3plus: the row NCCL reads for `nodes` (the one the data constrains).
bool ll_cap_row_of(const std::string& nm, std::uint32_t nodes) {
  const std::string row = nodes <= 1 ? ".nodes1" : nodes == 2 ? ".nodes2" : ".nodes3plus";
  return nm.size() > row.size() && nm.compare(nm.size() - row.size(), row.size(), row) == 0;
}
bool is_ll128_cap(const std::string& nm) { return nm.rfind("nccl.per_ch_max_ring_ll128_bw.", 0) == 0; }
const std::string kBasePrefix = "nccl.base_latency.";

// The parameters as a profile's nccl_parameters / capacity_scale, relative to the target's own values (so the fit
// does not depend on the catalog defaults, only scales or replaces them).
void fold_params(const PhysParams& x, const SimTarget& t, const std::vector<std::string>& bottleneck,
                 CalibrationProfile& prof) {
  prof.nccl_parameters.clear();
  prof.capacity_scale.clear();
  for (const auto& p : t.options.nccl.list()) {
    const std::string& nm = p.name;
    if (nm.rfind(kBasePrefix, 0) == 0) {
      const auto it = x.base_us.find(nm.substr(kBasePrefix.size()));
      if (it != x.base_us.end()) prof.nccl_parameters[nm] = it->second;
    } else if (is_hop_param(nm) && (t.nodes > 1 || !is_inter_hop(nm))) {  // one node: network hops not measured
      prof.nccl_parameters[nm] = p.value * x.hop_scale;
    } else if (is_ll_cap(nm) && x.caps_fitted.count(0) && ll_cap_row_of(nm, t.nodes)) {
      prof.nccl_parameters[nm] = p.value * x.cap_eff[0];
    } else if (is_ll128_cap(nm) && x.caps_fitted.count(1)) {
      prof.nccl_parameters[nm] = p.value * x.cap_eff[1];
    }
  }
  for (const auto& k : bottleneck) {
    const auto it = t.options.capacity_scale.find(k);
    prof.capacity_scale[k] = (it == t.options.capacity_scale.end() ? 1.0 : it->second) * x.link_eff;
  }
}

sim::CommOptions options_of(const PhysParams& x, const SimTarget& t, const std::vector<std::string>& bottleneck) {
  CalibrationProfile p;
  fold_params(x, t, bottleneck, p);
  sim::CommOptions o = t.options;
  apply_profile(p, o);
  return o;
}

}  // namespace

double detail::NcclFit::after_worst(const std::vector<double>& sim_us) const {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::pair<std::int64_t, double>>> g;
  for (std::size_t i = 0; i < records.size(); ++i)
    g[{records[i]->op, records[i]->algo, records[i]->proto}].emplace_back(records[i]->size_bytes,
                                                                          records[i]->time_us / sim_us[i]);
  std::map<std::tuple<std::string, std::string, std::string>, ResidualFactors> rf;
  for (auto& [k, pts] : g) rf[k].segments = fit_residual_segments(pts);
  std::map<std::string, std::vector<double>> per;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& m = *records[i];
    const double f = rf[{m.op, m.algo, m.proto}].factor(m.size_bytes);
    per[series_key(m).label()].push_back(std::abs(sim_us[i] * f - m.time_us) / m.time_us);
  }
  double worst = 0;
  for (const auto& [k, e] : per) worst = std::max(worst, median_of(e));
  return worst;
}

namespace {

// An Open MPI record on the physical model: what Open MPI would run (the requested algorithm only with dynamic rules
// on, as fit-mpi decides it: config_for_file) at the record's nodes x ranks per node. Returns the skip reason, or "".
std::string replay_mpi(const SimTarget& t, const CollectiveMeasurement& m, ValidationRow& row) {
  coll::Op op{};
  bool known = true;
  try {
    op = coll::parse_op(m.op);
  } catch (const UnitError&) {
    known = false;
  }
  if (!known || (op != coll::Op::AllReduce && op != coll::Op::AllGather))
    return "Open MPI op '" + m.op + "' not modelled (allreduce, allgather)";
  MpiOsuFile f;  // the record's run, as load_mpi_osu_files reads it from an OSU file
  f.requested = m.algo.empty() ? "default" : m.algo;
  f.dynamic_rules = m.mpi_dynamic_rules.value_or(false);  // not stated: Open MPI's default (off)
  const auto r = sim::simulate_mpi_collective(*t.cluster, config_for_file(*t.mpi, f), op, m.size_bytes,
                                              static_cast<std::uint32_t>(std::max<std::int64_t>(1, m.nnodes)),
                                              static_cast<std::uint32_t>(std::max<std::int64_t>(1, m.gpus_per_node)));
  row.simulated_us = r.time.us();
  row.chosen = r.algorithm;
  return "";
}

}  // namespace

ValidationReport validate_measurements(const std::vector<Measurement>& records, const SimTarget* target,
                                       const CalibrationProfile* profile) {
  ValidationReport rep;
  std::set<std::string> reasons;
  std::unique_ptr<NcclReplayer> nccl;
  if (target && target->cluster && target->nodes > 0) {
    sim::CommOptions o = target->options;
    if (profile) apply_profile(*profile, o);
    nccl = std::make_unique<NcclReplayer>(*target, o, profile ? &profile->plans : nullptr);
  }
  std::vector<double> err;
  for (const CollectiveMeasurement* m : usable_collectives(records)) {
    ValidationRow row;
    row.series = series_key(*m).label();
    row.size_bytes = m->size_bytes;
    row.measured_us = m->time_us;
    std::string why;
    if (is_nccl(*m)) {
      if (!nccl)
        why = "NCCL records need --cluster";
      else if (nccl->applies(*m, &why)) {
        const auto r = nccl->run(*m);
        const double f =
            profile ? profile->time_factor(m->op, m->algo, m->proto, m->nnodes, m->gpus_per_node, m->size_bytes) : 1.0;
        row.simulated_us = r.time_us * f;
        row.chosen = r.chosen;
      }
    } else if (target && target->cluster && target->mpi) {
      why = replay_mpi(*target, *m, row);
    } else if (const MpiModel* mm = profile ? profile->find_mpi(network_tag(m->source), m->algo) : nullptr) {
      row.simulated_us = predict_ompi_us(mm->model, m->algo, m->nranks, m->size_bytes);  // legacy alpha-beta fit
      row.chosen = m->algo;
    } else {
      const std::string net = network_tag(m->source);  // the OSU file's network, else the source itself
      why = "Open MPI records need --cluster (the cluster they ran on" +
            (net != m->source ? ", e.g. " + osu_cluster_for(net) : std::string()) + ")";
    }
    if (!why.empty()) {
      ++rep.skipped;
      reasons.insert(why);
      continue;
    }
    row.rel_error = std::abs(row.simulated_us - row.measured_us) / row.measured_us;
    err.push_back(row.rel_error);
    rep.rows.push_back(row);
  }
  rep.quality = quality_of(err);
  rep.skip_reasons.assign(reasons.begin(), reasons.end());
  return rep;
}

namespace {

// ---- NCCL: bounded physical parameters (PhysParams), then residual factors per series.

void report_pass(const SimTarget& t, int pass, const std::string& what) {
  if (t.progress) t.progress("pass " + std::to_string(pass + 1) + "/3: " + what);
}

// The NCCL records the target replays: its layout, an op vgsim models. None without a target cluster.
std::vector<const CollectiveMeasurement*> replayable_nccl(const std::vector<const CollectiveMeasurement*>& all,
                                                          const SimTarget* target) {
  std::vector<const CollectiveMeasurement*> nccl;
  if (target && target->cluster && target->nodes > 0) {
    NcclReplayer probe(*target, target->options);
    std::string why;
    for (const auto* m : all)
      if (is_nccl(*m) && probe.applies(*m, &why)) nccl.push_back(m);
  }
  return nccl;
}

// Bottleneck kinds: halving a kind's capacity slows the probe size by > 5 %. The probe is the largest measured
// size <= 256 MiB (bandwidth-bound, cheap to simulate), or the smallest one when every size is larger.
std::vector<std::string> bottleneck_kinds(const SimTarget& t, const std::set<std::string>& kinds,
                                          const std::vector<const CollectiveMeasurement*>& nccl, NcclReplayer& base) {
  const CollectiveMeasurement* probe_m = nullptr;
  for (const auto* m : nccl)
    if (m->size_bytes <= (std::int64_t{256} << 20) && (!probe_m || m->size_bytes > probe_m->size_bytes)) probe_m = m;
  if (!probe_m)
    for (const auto* m : nccl)
      if (!probe_m || m->size_bytes < probe_m->size_bytes) probe_m = m;
  std::vector<std::string> bottleneck;
  const double t0 = base.run(*probe_m).time_us;
  for (const auto& k : kinds) {
    sim::CommOptions o = t.options;
    o.capacity_scale[k] = 0.5 * (o.capacity_scale.count(k) ? o.capacity_scale[k] : 1.0);
    NcclReplayer half(t, o);
    if (half.run(*probe_m).time_us > 1.05 * t0) bottleneck.push_back(k);
  }
  return bottleneck;
}

NcclFit prepare_nccl_fit(const SimTarget& t, const std::vector<const CollectiveMeasurement*>& nccl) {
  NcclFit fit{t, nccl, {}, {}, {}, 0.0};
  for (const auto& r : t.cluster->resources()) fit.kinds.insert(r.kind);
  NcclReplayer base(t, t.options);
  fit.bottleneck = bottleneck_kinds(t, fit.kinds, fit.records, base);
  fit.before = simulated_times(t, t.options, fit.records);
  fit.after_limit = std::max(0.08, fit.after_worst(fit.before));
  return fit;
}

// Forced-plan variants of the current options per (algo, proto), built when first asked for: 0 = capacities x1e6
// and the target's hop latencies (scale 1), 1 = the same without the LL / LL128 ceilings, 2 = the current
// parameters with the bottleneck kinds halved.
class ForcedPlans {
 public:
  ForcedPlans(const NcclFit& fit, const sim::CommOptions& current) : fit_(fit), current_(current) {}

  NcclReplayer& variant(coll::Algo a, coll::Proto p, int v) {
    auto& slot = variants_[{static_cast<int>(a), static_cast<int>(p), v}];
    if (!slot) {
      sim::CommOptions f = current_;
      f.algo = a, f.proto = p;
      if (v <= 1) {
        for (const auto& prm : fit_.target.options.nccl.list())
          if (is_hop_param(prm.name)) f.nccl.set(prm.name, prm.value);
        for (const auto& k : fit_.kinds)
          f.capacity_scale[k] = (f.capacity_scale.count(k) ? f.capacity_scale[k] : 1.0) * 1e6;
      }
      if (v == 1)
        for (const auto& prm : f.nccl.list())
          if (is_ll_cap(prm.name) || is_ll128_cap(prm.name)) f.nccl.set(prm.name, prm.value * 1e6);
      if (v == 2)
        for (const auto& k : fit_.bottleneck)
          f.capacity_scale[k] = (f.capacity_scale.count(k) ? f.capacity_scale[k] : 1.0) * 0.5;
      slot = std::make_unique<NcclReplayer>(fit_.target, f);
    }
    return *slot;
  }

 private:
  const NcclFit& fit_;
  const sim::CommOptions& current_;
  std::map<std::tuple<int, int, int>, std::unique_ptr<NcclReplayer>> variants_;
};

// One record's simulated time split along the parameters: base latency of its (algo, proto) pair, hop latency H,
// bandwidth time of the bottleneck kinds (Bl_unit) and of the LL / LL128 ceiling (Bc_unit) at efficiency 1, and the
// rest (fixed).
struct LinearRow {
  std::string pair;
  int proto;
  double t, H, Bl_unit, Bc_unit, fixed;
};
struct Linearization {
  std::vector<LinearRow> rows;
  std::map<std::string, Eigen::Index> pair_col;  // "<algo>.<proto>" -> the column of its base latency
};

// One record's LinearRow at the current parameters, from its replay and its plan's forced variants.
LinearRow linear_row(const NcclFit& fit, const PhysParams& cur, const CollectiveMeasurement& m, NcclReplayer& now,
                     ForcedPlans& plans) {
  const auto r0 = now.run(m);
  const double L = plans.variant(r0.algo, r0.proto, 0).run(m).time_us;
  // Variant 1 lifts only the LL / LL128 ceilings, which a Simple plan never reads (its per-flow cap is the top rung,
  // sim/communicator.cpp): its replay would repeat variant 0's, the costliest of the four.
  const double LC = r0.proto == coll::Proto::Simple ? L : plans.variant(r0.algo, r0.proto, 1).run(m).time_us;
  const double H = std::max(0.0, LC - r0.base_us), Bc = std::max(0.0, L - LC);
  const double Bl =
      fit.bottleneck.empty() ? 0.0 : std::max(0.0, plans.variant(r0.algo, r0.proto, 2).run(m).time_us - r0.time_us);
  LinearRow row{pair_key(r0.algo, r0.proto), static_cast<int>(r0.proto), m.time_us, H, Bl * cur.link_eff, 0.0, 0.0};
  // What the linear model does not carry (interplay of latency and bandwidth in the pipelined steps, non-
  // bottleneck kinds) stays as simulated: the model reproduces the current time exactly at the current point.
  row.fixed = r0.time_us - r0.base_us - cur.hop_scale * H - Bc - Bl;
  if (r0.proto == coll::Proto::Simple)
    row.fixed += Bc;
  else
    row.Bc_unit = Bc * cur.cap_eff[static_cast<std::size_t>(r0.proto)];
  return row;
}

// Linearizes the simulated time around the current parameters (plan forced to the current choice of algorithm and
// protocol), each distinct call once, on the machine's cores.
Linearization linearize(const NcclFit& fit, const PhysParams& cur, int pass) {
  const sim::CommOptions o = options_of(cur, fit.target, fit.bottleneck);
  // Per thread (on_cores): a replayer of the current options and its forced-plan variants.
  struct Replayers {
    NcclReplayer now;
    ForcedPlans plans;
  };
  report_pass(fit.target, pass, "linearizing " + std::to_string(fit.records.size()) + " records");
  const DistinctCalls d(fit.records);
  const std::vector<std::size_t> order =
      largest_first(d.calls.size(), [&](std::size_t k) { return fit.records[d.calls[k]]->size_bytes; });
  std::vector<LinearRow> rows(fit.records.size());
  on_cores<Replayers>(
      d.calls.size(), fit.target.jobs,
      [&] {
        return std::make_unique<Replayers>(Replayers{NcclReplayer(fit.target, o), ForcedPlans(fit, o)});
      },
      [&](Replayers& r, std::size_t k) {
        const std::size_t c = d.calls[order[k]];
        rows[c] = linear_row(fit, cur, *fit.records[c], r.now, r.plans);
      });
  Linearization lin;
  for (std::size_t i = 0; i < fit.records.size(); ++i) {
    LinearRow row = rows[d.first[i]];
    row.t = fit.records[i]->time_us;  // the record's own measurement (its call's halves measure apart)
    lin.pair_col.emplace(row.pair, 0);
    lin.rows.push_back(row);
  }
  Eigen::Index c = 0;
  for (auto& [k, idx] : lin.pair_col) idx = c++;
  return lin;
}

// Solves the bounded relative-error least squares of one linearization: the parameters of the full step.
PhysParams solve_step(const Linearization& lin, const PhysParams& cur, const NcclFit& fit) {
  const auto& rows = lin.rows;
  const auto c = static_cast<Eigen::Index>(lin.pair_col.size());
  const Eigen::Index c_hop = c, c_link = c + 1, c_ll = c + 2, c_ll128 = c + 3;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), c + 4);
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  // Relative error: (t - fixed - Bl_unit - Bc_unit)/t = b/t + lambda H/t + kappa' Bl_unit/t + mu' Bc_unit/t with
  // kappa = 1 + kappa' = 1/link_eff and mu = 1 + mu' = 1/cap_eff: every unknown >= 0 (NNLS) and so
  // efficiencies in (0, 1], latencies >= 0.
  bool any_cap[2] = {false, false};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LinearRow& r = rows[i];
    const auto ii = static_cast<Eigen::Index>(i);
    A(ii, lin.pair_col.at(r.pair)) = 1.0 / r.t;
    A(ii, c_hop) = r.H / r.t;
    A(ii, c_link) = r.Bl_unit / r.t;
    if (r.proto == static_cast<int>(coll::Proto::LL)) A(ii, c_ll) = r.Bc_unit / r.t, any_cap[0] |= r.Bc_unit > 0;
    if (r.proto == static_cast<int>(coll::Proto::LL128)) A(ii, c_ll128) = r.Bc_unit / r.t, any_cap[1] |= r.Bc_unit > 0;
    y(ii) = (r.t - r.fixed - r.Bl_unit - r.Bc_unit) / r.t;
  }
  const Eigen::VectorXd x = detail::nnls(A, y);
  PhysParams next = cur;
  for (const auto& [k, idx] : lin.pair_col) next.base_us[k] = std::max(0.0, x[idx]);
  next.hop_scale = std::max(0.0, x[c_hop]);
  if (!fit.bottleneck.empty()) next.link_eff = 1.0 / (1.0 + std::max(0.0, x[c_link]));
  for (int p = 0; p < 2; ++p)
    if (any_cap[p])
      next.cap_eff[p] = 1.0 / (1.0 + std::max(0.0, x[p == 0 ? c_ll : c_ll128])), next.caps_fitted.insert(p);
  return next;
}

// The point a fraction w of the way from `cur` to `next` (a convex mix of two in-bound points stays in bounds:
// latencies and 1/efficiencies are mixed linearly).
PhysParams mix_step(const PhysParams& cur, const PhysParams& next, double w, const SimTarget& t) {
  PhysParams q = next;
  for (auto& [k, v] : q.base_us) {
    const auto it = cur.base_us.find(k);
    const double from = it != cur.base_us.end() ? it->second : t.options.nccl.get(kBasePrefix + k);
    v = from + w * (v - from);
  }
  q.hop_scale = cur.hop_scale + w * (next.hop_scale - cur.hop_scale);
  q.link_eff = 1.0 / (1.0 / cur.link_eff + w * (1.0 / next.link_eff - 1.0 / cur.link_eff));
  for (int p = 0; p < 2; ++p)
    q.cap_eff[p] = 1.0 / (1.0 / cur.cap_eff[p] + w * (1.0 / next.cap_eff[p] - 1.0 / cur.cap_eff[p]));
  return q;
}

// The candidate a damped step keeps and its median error (1e300: no step keeps the profile within its bound).
struct Step {
  double score;
  PhysParams taken;
};

// Damped step: the full step can move NCCL's algorithm / protocol switch points and overshoot, so try the step,
// then a half and a quarter of it, and keep the best one within the bound.
Step damped_step(const NcclFit& fit, const PhysParams& cur, const PhysParams& next, double best_score,
                 double last_score, int pass) {
  double s = 1e300;
  PhysParams taken = next;
  for (double w : {1.0, 0.5, 0.25}) {
    char state[96];
    std::snprintf(state, sizeof state, "replaying a step of %.2f (best median error so far %.1f %%)", w,
                  100 * best_score);
    report_pass(fit.target, pass, state);
    const PhysParams q = mix_step(cur, next, w, fit.target);
    const std::vector<double> times =
        simulated_times(fit.target, options_of(q, fit.target, fit.bottleneck), fit.records);
    const double sw = fit.after_worst(times) <= fit.after_limit ? fit.median_error(times) : 1e300;
    if (sw < s) s = sw, taken = q;
    if (sw < last_score - 1e-4) break;
  }
  return Step{s, taken};
}

// Gauss-Newton-like passes: linearize, solve, take a damped step, replay. The catalog values are the first
// candidate; the candidate with the lowest median error is kept.
PhysParams fit_physical_params(const NcclFit& fit) {
  PhysParams cur, best;
  double best_score = fit.median_error(fit.before), last_score = best_score;
  for (int pass = 0; pass < 3; ++pass) {
    const PhysParams next = solve_step(linearize(fit, cur, pass), cur, fit);
    const Step step = damped_step(fit, cur, next, best_score, last_score, pass);
    const double s = step.score;
    if (s >= 1e300) break;  // no step keeps the calibrated profile within its bound
    if (s < best_score - 1e-12) best = step.taken, best_score = s;
    cur = step.taken;
    if (s >= last_score - 1e-4) break;  // no progress: the linearization has converged or drifted
    last_score = s;
  }
  return best;
}

void record_fitted_params(const PhysParams& best, const NcclFit& fit, CalibrationProfile& prof) {
  fold_params(best, fit.target, fit.bottleneck, prof);
  prof.fitted.hop_latency_scale = best.hop_scale;
  prof.fitted.bandwidth_efficiency = best.link_eff;
  prof.fitted.bottleneck_kinds = fit.bottleneck;
  prof.fitted.base_latency_us = best.base_us;
  for (int p : best.caps_fitted) prof.fitted.flow_cap_efficiency[proto_key(coll::Proto(p))] = best.cap_eff[p];
  double shift = 0;
  for (const auto& [k, v] : best.base_us) shift += v - fit.target.options.nccl.get(kBasePrefix + k);
  prof.fitted.extra_latency_us = best.base_us.empty() ? 0.0 : shift / double(best.base_us.size());
}

}  // namespace

namespace {

// Errors per series: with the target's own parameters, with the fitted ones, and with the residual factors on top.
void record_series_quality(const NcclFit& fit, const std::vector<double>& params, CalibrationProfile& prof) {
  std::map<std::string, std::array<std::vector<double>, 3>> per;
  for (std::size_t i = 0; i < fit.records.size(); ++i) {
    const auto& m = *fit.records[i];
    const double after = params[i] * prof.time_factor(m.op, m.algo, m.proto, m.nnodes, m.gpus_per_node, m.size_bytes);
    auto& e = per[series_key(m).label()];
    e[0].push_back(std::abs(fit.before[i] - m.time_us) / m.time_us);
    e[1].push_back(std::abs(params[i] - m.time_us) / m.time_us);
    e[2].push_back(std::abs(after - m.time_us) / m.time_us);
  }
  for (const auto& [label, e] : per) {
    SeriesQuality q;
    q.series = label;
    q.points = static_cast<std::int64_t>(e[0].size());
    q.median_before = median_of(e[0]), q.max_before = *std::max_element(e[0].begin(), e[0].end());
    q.median_params = median_of(e[1]), q.max_params = *std::max_element(e[1].begin(), e[1].end());
    q.median_after = median_of(e[2]), q.max_after = *std::max_element(e[2].begin(), e[2].end());
    prof.quality.push_back(q);
  }
}

// What the fit saw (coverage) and what it could not constrain (kept at catalog values: "not measured").
void record_coverage(const NcclFit& fit, const PhysParams& x, CalibrationProfile& prof) {
  ProfileCoverage& c = prof.coverage;
  c.nodes = {fit.target.nodes};
  c.gpus_per_node = {fit.target.gpus_per_node};
  NcclReplayer r(fit.target, fit.target.options);
  c.transports = transport_parts(r.transports());
  c.min_size_bytes = c.max_size_bytes = fit.records.front()->size_bytes;
  for (const auto* m : fit.records)
    c.min_size_bytes = std::min(c.min_size_bytes, m->size_bytes),
    c.max_size_bytes = std::max(c.max_size_bytes, m->size_bytes);
  auto& nm = prof.not_measured;
  if (fit.target.nodes == 1)
    nm.push_back(
        "inter-node latency (nccl.hw_latency.net.*, nccl.latency_inter, nccl.net_overhead.*): one node measured");
  for (const auto& k : fit.kinds)
    if (std::find(fit.bottleneck.begin(), fit.bottleneck.end(), k) == fit.bottleneck.end())
      nm.push_back("capacity of '" + k + "': not a bottleneck of the measured sizes");
  for (const auto& p : fit.target.options.nccl.list())
    if (p.name.rfind(kBasePrefix, 0) == 0 && !x.base_us.count(p.name.substr(kBasePrefix.size())))
      nm.push_back(p.name + ": NCCL did not choose this algorithm / protocol on the measured sizes");
  if (!x.caps_fitted.count(0)) nm.push_back("LL per-channel ceiling (nccl.ll_max_bw.*)");
  if (!x.caps_fitted.count(1)) nm.push_back("LL128 per-channel ceiling (nccl.per_ch_max_ring_ll128_bw.*)");
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}
std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", 100 * v);
  return b;
}

// Why the calibrated curve misses record i: the measured curve falls next to it (a calibrated curve may not), or
// the point disagrees with its size segment's factor.
std::string why_worst(const NcclFit& fit, std::size_t i, double calibrated_us) {
  const auto& m = *fit.records[i];
  std::string why = pct(std::abs(calibrated_us - m.time_us) / m.time_us) + " % at " + std::to_string(m.size_bytes) +
                    " B (measured " + num(m.time_us) + " us, calibrated " + num(calibrated_us) + " us, uncalibrated " +
                    pct(std::abs(fit.before[i] - m.time_us) / m.time_us) + " %)";
  for (const auto* o : fit.records) {
    if (o->op != m.op || o->in_place != m.in_place || o->algo != m.algo || o->proto != m.proto) continue;
    const bool falls_into = o->size_bytes < m.size_bytes && o->time_us > 1.05 * m.time_us;
    const bool falls_from = o->size_bytes > m.size_bytes && o->time_us < m.time_us / 1.05;
    if (falls_into || falls_from)
      return why + ": the measured time falls from " + num((falls_into ? o : &m)->time_us) + " us at " +
             std::to_string((falls_into ? o : &m)->size_bytes) + " B to " + num((falls_into ? &m : o)->time_us) +
             " us at " + std::to_string((falls_into ? &m : o)->size_bytes) +
             " B, which a calibrated curve (monotone in size) cannot follow";
  }
  return why + ": the point disagrees with the residual factor of its size segment, fitted on its neighbours";
}

// Minimax variant of the residual factors: per segment the factor that minimizes the largest |log ratio| (the
// geometric middle of the extreme ratios), same segments.
void minimax_residuals(const NcclFit& fit, const std::vector<double>& params, CalibrationProfile& prof) {
  for (auto& rf : prof.residuals)
    for (std::size_t k = 0; k < rf.segments.size(); ++k) {
      const std::int64_t lo = k == 0 ? INT64_MIN : rf.segments[k].start_bytes;
      const std::int64_t hi = k + 1 < rf.segments.size() ? rf.segments[k + 1].start_bytes : INT64_MAX;
      double rmin = 1e300, rmax = 0;
      for (std::size_t i = 0; i < fit.records.size(); ++i) {
        const auto& m = *fit.records[i];
        if (m.op != rf.op || m.algo != rf.algo || m.proto != rf.proto || m.size_bytes < lo || m.size_bytes >= hi)
          continue;
        rmin = std::min(rmin, m.time_us / params[i]), rmax = std::max(rmax, m.time_us / params[i]);
      }
      if (rmax > 0) rf.segments[k].factor = std::sqrt(rmin * rmax);
    }
}

// A fit never reports a worse maximum error than the uncalibrated model without saying so and why: when the
// residual factors raise it, the minimax factors are tried (kept if they stay within the bound and the calibrated
// curve stays monotone at the measured sizes); otherwise the fit is kept (its median is what the factors are for)
// and fit_note names the worst point and the reason.
// The record where a series' calibrated maximum error exceeds its uncalibrated maximum the most (npos: none does).
std::size_t worse_than_uncalibrated(const NcclFit& fit, const std::vector<double>& params,
                                    const CalibrationProfile& prof) {
  struct Max {
    double before = 0, after = 0;
    std::size_t at = 0;
  };
  std::map<std::string, Max> per;
  for (std::size_t i = 0; i < fit.records.size(); ++i) {
    const auto& m = *fit.records[i];
    const double c = params[i] * prof.time_factor(m.op, m.algo, m.proto, m.nnodes, m.gpus_per_node, m.size_bytes);
    Max& x = per[series_key(m).label()];
    x.before = std::max(x.before, std::abs(fit.before[i] - m.time_us) / m.time_us);
    if (std::abs(c - m.time_us) / m.time_us > x.after) x.after = std::abs(c - m.time_us) / m.time_us, x.at = i;
  }
  std::size_t worst = std::string::npos;
  double excess = 1e-12;
  for (const auto& [label, x] : per)
    if (x.after - x.before > excess) excess = x.after - x.before, worst = x.at;
  return worst;
}

// A fit never reports a worse maximum error than the uncalibrated model without saying so and why: when a series'
// calibrated maximum exceeds its uncalibrated one, the minimax residual factors are tried (kept if no series is then
// worse and the calibrated curve stays monotone at the measured sizes); otherwise the fit is kept (its median is
// what the factors are for) and fit_note names the series' worst point and the reason.
void guard_max_error(const NcclFit& fit, const std::vector<double>& params, CalibrationProfile& prof) {
  if (worse_than_uncalibrated(fit, params, prof) == std::string::npos) return;
  CalibrationProfile alt = prof;
  minimax_residuals(fit, params, alt);
  bool monotone = true;
  for (auto& rf : alt.residuals) {
    std::map<std::int64_t, double> at;
    for (std::size_t i = 0; i < fit.records.size(); ++i)
      if (fit.records[i]->op == rf.op && fit.records[i]->algo == rf.algo && fit.records[i]->proto == rf.proto)
        at[fit.records[i]->size_bytes] = params[i] * rf.factor(fit.records[i]->size_bytes);
    for (auto it = at.begin(); it != at.end() && std::next(it) != at.end(); ++it)
      monotone &= std::next(it)->second >= it->second * (1 - 1e-12);
  }
  if (monotone && worse_than_uncalibrated(fit, params, alt) == std::string::npos) {
    prof.residuals = alt.residuals;
    return;
  }
  const std::size_t w = worse_than_uncalibrated(fit, params, prof);
  const auto& m = *fit.records[w];
  prof.fit_note =
      "maximum error of " + series_key(m).label() + " above the uncalibrated model's: " +
      why_worst(fit, w, params[w] * prof.time_factor(m.op, m.algo, m.proto, m.nnodes, m.gpus_per_node, m.size_bytes));
}

// The in-sample error decomposition (fit_report.hpp) over every fitted record: catalog replay, the fitted
// parameters with the calibrated plan choice (`params`; the plan choice is derived from the fitted simulation, not
// from the measured times, so it belongs to the physical stage, as in the quality table's "params" column), and
// those times x the residual factor.
void record_decomposition(const NcclFit& fit, const std::vector<double>& params, CalibrationProfile& prof) {
  std::vector<double> measured, after;
  for (std::size_t i = 0; i < fit.records.size(); ++i) {
    const auto& m = *fit.records[i];
    measured.push_back(m.time_us);
    after.push_back(params[i] * prof.time_factor(m.op, m.algo, m.proto, m.nnodes, m.gpus_per_node, m.size_bytes));
  }
  prof.report.in_sample = decompose_errors(measured, fit.before, params, after);
}

// Returns the catalog (uncalibrated) times of `nccl`, for the held-out report.
std::vector<double> fit_nccl(const SimTarget& t, const std::vector<const CollectiveMeasurement*>& nccl,
                             const CalibrationFitOptions& options, CalibrationProfile& prof) {
  prof.cluster = t.cluster->name();
  prof.nodes = t.nodes;
  prof.gpus_per_node = t.gpus_per_node;
  const NcclFit fit = prepare_nccl_fit(t, nccl);
  const PhysParams best = fit_physical_params(fit);
  record_fitted_params(best, fit, prof);
  record_coverage(fit, best, prof);
  sim::CommOptions fitted = t.options;
  apply_profile(prof, fitted);
  report_pass(t, 2, "choosing the fastest plan per size");
  prof.plans = fit_plan_choices(fit, fitted);
  const std::vector<double> params = simulated_times(t, fitted, fit.records, &prof.plans);
  prof.report.size_corrections = options.size_corrections;
  if (options.size_corrections) {
    fit_residual_factors(fit, params, prof);
    guard_max_error(fit, params, prof);
    place_switches_by_calibrated_time(fit, fitted, prof);
    monotone_gaps(fit, fitted, prof);
  }
  record_series_quality(fit, params, prof);
  record_decomposition(fit, params, prof);
  return fit.before;
}

// ---- Open MPI: one alpha-beta-gamma model per (network, algorithm).
void fit_mpi_models(const std::vector<const CollectiveMeasurement*>& all, CalibrationProfile& prof) {
  std::vector<Measurement> mpi_records;
  for (const auto* m : all)
    if (!is_nccl(*m)) mpi_records.emplace_back(*m);
  std::map<std::pair<std::string, std::string>, std::vector<Series>> mpi;
  for (auto& s : group_series(mpi_records)) {
    try {
      coll::parse_ompi_allreduce(s.key.algo);
    } catch (const std::exception&) {
      continue;  // not an Open MPI allreduce algorithm name: no schedule to replay
    }
    if (s.key.op != "allreduce") continue;
    mpi[{network_tag(s.key.source), s.key.algo}].push_back(std::move(s));
  }
  for (const auto& [key, series] : mpi) {
    MpiModel mm;
    mm.network = key.first;
    mm.algo = key.second;
    for (const auto& s : series) mm.fitted_nranks = std::max(mm.fitted_nranks, s.key.nranks);
    const auto fit = fit_alpha_beta_gamma(series);
    mm.model = fit.model;
    prof.mpi_models.push_back(mm);
    SeriesQuality q;
    q.series = "openmpi " + mm.network + " " + mm.algo + " n" + std::to_string(mm.fitted_nranks);
    q.points = fit.quality.points;
    q.median_params = q.median_after = fit.quality.median_rel_error;
    q.max_params = q.max_after = fit.quality.max_rel_error;
    q.median_before = q.max_before = 0;  // no uncalibrated MPI model exists
    prof.quality.push_back(q);
  }
}

}  // namespace

CalibrationProfile fit_calibration(const std::vector<Measurement>& records, const SimTarget* target,
                                   const CalibrationProvenance& provenance, const CalibrationFitOptions& options) {
  CalibrationProfile prof;
  prof.provenance = provenance;
  const auto all = usable_collectives(records);
  const auto nccl = replayable_nccl(all, target);
  if (!nccl.empty()) {
    if (options.holdout.kind != SizeHoldout::Kind::None) {  // a rule that cannot split is refused before fitting
      std::vector<std::int64_t> sizes;
      for (const auto* m : nccl) sizes.push_back(m->size_bytes);
      (void)split_sizes(options.holdout, sizes);
    }
    const std::vector<double> catalog_us = fit_nccl(*target, nccl, options, prof);
    if (options.holdout.kind != SizeHoldout::Kind::None)
      detail::report_held_out_sizes(records, nccl, catalog_us, *target, provenance, options, prof);
  }
  fit_mpi_models(all, prof);
  if (nccl.empty() && prof.mpi_models.empty())
    throw InputError(
        provenance.sources.empty() ? "" : provenance.sources.front(), "",
        "nothing to fit: no usable NCCL record matching the target layout and no Open MPI allreduce series",
        std::to_string(all.size()) + " usable collective records",
        "nccl-tests / probe records with --cluster, --nodes, --gpus-per-node matching them, or OSU records");
  return prof;
}

}  // namespace vgsim::calibrate
