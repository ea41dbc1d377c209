// Simulator fit and replay of measurements (include/vgsim/calibrate/sim_fit.hpp).
#include "vgsim/calibrate/sim_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "detail/nnls.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::calibrate {

namespace {

bool is_nccl(const CollectiveMeasurement& m) { return m.library == "nccl" || m.library == "rccl"; }

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

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
// size) so in-place / out-of-place pairs cost one simulation.
class NcclReplayer {
 public:
  NcclReplayer(const SimTarget& t, sim::CommOptions options) : t_(t), options_(std::move(options)) {
    ranks_ = sim::place_ranks(*t.cluster, t.nodes, t.gpus_per_node);
  }
  bool applies(const CollectiveMeasurement& m, std::string* why) const {
    if (m.nnodes != t_.nodes || m.gpus_per_node != t_.gpus_per_node) {
      *why = "layout " + std::to_string(m.nnodes) + "x" + std::to_string(m.gpus_per_node) + " differs from the target " +
             std::to_string(t_.nodes) + "x" + std::to_string(t_.gpus_per_node);
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
  };
  Result run(const CollectiveMeasurement& m) {
    const std::string key = m.algo + "/" + m.proto;
    auto it = comms_.find(key);
    if (it == comms_.end()) {
      sim::CommOptions o = options_;
      if (m.algo == "ring" || m.algo == "tree") o.algo = coll::parse_algo(m.algo);
      if (m.proto != "default") o.proto = coll::parse_proto(m.proto);
      it = comms_.emplace(key, std::make_unique<sim::Communicator>(*t_.cluster, ranks_, o)).first;
    }
    const std::string rkey = key + "/" + m.op + "/" + std::to_string(m.size_bytes) + "/" + std::to_string(m.root);
    auto r = results_.find(rkey);
    if (r != results_.end()) return r->second;
    const coll::Op op = coll::parse_op(m.op);
    const auto root = static_cast<std::uint32_t>(std::max<std::int64_t>(0, m.root));
    const sim::CollectiveResult res = sim::simulate_collective(*it->second, op, m.size_bytes, root);
    Result out{res.time.us(), res.plan.costs.base_latency.us(),
               std::string(coll::to_string(res.plan.algo)) + "/" + coll::to_string(res.plan.proto)};
    return results_.emplace(rkey, out).first->second;
  }

 private:
  const SimTarget& t_;
  sim::CommOptions options_;
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

}  // namespace

std::vector<ResidualSegment> fit_residual_segments(std::vector<std::pair<std::int64_t, double>> points) {
  if (points.empty()) return {ResidualSegment{0, 1.0}};
  std::sort(points.begin(), points.end());
  // Aggregate by size: sum of log ratios and counts.
  std::vector<std::int64_t> sizes;
  std::vector<double> s1, s2, cnt;
  for (const auto& [size, ratio] : points) {
    const double l = std::log(std::max(ratio, 1e-9));
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size), s1.push_back(0), s2.push_back(0), cnt.push_back(0);
    s1.back() += l, s2.back() += l * l, cnt.back() += 1;
  }
  const std::size_t n = sizes.size();
  std::vector<double> p1(n + 1, 0), p2(n + 1, 0), pc(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) p1[i + 1] = p1[i] + s1[i], p2[i + 1] = p2[i] + s2[i], pc[i + 1] = pc[i] + cnt[i];
  auto sse = [&](std::size_t i, std::size_t j) {
    const double c = pc[j] - pc[i], a = p1[j] - p1[i];
    return std::max(0.0, (p2[j] - p2[i]) - a * a / c);
  };
  const std::size_t kMin = 3, kMax = 4;
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
    const double s = std::sqrt(best[k][n] / pc[n]) + 0.01 * double(k - 1);
    if (s < score - 1e-12) score = s, bestk = k;
  }
  std::vector<ResidualSegment> segs;
  std::size_t j = n;
  for (std::size_t k = bestk; k >= 1; --k) {
    const std::size_t i = from[k][j];
    segs.push_back(ResidualSegment{i == 0 ? 0 : sizes[i], std::exp((p1[j] - p1[i]) / (pc[j] - pc[i]))});
    j = i;
  }
  std::reverse(segs.begin(), segs.end());
  return segs;
}

