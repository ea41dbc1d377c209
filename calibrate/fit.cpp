// Segmented and Hockney alpha-beta fits on relative error (include/vgsim/calibrate/fit.hpp).
// Per segment: minimise sum_i ((alpha + beta S_i - t_i) / t_i)^2 subject to alpha, beta >= 0 (two-variable NNLS:
// the optimum is the unconstrained one or lies on a face). Breakpoint choice: dynamic programming over the sorted
// points with O(1) segment costs from running sums; the chosen segments are then refitted with Eigen's QR.
#include "vgsim/calibrate/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vgsim::calibrate {

std::optional<double> Segment::bandwidth_GBps() const {
  if (beta_us_per_byte <= 0.0) return std::nullopt;
  return 1e-3 / beta_us_per_byte;  // bytes/us = 1e6 B/s -> 1e-3 GB/s per (1/beta)
}

std::vector<std::int64_t> SegmentedFit::breakpoints() const {
  std::vector<std::int64_t> b;
  for (std::size_t i = 1; i < segments.size(); ++i) b.push_back(segments[i].start_bytes);
  return b;
}

double SegmentedFit::predict_us(std::int64_t size_bytes) const {
  if (segments.empty()) return 0.0;
  const Segment* s = &segments.front();
  for (const auto& seg : segments)
    if (seg.start_bytes <= size_bytes) s = &seg;
  return s->predict_us(size_bytes);
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Running sums of the relative-error normal equations over a range of points; S is scaled by `scale` bytes.
struct Sums {
  long double uu = 0, uv = 0, vv = 0, u = 0, v = 0;
  long double m = 0;
  void add(double s_scaled, double t) {
    const long double uu_ = 1.0L / t, vv_ = s_scaled / static_cast<long double>(t);
    uu += uu_ * uu_, uv += uu_ * vv_, vv += vv_ * vv_, u += uu_, v += vv_, m += 1;
  }
  long double sse(long double a, long double b) const {
    return a * a * uu + 2 * a * b * uv + b * b * vv - 2 * a * u - 2 * b * v + m;
  }
  // Constrained optimum (a, b >= 0) and its SSE.
  void solve(long double& a, long double& b, long double& best) const {
    const long double det = uu * vv - uv * uv;
    best = kInf;
    if (det > 1e-18L * uu * vv) {
      a = (u * vv - v * uv) / det;
      b = (v * uu - u * uv) / det;
      if (a >= 0 && b >= 0) {
        best = std::max<long double>(0, sse(a, b));
        return;
      }
    }
    const long double a1 = uu > 0 ? std::max<long double>(0, u / uu) : 0;  // beta = 0
    const long double b2 = vv > 0 ? std::max<long double>(0, v / vv) : 0;  // alpha = 0
    const long double e1 = sse(a1, 0), e2 = sse(0, b2);
    if (e1 <= e2)
      a = a1, b = 0, best = std::max<long double>(0, e1);
    else
      a = 0, b = b2, best = std::max<long double>(0, e2);
  }
};

struct Prepared {
  std::vector<SeriesPoint> pts;  // time > 0, sorted
  double scale = 1.0;            // bytes per unit of scaled size
};

Prepared prepare(const Series& series) {
  Prepared p;
  for (const auto& q : series.points)
    if (q.time_us > 0 && std::isfinite(q.time_us)) p.pts.push_back(q);
  if (p.pts.empty())
    throw std::invalid_argument("fit: series '" + series.key.label() + "' has no point with a positive time");
  std::stable_sort(p.pts.begin(), p.pts.end(),
                   [](const SeriesPoint& a, const SeriesPoint& b) { return a.size_bytes < b.size_bytes; });
  p.scale = std::max<double>(1.0, static_cast<double>(p.pts.back().size_bytes));
  return p;
}

// Final per-segment fit with Eigen (QR on the 1/t-weighted design), same constraints as Sums::solve.
Segment fit_segment(const Prepared& p, std::size_t i, std::size_t j) {
  const Eigen::Index m = static_cast<Eigen::Index>(j - i);
  Eigen::MatrixXd X(m, 2);
  Eigen::VectorXd y = Eigen::VectorXd::Ones(m);
  for (Eigen::Index r = 0; r < m; ++r) {
    const auto& q = p.pts[i + static_cast<std::size_t>(r)];
    X(r, 0) = 1.0 / q.time_us;
    X(r, 1) = static_cast<double>(q.size_bytes) / p.scale / q.time_us;
  }
  auto sse = [&](double a, double b) { return (X * Eigen::Vector2d(a, b) - y).squaredNorm(); };
  double a = 0, b = 0;
  bool ok = false;
  const auto qr = X.colPivHouseholderQr();
  if (qr.rank() == 2) {
    const Eigen::Vector2d x = qr.solve(y);
    a = x(0), b = x(1);
    ok = a >= 0 && b >= 0;
  }
  if (!ok) {
    const double a1 = std::max(0.0, X.col(0).dot(y) / X.col(0).squaredNorm());
    const double vv = X.col(1).squaredNorm();
    const double b2 = vv > 0 ? std::max(0.0, X.col(1).dot(y) / vv) : 0.0;
    if (sse(a1, 0) <= sse(0, b2))
      a = a1, b = 0;
    else
      a = 0, b = b2;
  }
  Segment s;
  s.start_bytes = p.pts[i].size_bytes;
  s.alpha_us = a;
  s.beta_us_per_byte = b / p.scale;
  return s;
}

SegmentedFit make_fit(const Series& series, const Prepared& p, const std::vector<std::size_t>& starts,
                      const char* model) {
  SegmentedFit f;
  f.series = series.key;
  f.model = model;
  for (std::size_t s = 0; s < starts.size(); ++s) {
    const std::size_t end = s + 1 < starts.size() ? starts[s + 1] : p.pts.size();
    f.segments.push_back(fit_segment(p, starts[s], end));
  }
  f.min_size_bytes = p.pts.front().size_bytes;
  f.max_size_bytes = p.pts.back().size_bytes;
  f.quality = fit_quality(f, p.pts);
  return f;
}

}  // namespace

