// Alpha-beta-gamma replay of Open MPI schedules and its NNLS fit (include/vgsim/calibrate/alpha_beta_replay.hpp).
// The engine is the project kernel (vgsim::Simulator); bandwidth is expressed as "NIC time": a resource of capacity
// kUnitsPerSecond carries m * beta(m) * 1e-6 * kUnitsPerSecond units for a message, so a lone message takes exactly
// m * beta(m) us and messages that share a NIC direction share its time max-min fairly.
#include "vgsim/calibrate/alpha_beta_replay.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "detail/nnls.hpp"
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/kernel/simulator.hpp"

namespace vgsim::calibrate {

namespace {

constexpr double kUnitsPerSecond = 1e12;

class Replay : public FlowObserver, public EventHandler {
 public:
  Replay(const coll::OmpiSchedule& s, const AlphaBetaGamma& m) : s_(s), m_(m) {
    const auto& sch = s.schedule;
    for (std::uint32_t r = 0; r < sch.ranks; ++r) {
      tx_.push_back(sim_.add_resource("nic" + std::to_string(r) + ".tx", Bandwidth{kUnitsPerSecond}));
      rx_.push_back(sim_.add_resource("nic" + std::to_string(r) + ".rx", Bandwidth{kUnitsPerSecond}));
    }
    const std::size_t n = sch.transfers.size();
    pending_.resize(n);
    routes_.resize(n);
    dependents_.resize(n);
    for (std::size_t t = 0; t < n; ++t) {
      const auto& tr = sch.transfers[t];
      pending_[t] = tr.dep_count;
      for (std::uint32_t k = 0; k < tr.dep_count; ++k) dependents_[sch.deps[tr.dep_begin + k]].push_back(t);
      routes_[t] = {tx_[tr.src], rx_[tr.dst]};
    }
  }
  double run() {
    for (std::size_t t = 0; t < pending_.size(); ++t)
      if (pending_[t] == 0) launch(t);
    sim_.run();
    return end_.us();
  }
  void on_flow_done(Simulator& sim, std::uint64_t t) override {
    const auto& tr = s_.schedule.transfers[t];
    const double red_us = s_.reduces[t] ? m_.gamma_us_per_byte * double(tr.bytes) : 0.0;
    if (red_us > 0)
      sim.schedule(sim.now() + Time::from_us(red_us), this, t);
    else
      complete(t);
  }
  void on_event(Simulator&, std::uint64_t t) override { complete(t); }

 private:
  void launch(std::size_t t) {
    const auto& tr = s_.schedule.transfers[t];
    const AlphaBetaSegment& seg = m_.segment(tr.bytes);
    FlowSpec f;
    f.route = routes_[t].data();
    f.hops = 2;
    f.bytes = std::max(1e-3, double(tr.bytes) * seg.beta_us_per_byte * 1e-6 * kUnitsPerSecond);
    f.latency = Time::from_us(seg.alpha_us);
    sim_.start_flow(f, this, t);
  }
  void complete(std::size_t t) {
    end_ = std::max(end_, sim_.now());
    for (std::size_t d : dependents_[t])
      if (--pending_[d] == 0) launch(d);
  }