ValidationReport validate_measurements(const std::vector<Measurement>& records, const SimTarget* target,
                                       const CalibrationProfile* profile) {
  ValidationReport rep;
  std::set<std::string> reasons;
  std::unique_ptr<NcclReplayer> nccl;
  if (target && target->cluster) {
    sim::CommOptions o = target->options;
    if (profile) apply_profile(*profile, o);
    nccl = std::make_unique<NcclReplayer>(*target, o);
  }
  std::vector<double> err;
  for (const CollectiveMeasurement* m : usable_collectives(records)) {
    ValidationRow row;
    row.series = series_key(*m).label();
    row.size_bytes = m->size_bytes;
    row.measured_us = m->time_us;
    std::string why;
    if (is_nccl(*m)) {
      if (!nccl) why = "NCCL records need --cluster";
      else if (nccl->applies(*m, &why)) {
        const auto r = nccl->run(*m);
        const double f = profile ? profile->time_factor(m->op, m->algo, m->proto, m->nnodes, m->gpus_per_node,
                                                        m->size_bytes)
                                 : 1.0;
        row.simulated_us = r.time_us * f;
        row.chosen = r.chosen;
      }
    } else {
      const MpiModel* mm = profile ? profile->find_mpi(network_tag(m->source), m->algo) : nullptr;
      if (!mm) why = "no MPI model for network '" + network_tag(m->source) + "' algo '" + m->algo + "' (fit one first)";
      else {
        row.simulated_us = predict_ompi_us(mm->model, m->algo, m->nranks, m->size_bytes);
        row.chosen = m->algo;
      }
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

CalibrationProfile fit_calibration(const std::vector<Measurement>& records, const SimTarget* target,
                                   const CalibrationProvenance& provenance) {
  CalibrationProfile prof;
  prof.provenance = provenance;
  const auto all = usable_collectives(records);

  // ---- NCCL: simulator parameters + residual factors.
  std::vector<const CollectiveMeasurement*> nccl;
  if (target && target->cluster) {
    NcclReplayer probe(*target, target->options);
    std::string why;
    for (const auto* m : all)
      if (is_nccl(*m) && probe.applies(*m, &why)) nccl.push_back(m);
  }
  if (!nccl.empty()) {
    const topo::Cluster& cl = *target->cluster;
    prof.cluster = cl.name();
    prof.nodes = target->nodes;
    prof.gpus_per_node = target->gpus_per_node;
    std::set<std::string> kinds;
    for (const auto& r : cl.resources()) kinds.insert(r.kind);

    NcclReplayer base(*target, target->options);
    sim::CommOptions lat_opt = target->options;
    for (const auto& k : kinds) lat_opt.capacity_scale[k] = 1e6;
    NcclReplayer latency_only(*target, lat_opt);

    // Bottleneck kinds: halving a kind's capacity slows the largest measured size (<= 256 MiB) by > 5 %.
    const CollectiveMeasurement* probe_m = nullptr;
    for (const auto* m : nccl)
      if (m->size_bytes <= (std::int64_t{256} << 20) && (!probe_m || m->size_bytes > probe_m->size_bytes)) probe_m = m;
    std::vector<std::string> bottleneck;
    if (probe_m) {
      const double t0 = base.run(*probe_m).time_us;
      for (const auto& k : kinds) {
        sim::CommOptions o = target->options;
        o.capacity_scale[k] = 0.5;
        NcclReplayer half(*target, o);
        if (half.run(*probe_m).time_us > 1.05 * t0) bottleneck.push_back(k);
      }
    }

    // Least squares on relative error: (t - b)/t = delta/t + lambda H/t + kappa B/t; delta free, lambda, kappa >= 0.
    const Eigen::Index n = static_cast<Eigen::Index>(nccl.size());
    Eigen::MatrixXd A(n, 3);
    Eigen::VectorXd y(n);
    std::vector<double> before(nccl.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto& m = *nccl[static_cast<std::size_t>(i)];
      const auto r0 = base.run(m);
      const auto rl = latency_only.run(m);
      const double H = std::max(0.0, rl.time_us - r0.base_us), B = std::max(0.0, r0.time_us - rl.time_us);
      A(i, 0) = 1.0 / m.time_us;
      A(i, 1) = H / m.time_us;
      A(i, 2) = bottleneck.empty() ? 0.0 : B / m.time_us;
      y(i) = (m.time_us - r0.base_us) / m.time_us;
      before[static_cast<std::size_t>(i)] = r0.time_us;
      if (bottleneck.empty()) y(i) -= B / m.time_us;  // no kind to scale: the bandwidth part stays as simulated
    }
    const Eigen::VectorXd x = detail::nnls(A, y, {true, false, false});
    prof.fitted.extra_latency_us = x[0];
    prof.fitted.hop_latency_scale = x[1];
    // eta = 1 / kappa, kept within [0.05, 20] (a kappa of 0 means the bandwidth term did not matter).
    prof.fitted.bandwidth_efficiency = bottleneck.empty() || x[2] <= 0 ? 1.0 : std::clamp(1.0 / x[2], 0.05, 20.0);
    prof.fitted.bottleneck_kinds = bottleneck;
    for (const auto& p : target->options.nccl.list()) {
      const std::string& nm = p.name;
      if (nm.rfind("nccl.base_latency.", 0) == 0) prof.nccl_parameters[nm] = std::max(0.0, p.value + x[0]);
      else if (nm.rfind("nccl.hw_latency.", 0) == 0 || nm == "nccl.latency_inter" ||
               (nm.rfind("nccl.net_overhead.", 0) == 0 && nm != "nccl.net_overhead.simple_factor"))
        prof.nccl_parameters[nm] = p.value * x[1];
    }
    for (const auto& k : bottleneck) prof.capacity_scale[k] = prof.fitted.bandwidth_efficiency;

    // Replay with the parameters, then residual factors per (op, algo, proto, layout).
    sim::CommOptions fitted = target->options;
    apply_profile(prof, fitted);
    NcclReplayer with_params(*target, fitted);
    std::vector<double> params(nccl.size());
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::pair<std::int64_t, double>>> groups;
    for (std::size_t i = 0; i < nccl.size(); ++i) {
      params[i] = with_params.run(*nccl[i]).time_us;
      groups[{nccl[i]->op, nccl[i]->algo, nccl[i]->proto}].emplace_back(nccl[i]->size_bytes,
                                                                        nccl[i]->time_us / params[i]);
    }
    for (auto& [key, pts] : groups) {
      ResidualFactors rf;
      std::tie(rf.op, rf.algo, rf.proto) = key;
      rf.nnodes = target->nodes, rf.gpus_per_node = target->gpus_per_node;
      rf.segments = fit_residual_segments(pts);
      prof.residuals.push_back(rf);
    }
    // Quality per series.
    std::map<std::string, std::array<std::vector<double>, 3>> per;
    for (std::size_t i = 0; i < nccl.size(); ++i) {
      const auto& m = *nccl[i];
      const double after = params[i] * prof.time_factor(m.op, m.algo, m.proto, m.nnodes, m.gpus_per_node, m.size_bytes);
      auto& e = per[series_key(m).label()];
      e[0].push_back(std::abs(before[i] - m.time_us) / m.time_us);
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

  // ---- Open MPI: one alpha-beta-gamma model per (network, algorithm).
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
  if (nccl.empty() && prof.mpi_models.empty())
    throw InputError(provenance.sources.empty() ? "" : provenance.sources.front(), "",
                     "nothing to fit: no usable NCCL record matching the target layout and no Open MPI allreduce series",
                     std::to_string(all.size()) + " usable collective records",
                     "nccl-tests / probe records with --cluster, --nodes, --gpus-per-node matching them, or OSU records");
  return prof;
}

}  // namespace vgsim::calibrate