FitQuality fit_quality(const SegmentedFit& fit, const std::vector<SeriesPoint>& points) {
  std::vector<double> err;
  for (const auto& q : points)
    if (q.time_us > 0) err.push_back(std::fabs(fit.predict_us(q.size_bytes) - q.time_us) / q.time_us);
  FitQuality Q;
  Q.points = static_cast<std::int64_t>(err.size());
  if (err.empty()) return Q;
  double sq = 0;
  for (double e : err) sq += e * e, Q.max_rel_error = std::max(Q.max_rel_error, e);
  Q.rms_rel_error = std::sqrt(sq / static_cast<double>(err.size()));
  std::sort(err.begin(), err.end());
  const std::size_t n = err.size();
  Q.median_rel_error = n % 2 ? err[n / 2] : 0.5 * (err[n / 2 - 1] + err[n / 2]);
  return Q;
}

namespace {

// Segment starts (indices into p.pts) chosen by dynamic programming.
std::vector<std::size_t> choose_segments(const Prepared& p, const FitOptions& opt) {
  const std::size_t n = p.pts.size();
  const std::size_t minpts = static_cast<std::size_t>(std::max(1, opt.min_points_per_segment));
  const std::size_t K = static_cast<std::size_t>(std::max(1, opt.max_segments));
  if (n < 2 * minpts || K == 1) return {0};
  // cost[i][j]: constrained SSE of one segment over points [i, j).
  std::vector<std::vector<double>> cost(n + 1, std::vector<double>(n + 1, kInf));
  for (std::size_t i = 0; i < n; ++i) {
    Sums s;
    for (std::size_t j = i; j < n; ++j) {
      s.add(static_cast<double>(p.pts[j].size_bytes) / p.scale, p.pts[j].time_us);
      if (j + 1 - i >= minpts) {
        long double a, b, e;
        s.solve(a, b, e);
        cost[i][j + 1] = static_cast<double>(e);
      }
    }
  }
  // A segment may start at i only where the size changes (a breakpoint must separate distinct sizes).
  auto can_start = [&](std::size_t i) { return i == 0 || p.pts[i - 1].size_bytes < p.pts[i].size_bytes; };
  // best[k][j]: min SSE covering [0, j) with k segments; from[k][j]: start of the last one.
  std::vector<std::vector<double>> best(K + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> from(K + 1, std::vector<std::size_t>(n + 1, 0));
  for (std::size_t j = 1; j <= n; ++j) best[1][j] = cost[0][j];
  for (std::size_t k = 2; k <= K; ++k)
    for (std::size_t j = 1; j <= n; ++j)
      for (std::size_t i = 1; i < j; ++i) {
        if (!can_start(i) || best[k - 1][i] == kInf || cost[i][j] == kInf) continue;
        const double v = best[k - 1][i] + cost[i][j];
        if (v < best[k][j]) best[k][j] = v, from[k][j] = i;
      }
  std::size_t chosen = 1;
  double chosen_score = kInf;
  for (std::size_t k = 1; k <= K; ++k) {
    if (best[k][n] == kInf) continue;
    const double score = std::sqrt(best[k][n] / static_cast<double>(n)) + opt.penalty_per_segment * double(k - 1);
    if (score < chosen_score - 1e-12) chosen_score = score, chosen = k;
  }
  std::vector<std::size_t> starts(chosen);
  std::size_t j = n;
  for (std::size_t k = chosen; k >= 1; --k) {
    const std::size_t i = k == 1 ? 0 : from[k][j];
    starts[k - 1] = i;
    j = i;
  }
  return starts;
}

SegmentedFit fit_with_rejection(const Series& series, const FitOptions& opt, const char* model) {
  const Prepared all = prepare(series);
  Prepared use = all;
  SegmentedFit f;
  for (int pass = 0;; ++pass) {
    f = make_fit(series, use, choose_segments(use, opt), model);
    f.excluded_points = static_cast<std::int64_t>(all.pts.size() - use.pts.size());
    f.quality = fit_quality(f, all.pts);
    f.min_size_bytes = all.pts.front().size_bytes;
    f.max_size_bytes = all.pts.back().size_bytes;
    if (pass >= opt.outlier_passes) break;
    std::vector<double> r;
    for (const auto& q : all.pts) r.push_back(std::fabs(f.predict_us(q.size_bytes) - q.time_us) / q.time_us);
    const double cut = std::max(opt.outlier_mads * 1.4826 * median_of(r), opt.outlier_floor);
    Prepared next;
    next.scale = all.scale;
    for (std::size_t i = 0; i < all.pts.size(); ++i)
      if (r[i] <= cut) next.pts.push_back(all.pts[i]);
    // Keep at least half of the points; stop when the inlier set no longer changes.
    if (next.pts.size() * 2 < all.pts.size() || next.pts.size() == use.pts.size()) break;
    use = std::move(next);
  }
  return f;
}

}  // namespace

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

SegmentedFit fit_hockney(const Series& series, const FitOptions& options) {
  FitOptions o = options;
  o.max_segments = 1;
  return fit_with_rejection(series, o, "hockney");
}

SegmentedFit fit_segmented(const Series& series, const FitOptions& options) {
  return fit_with_rejection(series, options, "segmented");
}

}  // namespace vgsim::calibrate