  const coll::OmpiSchedule& s_;
  const AlphaBetaGamma& m_;
  Simulator sim_;
  std::vector<ResourceId> tx_, rx_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::array<ResourceId, 2>> routes_;
  std::vector<std::vector<std::size_t>> dependents_;
  Time end_{0};
};

coll::OmpiSchedule schedule_for(const std::string& algo, std::int64_t nranks, std::int64_t size) {
  coll::OmpiAllreduce a;
  try {
    a = coll::parse_ompi_allreduce(algo);
  } catch (const std::exception&) {
    throw std::invalid_argument("not an Open MPI allreduce algorithm: '" + algo + "'");
  }
  return coll::ompi_allreduce(a, static_cast<std::uint32_t>(nranks), size, 4);
}

}  // namespace

const AlphaBetaSegment& AlphaBetaGamma::segment(std::int64_t message_bytes) const {
  std::size_t k = 0;
  while (k + 1 < segments.size() && segments[k + 1].start_bytes <= message_bytes) ++k;
  return segments[k];
}

double replay_ompi_us(const coll::OmpiSchedule& schedule, const AlphaBetaGamma& model) {
  if (schedule.schedule.transfers.empty()) return 0.0;
  Replay r(schedule, model);
  return r.run();
}

double predict_ompi_us(const AlphaBetaGamma& model, const std::string& algo, std::int64_t nranks,
                       std::int64_t size_bytes) {
  return replay_ompi_us(schedule_for(algo, nranks, size_bytes), model);
}

FitQuality alpha_beta_gamma_quality(const AlphaBetaGamma& model, const std::vector<Series>& series) {
  std::vector<double> err;
  double sq = 0, mx = 0;
  for (const auto& s : series)
    for (const auto& p : s.points) {
      if (p.time_us <= 0) continue;
      const double e = std::abs(predict_ompi_us(model, s.key.algo, s.key.nranks, p.size_bytes) - p.time_us) / p.time_us;
      err.push_back(e), sq += e * e, mx = std::max(mx, e);
    }
  FitQuality q;
  q.points = static_cast<std::int64_t>(err.size());
  q.median_rel_error = median_of(err);
  q.max_rel_error = mx;
  q.rms_rel_error = err.empty() ? 0.0 : std::sqrt(sq / double(err.size()));
  return q;
}

AlphaBetaGammaFit fit_alpha_beta_gamma(const std::vector<Series>& series, int max_segments,
                                       const std::vector<std::int64_t>& candidates) {
  struct Pt {
    coll::OmpiSchedule sched;
    double t;
  };
  std::vector<Pt> pts;
  for (const auto& s : series)
    for (const auto& p : s.points)
      if (p.time_us > 0) pts.push_back({schedule_for(s.key.algo, s.key.nranks, p.size_bytes), p.time_us});
  if (pts.empty()) throw std::invalid_argument("fit_alpha_beta_gamma: no points with time > 0");

  // Breakpoint sets: none, one candidate, or (max_segments >= 3) two candidates.
  std::vector<std::vector<std::int64_t>> sets{{}};
  for (std::size_t i = 0; i < candidates.size() && max_segments >= 2; ++i) {
    sets.push_back({candidates[i]});
    for (std::size_t j = i + 1; j < candidates.size() && max_segments >= 3; ++j)
      sets.push_back({candidates[i], candidates[j]});
  }
  AlphaBetaGammaFit best;
  double best_rms = 1e300;
  for (const auto& bps : sets) {
    const std::size_t K = bps.size() + 1;
    const Eigen::Index cols = static_cast<Eigen::Index>(2 * K + 1);
    Eigen::MatrixXd A(static_cast<Eigen::Index>(pts.size()), cols);
    // Homogeneity: the replayed time is linear in (alpha_k, beta_k, gamma) when the schedule's structure does not
    // depend on them (true for these symmetric schedules), so column c is the time with parameter c = 1, others 0.
    for (Eigen::Index c = 0; c < cols; ++c) {
      AlphaBetaGamma unit;
      unit.segments.assign(K, AlphaBetaSegment{});
      for (std::size_t k = 1; k < K; ++k) unit.segments[k].start_bytes = bps[k - 1];
      if (c < static_cast<Eigen::Index>(K))
        unit.segments[c].alpha_us = 1.0;
      else if (c < static_cast<Eigen::Index>(2 * K))
        unit.segments[c - K].beta_us_per_byte = 1.0;
      else
        unit.gamma_us_per_byte = 1.0;
      for (std::size_t i = 0; i < pts.size(); ++i)
        A(static_cast<Eigen::Index>(i), c) = replay_ompi_us(pts[i].sched, unit) / pts[i].t;
    }
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(pts.size()));
    const Eigen::VectorXd x = detail::nnls(A, b);
    const double rms = std::sqrt((A * x - b).squaredNorm() / double(pts.size()));
    // A segment no message falls into gets no information: keep the fit only if it improves by > 0.5 % RMS
    // (assumption, as fit.hpp's per-segment penalty).
    if (rms + 0.005 * double(K - 1) < best_rms) {
      best_rms = rms + 0.005 * double(K - 1);
      AlphaBetaGamma m;
      m.segments.assign(K, AlphaBetaSegment{});
      for (std::size_t k = 0; k < K; ++k) {
        m.segments[k].start_bytes = k == 0 ? 0 : bps[k - 1];
        m.segments[k].alpha_us = x[static_cast<Eigen::Index>(k)];
        m.segments[k].beta_us_per_byte = x[static_cast<Eigen::Index>(K + k)];
      }
      m.gamma_us_per_byte = x[cols - 1];
      best.model = m;
    }
  }
  best.quality = alpha_beta_gamma_quality(best.model, series);
  return best;
}

}  // namespace vgsim::calibrate
