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
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/mpi_fit.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::calibrate {

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

// Replays NCCL records on one target with given options; communicators and results cached per (algo, proto, op,
// size) so in-place / out-of-place pairs cost one simulation. With a profile's plan choices, records of NCCL's own
// choice (algo and proto "default") run the calibrated plan for their size.
class NcclReplayer {
 public:
  NcclReplayer(const SimTarget& t, sim::CommOptions options, const std::vector<PlanChoice>* plans = nullptr)
      : t_(t), options_(std::move(options)), plans_(plans) {
    ranks_ = sim::place_ranks(*t.cluster, t.nodes, t.gpus_per_node);
  }
  bool applies(const CollectiveMeasurement& m, std::string* why) const {
    if (m.nnodes != t_.nodes || m.gpus_per_node != t_.gpus_per_node) {
      *why = "layout " + std::to_string(m.nnodes) + "x" + std::to_string(m.gpus_per_node) +
             " differs from the target " + std::to_string(t_.nodes) + "x" + std::to_string(t_.gpus_per_node);
      return false;
    }
    try {
      coll::parse_op(m.op);
    } catch (const std::exception&) {
      *why = "op " + m.op + " is not modeled";
      return false;
    }
    return true;
  }
  struct Result {
    double time_us, base_us;
    std::string chosen;
    coll::Algo algo;
    coll::Proto proto;
  };
  Result run(const CollectiveMeasurement& m) {
    std::string algo = m.algo, proto = m.proto;
    if (plans_ && algo == "default" && proto == "default")
      for (const auto& c : *plans_)
        if (c.op == m.op && c.nnodes == m.nnodes && c.gpus_per_node == m.gpus_per_node && c.covers(m.size_bytes)) {
          const PlanSegment& g = c.at(m.size_bytes);
          algo = g.algo, proto = g.proto;
        }
    return run_as(m.op, m.size_bytes, m.root, algo, proto);
  }
  // One call with the algorithm / protocol forced ("default": NCCL's choice).
  Result run_as(const std::string& op_name, std::int64_t size, std::int64_t root_rank, const std::string& algo,
                const std::string& proto) {
    const std::string key = algo + "/" + proto;
    auto it = comms_.find(key);
    if (it == comms_.end()) {
      sim::CommOptions o = options_;
      if (algo == "ring" || algo == "tree" || algo == "nvls" || algo == "nvlstree") o.algo = coll::parse_algo(algo);
      if (proto != "default") o.proto = coll::parse_proto(proto);
      it = comms_.emplace(key, std::make_unique<sim::Communicator>(*t_.cluster, ranks_, o)).first;
    }
    const std::string rkey = key + "/" + op_name + "/" + std::to_string(size) + "/" + std::to_string(root_rank);
    auto r = results_.find(rkey);
    if (r != results_.end()) return r->second;
    const coll::Op op = coll::parse_op(op_name);
    const auto root = static_cast<std::uint32_t>(std::max<std::int64_t>(0, root_rank));
    const sim::CollectiveResult res = sim::simulate_collective(*it->second, op, size, root);
    Result out{res.time.us(), res.plan.costs.base_latency.us(),
               std::string(coll::to_string(res.plan.algo)) + "/" + coll::to_string(res.plan.proto), res.plan.algo,
               res.plan.proto};
    return results_.emplace(rkey, out).first->second;
  }
  std::string transports() {
    if (comms_.empty()) run_as("allreduce", 8, -1, "default", "default");
    return comms_.begin()->second->describe_transports();
  }

 private:
  const SimTarget& t_;
  sim::CommOptions options_;
  const std::vector<PlanChoice>* plans_;
  std::vector<std::uint32_t> ranks_;
  std::map<std::string, std::unique_ptr<sim::Communicator>> comms_;
  std::map<std::string, Result> results_;
};

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

namespace {
// Prefix sums of (x = log size, y = log ratio) over the distinct sizes, for least-squares lines on any range.
struct LogSums {
  std::vector<double> n, x, y, xx, xy, yy;
  void add(double cx, double cy, double c) {
    n.push_back(n.back() + c), x.push_back(x.back() + cx), y.push_back(y.back() + cy);
    xx.push_back(xx.back()), xy.push_back(xy.back()), yy.push_back(yy.back());
  }
  // Slope and intercept of the least-squares line y = a + b x over sizes [i, j), and its sum of squared residuals.
  std::tuple<double, double, double> line(std::size_t i, std::size_t j) const {
    const double c = n[j] - n[i], sx = x[j] - x[i], sy = y[j] - y[i];
    const double vxx = (xx[j] - xx[i]) - sx * sx / c, vxy = (xy[j] - xy[i]) - sx * sy / c;
    const double vyy = std::max(0.0, (yy[j] - yy[i]) - sy * sy / c);
    const double b = vxx > 1e-12 ? vxy / vxx : 0.0;
    return {sy / c - b * sx / c, b, std::max(0.0, vyy - b * vxy)};
  }
};
}  // namespace

std::vector<ResidualSegment> fit_residual_segments(std::vector<std::pair<std::int64_t, double>> points) {
  if (points.empty()) return {ResidualSegment{0, 1.0}};
  std::sort(points.begin(), points.end());
  std::vector<std::int64_t> sizes;
  LogSums L{{0}, {0}, {0}, {0}, {0}, {0}};
  for (const auto& [size, ratio] : points) {
    const double lx = std::log(double(std::max<std::int64_t>(size, 1))), ly = std::log(std::max(ratio, 1e-9));
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size), L.add(0, 0, 0);
    L.n.back() += 1, L.x.back() += lx, L.y.back() += ly;
    L.xx.back() += lx * lx, L.xy.back() += lx * ly, L.yy.back() += ly * ly;
  }
  const std::size_t n = sizes.size();
  auto sse = [&](std::size_t i, std::size_t j) { return std::get<2>(L.line(i, j)); };
  const std::size_t kMin = 3, kMax = 8;
  const double inf = 1e300;
  // best[k][j]: min SSE of the first j sizes in k segments; from[k][j]: start of the last segment.
  std::vector<std::vector<double>> best(kMax + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<std::size_t>> from(kMax + 1, std::vector<std::size_t>(n + 1, 0));
  best[0][0] = 0;
  for (std::size_t k = 1; k <= kMax; ++k)
    for (std::size_t j = 1; j <= n; ++j)
      for (std::size_t i = 0; i < j; ++i) {
        if (best[k - 1][i] >= inf) continue;
        if (j - i < kMin && !(k == 1 && i == 0)) continue;  // a lone segment may be short (tiny series)
        const double v = best[k - 1][i] + sse(i, j);
        if (v < best[k][j]) best[k][j] = v, from[k][j] = i;
      }
  std::size_t bestk = 1;
  double score = inf;
  for (std::size_t k = 1; k <= kMax; ++k) {
    if (best[k][n] >= inf) continue;
    const double s = std::sqrt(best[k][n] / L.n[n]) + 0.005 * double(k - 1);
    if (s < score - 1e-12) score = s, bestk = k;
  }
  std::vector<ResidualSegment> segs;
  std::size_t j = n;
  for (std::size_t k = bestk; k >= 1; --k) {
    const std::size_t i = from[k][j];
    const auto [a, b, e] = L.line(i, j);
    ResidualSegment g{i == 0 ? 0 : sizes[i], 1.0};
    const double slope = std::abs(b) < 1e-9 ? 0.0 : b;
    g.factor = std::exp(a + slope * std::log(double(std::max<std::int64_t>(sizes[i], 1))));
    if (slope != 0.0)
      g.slope = slope, g.anchor_bytes = std::max<std::int64_t>(sizes[i], 1), g.last_bytes = sizes[j - 1];
    segs.push_back(g);
    j = i;
  }
  std::reverse(segs.begin(), segs.end());
  return segs;
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

std::vector<double> simulated_times(NcclReplayer& replayer, const std::vector<const CollectiveMeasurement*>& records) {
  std::vector<double> times(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) times[i] = replayer.run(*records[i]).time_us;
  return times;
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

// The records of one NCCL fit and the two errors every candidate parameter set is judged by.
struct NcclFit {
  const SimTarget& target;
  std::vector<const CollectiveMeasurement*> records;
  std::set<std::string> kinds;          // resource kinds of the target cluster
  std::vector<std::string> bottleneck;  // the kinds whose capacity the link efficiency scales
  std::vector<double> before;           // simulated times with the target's own parameters
  double after_limit = 0;               // the bound on after_worst of any candidate

  // Median relative error of simulated times over all records.
  double median_error(const std::vector<double>& sim_us) const {
    std::vector<double> e;
    for (std::size_t i = 0; i < records.size(); ++i)
      e.push_back(std::abs(sim_us[i] - records[i]->time_us) / records[i]->time_us);
    return median_of(e);
  }

  // Worst per-series median error once residual factors are fitted on top of `sim_us` (as fit_residual_factors
  // does): a candidate may not make the calibrated profile worse than max(8 %, the catalog's), the acceptance bound
  // of the tests.
  double after_worst(const std::vector<double>& sim_us) const {
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
};

NcclFit prepare_nccl_fit(const SimTarget& t, const std::vector<const CollectiveMeasurement*>& nccl) {
  NcclFit fit{t, nccl, {}, {}, {}, 0.0};
  for (const auto& r : t.cluster->resources()) fit.kinds.insert(r.kind);
  NcclReplayer base(t, t.options);
  fit.bottleneck = bottleneck_kinds(t, fit.kinds, fit.records, base);
  fit.before = simulated_times(base, fit.records);
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

// Linearizes the simulated time around the current parameters (plan forced to the current choice of algorithm and
// protocol).
Linearization linearize(const NcclFit& fit, const PhysParams& cur, int pass) {
  const sim::CommOptions o = options_of(cur, fit.target, fit.bottleneck);
  NcclReplayer now(fit.target, o);
  ForcedPlans plans(fit, o);
  Linearization lin;
  for (const auto* m : fit.records) {
    report_pass(fit.target, pass,
                "linearizing record " + std::to_string(lin.rows.size() + 1) + "/" + std::to_string(fit.records.size()));
    const auto r0 = now.run(*m);
    const double L = plans.variant(r0.algo, r0.proto, 0).run(*m).time_us;
    const double LC = plans.variant(r0.algo, r0.proto, 1).run(*m).time_us;
    const double H = std::max(0.0, LC - r0.base_us), Bc = std::max(0.0, L - LC);
    const double Bl =
        fit.bottleneck.empty() ? 0.0 : std::max(0.0, plans.variant(r0.algo, r0.proto, 2).run(*m).time_us - r0.time_us);
    LinearRow row{pair_key(r0.algo, r0.proto), static_cast<int>(r0.proto), m->time_us, H, Bl * cur.link_eff, 0.0, 0.0};
    // What the linear model does not carry (interplay of latency and bandwidth in the pipelined steps, non-
    // bottleneck kinds) stays as simulated: the model reproduces the current time exactly at the current point.
    row.fixed = r0.time_us - r0.base_us - cur.hop_scale * H - Bc - Bl;
    if (r0.proto == coll::Proto::Simple)
      row.fixed += Bc;
    else
      row.Bc_unit = Bc * cur.cap_eff[static_cast<std::size_t>(r0.proto)];
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
    NcclReplayer replay(fit.target, options_of(q, fit.target, fit.bottleneck));
    const std::vector<double> times = simulated_times(replay, fit.records);
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

// ---- Calibrated plan choice: NCCL's own choice, except where it would make the time fall as the size grows.

using PlanName = std::pair<std::string, std::string>;  // lower-case (algo, proto), e.g. ("tree", "ll128")

PlanName plan_name(coll::Algo a, coll::Proto p) {
  return {detail::to_lower(coll::to_string(a)), detail::to_lower(coll::to_string(p))};
}

// The smallest size in (a, b] (16-byte granules, bisection in log size) where plan `to` is no slower than `from`.
template <typename TimeFn>
std::int64_t crossover(TimeFn& time, const PlanName& from, const PlanName& to, std::int64_t a, std::int64_t b) {
  std::int64_t lo = a, hi = b;
  for (int it = 0; it < 24 && hi - lo > 16; ++it) {
    std::int64_t mid = static_cast<std::int64_t>(std::sqrt(double(lo) * double(hi))) / 16 * 16;
    if (mid <= lo || mid >= hi) mid = lo + (hi - lo) / 2;
    (time(to, mid) <= time(from, mid) ? hi : lo) = mid;
  }
  return hi;
}

// The plans of one op at its measured sizes S (ascending), from the largest size down: NCCL's choice n_i is kept
// unless it is slower at s_i than the plan kept at s_(i+1) is there; then that plan runs at s_i too (it is no
// slower at the smaller size: a fixed plan's time grows with the size). A switch from A to B between two measured
// sizes goes where their times cross when B is the faster at the larger size (bisected), else at the larger size.
// So the calibrated curve does not fall where NCCL's own switch points make the simulated one fall.
template <typename TimeFn>
std::vector<PlanSegment> monotone_plans(TimeFn& time, const std::vector<std::int64_t>& S,
                                        const std::vector<PlanName>& nccl) {
  const std::size_t n = S.size();
  std::vector<PlanName> kept(n);
  kept[n - 1] = nccl[n - 1];
  for (std::size_t i = n - 1; i-- > 0;)
    kept[i] = time(nccl[i], S[i]) > time(kept[i + 1], S[i + 1]) ? kept[i + 1] : nccl[i];
  std::vector<PlanSegment> segs{PlanSegment{0, kept[0].first, kept[0].second}};
  for (std::size_t i = 1; i < n; ++i) {
    if (kept[i] == kept[i - 1]) continue;
    const std::int64_t start =
        time(kept[i], S[i]) < time(kept[i - 1], S[i]) ? crossover(time, kept[i - 1], kept[i], S[i - 1], S[i]) : S[i];
    segs.push_back(PlanSegment{start, kept[i].first, kept[i].second});
  }
  return segs;
}

// Per op of the records of NCCL's own choice: the monotone plan segments above, with the fitted options.
std::vector<PlanChoice> fit_plan_choices(const NcclFit& fit, const sim::CommOptions& fitted) {
  NcclReplayer r(fit.target, fitted);
  std::map<std::string, std::map<std::int64_t, std::int64_t>> sizes;  // op -> size -> root
  for (const auto* m : fit.records)
    if (m->algo == "default" && m->proto == "default") sizes[m->op][m->size_bytes] = m->root;
  std::vector<PlanChoice> out;
  for (const auto& entry : sizes) {
    const std::string& op = entry.first;  // a plain reference: clang 14 (the fuzz build) cannot capture a binding
    const auto& by_size = entry.second;
    std::vector<std::int64_t> S;
    std::vector<PlanName> nccl;
    std::int64_t root = -1;
    for (const auto& [size, rt] : by_size) {
      S.push_back(size), root = rt;
      const auto res = r.run_as(op, size, rt, "default", "default");
      nccl.push_back(plan_name(res.algo, res.proto));
    }
    auto time = [&](const PlanName& p, std::int64_t size) {
      try {
        return r.run_as(op, size, root, p.first, p.second).time_us;
      } catch (const std::exception&) {
        return 1e300;  // not available for this size / communicator
      }
    };
    out.push_back(PlanChoice{op, fit.target.nodes, fit.target.gpus_per_node, monotone_plans(time, S, nccl), S.back()});
  }
  return out;
}

// ---- Residual factors per (op, algo, proto, layout) on top of the parameters (and plan choices).

using GroupKey = std::tuple<std::string, std::string, std::string>;

// The calibrated time must not fall from one measured size to the next across a segment boundary (within a segment
// the factor is constant and the parameters' curve grows): where it would, the two factors move towards each other
// in log space just enough (the segment with more points moving less), repeated until no boundary falls (at most
// 100 rounds; then the segments left falling are merged). Between segments the factor ramps (log-log) from the
// last measured size of one to the first of the next, so there is no step between measured sizes either.
std::vector<ResidualSegment> monotone_segments(std::vector<ResidualSegment> segs,
                                               const std::vector<std::pair<std::int64_t, double>>& ratios,
                                               const std::map<std::int64_t, double>& sim_us) {
  auto points_in = [&](std::size_t k) {
    const std::int64_t lo = k == 0 ? INT64_MIN : segs[k].start_bytes;
    const std::int64_t hi = k + 1 < segs.size() ? segs[k + 1].start_bytes : INT64_MAX;
    double n = 0;
    for (const auto& pr : ratios) n += pr.first >= lo && pr.first < hi ? 1 : 0;
    return std::max(n, 1.0);
  };
  // The log amount by which the calibrated time falls across boundary k (<= 0: it does not).
  auto fall = [&](std::size_t k) {
    auto b = sim_us.lower_bound(segs[k].start_bytes);
    if (b == sim_us.begin() || b == sim_us.end()) return 0.0;
    const auto a = std::prev(b);
    segs[k].ramp_from_bytes = a->first;
    return std::log(a->second * segs[k - 1].at(a->first)) - std::log(b->second * segs[k].at(b->first));
  };
  // Inside a segment the calibrated time grows when the factor's slope is at least minus the parameters' curve's
  // smallest log-log slope between its measured sizes: a steeper fall is clamped (the line re-centred on the
  // segment's points).
  for (std::size_t k = 0; k < segs.size(); ++k) {
    if (segs[k].slope >= 0) continue;
    const std::int64_t lo = segs[k].anchor_bytes, hi = segs[k].last_bytes;
    double min_growth = 1e300;
    for (auto it = sim_us.lower_bound(lo);
         it != sim_us.end() && std::next(it) != sim_us.end() && std::next(it)->first <= hi; ++it)
      min_growth = std::min(min_growth, std::log(std::next(it)->second / it->second) /
                                            std::log(double(std::next(it)->first) / double(it->first)));
    if (min_growth >= 1e300 || segs[k].slope >= -min_growth) continue;
    double sx = 0, sy = 0, c = 0;
    for (const auto& [size, ratio] : ratios)
      if (size >= lo && size <= hi) sx += std::log(double(size)), sy += std::log(std::max(ratio, 1e-9)), c += 1;
    segs[k].slope = std::min(0.0, -min_growth);
    segs[k].factor = std::exp(sy / c - segs[k].slope * sx / c + segs[k].slope * std::log(double(lo)));
  }
  for (int round = 0; round < 100; ++round) {
    bool any = false;
    for (std::size_t k = 1; k < segs.size(); ++k) {
      const double d = fall(k);
      if (d <= 1e-12) continue;
      any = true;
      const double nl = points_in(k - 1), nr = points_in(k), w = nr / (nl + nr);
      segs[k - 1].factor *= std::exp(-(d * w + 1e-12));
      segs[k].factor *= std::exp(d * (1 - w) + 1e-12);
    }
    if (!any) break;
  }
  for (std::size_t k = 1; k < segs.size();)
    if (fall(k) > 1e-9) {
      segs[k - 1].factor = std::sqrt(segs[k - 1].at(segs[k - 1].last_bytes) * segs[k].at(segs[k].start_bytes));
      segs[k - 1].slope = 0, segs[k - 1].anchor_bytes = segs[k - 1].last_bytes = 0;
      segs.erase(segs.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      ++k;
    }
  if (segs.size() == 1) segs[0].ramp_from_bytes = 0;
  return segs;
}

// Fits the residual factors of every group on top of `params` (the replayed times of fit.records).
void fit_residual_factors(const NcclFit& fit, const std::vector<double>& params, CalibrationProfile& prof) {
  std::map<GroupKey, std::vector<std::pair<std::int64_t, double>>> groups;
  std::map<GroupKey, std::map<std::int64_t, double>> sim_us;
  for (std::size_t i = 0; i < fit.records.size(); ++i) {
    const auto& m = *fit.records[i];
    groups[{m.op, m.algo, m.proto}].emplace_back(m.size_bytes, m.time_us / params[i]);
    sim_us[{m.op, m.algo, m.proto}][m.size_bytes] = params[i];
  }
  prof.residuals.clear();
  for (auto& [key, pts] : groups) {
    ResidualFactors rf;
    std::tie(rf.op, rf.algo, rf.proto) = key;
    rf.nnodes = fit.target.nodes, rf.gpus_per_node = fit.target.gpus_per_node;
    rf.segments = monotone_segments(fit_residual_segments(pts), pts, sim_us[key]);
    prof.residuals.push_back(rf);
  }
}

// Where the calibrated plan changes between two measured sizes a < b and a residual segment boundary lies in that
// gap too, the two sides are different plans with different factors. A log-log ramp of the factor across the gap laid
// over plan A's curve falls where B's factor is much lower than A's (measured on the p5 table with NVLS Tree offered:
// ring/LL128 x 2.0 at 16 MiB, NVLS Tree x 1.2 at 32 MiB, the curve 7.7 % lower at 21 MB than at 16 MiB). So there the
// factor steps instead, and the plan switches with it, at calibrated_switch's size (sim_fit.hpp).
void place_switches_by_calibrated_time(const NcclFit& fit, const sim::CommOptions& fitted, CalibrationProfile& prof) {
  NcclReplayer r(fit.target, fitted);
  for (auto& choice : prof.plans) {
    ResidualFactors* rf = nullptr;
    for (auto& x : prof.residuals)
      if (x.op == choice.op && x.algo == "default" && x.proto == "default" && x.nnodes == choice.nnodes &&
          x.gpus_per_node == choice.gpus_per_node)
        rf = &x;
    if (rf == nullptr) continue;
    std::set<std::int64_t> sizes;
    std::int64_t root = -1;
    for (const auto* m : fit.records)
      if (m->op == choice.op && m->algo == "default" && m->proto == "default")
        sizes.insert(m->size_bytes), root = m->root;
    for (std::size_t j = 1; j < choice.segments.size(); ++j) {
      const auto after = sizes.lower_bound(choice.segments[j].start_bytes);
      if (after == sizes.begin() || after == sizes.end()) continue;
      const std::int64_t a = *std::prev(after), b = *after;
      std::size_t k = 1;
      while (k < rf->segments.size() && !(rf->segments[k].start_bytes > a && rf->segments[k].start_bytes <= b)) ++k;
      if (k == rf->segments.size()) continue;  // one residual segment spans the gap: one factor for both plans
      const PlanName pa{detail::to_lower(choice.segments[j - 1].algo), detail::to_lower(choice.segments[j - 1].proto)};
      const PlanName pb{detail::to_lower(choice.segments[j].algo), detail::to_lower(choice.segments[j].proto)};
      const ResidualSegment &fa = rf->segments[k - 1], &fb = rf->segments[k];
      auto calibrated = [&](const PlanName& p, std::int64_t size) {
        try {
          return r.run_as(choice.op, size, root, p.first, p.second).time_us * (p == pa ? fa.at(size) : fb.at(size));
        } catch (const std::exception&) {
          return 1e300;  // not available for this size / communicator (as in fit_plan_choices)
        }
      };
      const std::int64_t at =
          calibrated_switch([&](int plan, std::int64_t size) { return calibrated(plan == 0 ? pa : pb, size); }, a, b);
      if (at == 0) continue;
      choice.segments[j].start_bytes = at;
      rf->segments[k].start_bytes = at, rf->segments[k].ramp_from_bytes = 0;
    }
  }
}

// Between two measured sizes the factor alone can let the calibrated time fall: where the fitted simulation grows
// unevenly across the gap while the factor ramps or slopes down evenly in log size (measured on the dgx-a100 table:
// ring/LL 38.7 us at 1 MiB, 51.0 at 1.66 MB, 70.1 at 2 MiB, the factor ramping 2.69 -> 1.49: the calibrated time
// 6.4 % lower at 1.32 MB than at 1 MiB), or where the plan switches to a faster one (aws-p4de: tree/LL -> tree/LL128
// just above 128 KiB, 15.7 % lower at 165 KB). So the fit samples every gap between neighbouring measured sizes (15
// sizes evenly in log size, and both sides of every plan switch in it) with the fitted parameters and plans, and
// where a sample falls below an earlier one (or rises above the next measured size's), sets the factor there to hold
// the calibrated time at that level (ResidualFactors::gaps). Sampled, so a fall between two samples stays possible.
void monotone_gaps(const NcclFit& fit, NcclReplayer& replay, CalibrationProfile& prof) {
  for (auto& rf : prof.residuals) {
    const CollectiveMeasurement* series = nullptr;
    std::set<std::int64_t> measured;
    for (const auto* m : fit.records)
      if (m->op == rf.op && m->algo == rf.algo && m->proto == rf.proto && m->nnodes == rf.nnodes &&
          m->gpus_per_node == rf.gpus_per_node)
        series = m, measured.insert(m->size_bytes);
    if (series == nullptr) continue;
    auto calibrated = [&](std::int64_t size, double* sim) {
      CollectiveMeasurement m = *series;
      m.size_bytes = size, m.count = size / 4;
      *sim = replay.run(m).time_us;
      return *sim * rf.segment_factor(size);
    };
    for (auto it = measured.begin(); it != measured.end() && std::next(it) != measured.end(); ++it) {
      const std::int64_t a = *it, b = *std::next(it);
      if (b - a <= 32) continue;
      std::set<std::int64_t> at;
      for (int i = 1; i < 16; ++i)
        at.insert(static_cast<std::int64_t>(double(a) * std::pow(double(b) / double(a), i / 16.0)) / 16 * 16);
      for (const auto& c : prof.plans)
        if (c.op == rf.op && rf.algo == "default" && rf.proto == "default")
          for (const auto& g : c.segments) at.insert(g.start_bytes), at.insert(g.start_bytes - 16);
      try {
        double sim = 0, running = calibrated(a, &sim);
        const double top = calibrated(b, &sim);
        if (running > top) continue;  // the measured sizes themselves fall: monotone_segments' case
        GapPoints gap{a, b};
        bool changed = false;
        for (std::int64_t s : at) {
          if (s <= a || s >= b) continue;
          const double c = calibrated(s, &sim);
          running = std::max(running, c);
          const double kept = std::min(running, top);
          changed |= kept != c;
          gap.points.emplace_back(s, kept / sim);
        }
        if (changed) rf.gaps.push_back(std::move(gap));
      } catch (const std::exception&) {
        continue;  // a size the communicator cannot run: the gap stays as fitted
      }
    }
  }
}

}  // namespace

std::int64_t calibrated_switch(const std::function<double(int plan, std::int64_t size_bytes)>& calibrated_us,
                               std::int64_t a, std::int64_t b) {
  if (calibrated_us(1, b) >= calibrated_us(0, b)) return b;
  if (!(calibrated_us(1, a) > calibrated_us(0, a))) return 0;
  auto time = [&](const PlanName& p, std::int64_t size) { return calibrated_us(p.first == "b" ? 1 : 0, size); };
  return crossover(time, PlanName{"a", ""}, PlanName{"b", ""}, a, b);
}

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

void fit_nccl(const SimTarget& t, const std::vector<const CollectiveMeasurement*>& nccl, CalibrationProfile& prof) {
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
  NcclReplayer with_params(t, fitted, &prof.plans);
  const std::vector<double> params = simulated_times(with_params, fit.records);
  fit_residual_factors(fit, params, prof);
  guard_max_error(fit, params, prof);
  place_switches_by_calibrated_time(fit, fitted, prof);
  monotone_gaps(fit, with_params, prof);
  record_series_quality(fit, params, prof);
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
                                   const CalibrationProvenance& provenance) {
  CalibrationProfile prof;
  prof.provenance = provenance;
  const auto all = usable_collectives(records);
  const auto nccl = replayable_nccl(all, target);
  if (!nccl.empty()) fit_nccl(*target, nccl, prof);
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
