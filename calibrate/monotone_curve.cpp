// The calibrated curve's shape in size (include/vgsim/calibrate/monotone_curve.hpp, and the fit's steps declared in
// calibrate/nccl_fit.hpp).
#include "vgsim/calibrate/monotone_curve.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "detail/text_table.hpp"
#include "nccl_fit.hpp"

namespace vgsim::calibrate {

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

namespace detail {
namespace {
// ---- Calibrated plan choice: NCCL's own choice, except where it would make the time fall as the size grows.

using PlanName = std::pair<std::string, std::string>;  // lower-case (algo, proto), e.g. ("tree", "ll128")

PlanName plan_name(coll::Algo a, coll::Proto p) {
  return {detail::to_lower(coll::to_string(a)), detail::to_lower(coll::to_string(p))};
}

// The smallest size in (a, b] (16-byte granules, bisection in log size) where `switched(size)` holds (the later
// plan no slower than the earlier one), given that it holds at b and not at a.
template <typename Pred>
std::int64_t crossover(const Pred& switched, std::int64_t a, std::int64_t b) {
  std::int64_t lo = a, hi = b;
  for (int it = 0; it < 24 && hi - lo > 16; ++it) {
    std::int64_t mid = static_cast<std::int64_t>(std::sqrt(double(lo) * double(hi))) / 16 * 16;
    if (mid <= lo || mid >= hi) mid = lo + (hi - lo) / 2;
    (switched(mid) ? hi : lo) = mid;
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
        time(kept[i], S[i]) < time(kept[i - 1], S[i])
            ? crossover([&](std::int64_t s) { return time(kept[i], s) <= time(kept[i - 1], s); }, S[i - 1], S[i])
            : S[i];
    segs.push_back(PlanSegment{start, kept[i].first, kept[i].second});
  }
  return segs;
}

}  // namespace

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

namespace {

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

}  // namespace

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
// factor steps instead, and the plan switches with it, at calibrated_switch's size (monotone_curve.hpp).
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
void monotone_gaps(const NcclFit& fit, const sim::CommOptions& fitted, CalibrationProfile& prof) {
  // Samples per gap: an engineering choice, not fitted to a table (5 per half octave of a factor-2 gap, finer than
  // the tests' 3-per-octave scan); more cost one replay each.
  constexpr int kGapSamples = 15;
  struct Gap {
    ResidualFactors* rf;
    std::int64_t a, b;
    std::vector<std::size_t> at;  // calls: a, b, then the samples in ascending size
  };
  std::vector<Gap> gaps;
  std::vector<CollectiveMeasurement> calls;  // every size to replay, each once per series
  for (auto& rf : prof.residuals) {
    const CollectiveMeasurement* series = nullptr;
    std::set<std::int64_t> measured;
    for (const auto* m : fit.records)
      if (m->op == rf.op && m->algo == rf.algo && m->proto == rf.proto && m->nnodes == rf.nnodes &&
          m->gpus_per_node == rf.gpus_per_node)
        series = m, measured.insert(m->size_bytes);
    if (series == nullptr) continue;
    std::map<std::int64_t, std::size_t> call_of;
    auto call = [&](std::int64_t size) {
      const auto [it, fresh] = call_of.emplace(size, calls.size());
      if (fresh) {
        CollectiveMeasurement m = *series;  // the replay reads its op, plan, layout, root and size
        m.size_bytes = size;
        calls.push_back(m);
      }
      return it->second;
    };
    for (auto it = measured.begin(); it != measured.end() && std::next(it) != measured.end(); ++it) {
      const std::int64_t a = *it, b = *std::next(it);
      if (b - a <= 32) continue;
      std::set<std::int64_t> at;
      for (int i = 1; i <= kGapSamples; ++i)
        at.insert(static_cast<std::int64_t>(double(a) * std::pow(double(b) / double(a), i / (kGapSamples + 1.0))) / 16 *
                  16);
      for (const auto& c : prof.plans)
        if (c.op == rf.op && c.nnodes == rf.nnodes && c.gpus_per_node == rf.gpus_per_node && rf.algo == "default" &&
            rf.proto == "default")
          for (const auto& g : c.segments) at.insert(g.start_bytes), at.insert(g.start_bytes - 16);
      Gap gap{&rf, a, b, {call(a), call(b)}};
      for (std::int64_t s : at)
        if (s > a && s < b) gap.at.push_back(call(s));
      gaps.push_back(std::move(gap));
    }
  }
  // Every call replayed on the machine's cores; a size the communicator cannot run has no time.
  std::vector<std::optional<double>> sim(calls.size());
  const std::vector<std::size_t> order =
      largest_first(calls.size(), [&](std::size_t k) { return calls[k].size_bytes; });
  on_cores<NcclReplayer>(
      calls.size(), fit.target.jobs, [&] { return std::make_unique<NcclReplayer>(fit.target, fitted, &prof.plans); },
      [&](NcclReplayer& r, std::size_t i) {
        const std::size_t k = order[i];
        try {
          sim[k] = r.run(calls[k]).time_us;
        } catch (const std::exception&) {
          sim[k].reset();
        }
      });
  for (const Gap& g : gaps) {
    if (std::any_of(g.at.begin(), g.at.end(), [&](std::size_t k) { return !sim[k]; }))
      continue;  // a size the communicator cannot run: the gap stays as fitted
    const ResidualFactors& rf = *g.rf;
    auto calibrated = [&](std::size_t k) { return *sim[k] * rf.segment_factor(calls[k].size_bytes); };
    double running = calibrated(g.at[0]);
    const double top = calibrated(g.at[1]);
    if (running > top) continue;  // the measured sizes themselves fall: monotone_segments' case
    GapPoints gap{g.a, g.b};
    bool changed = false;
    for (std::size_t i = 2; i < g.at.size(); ++i) {
      const double c = calibrated(g.at[i]);
      running = std::max(running, c);
      const double kept = std::min(running, top);
      changed |= kept != c;
      gap.points.emplace_back(calls[g.at[i]].size_bytes, kept / *sim[g.at[i]]);
    }
    if (changed) g.rf->gaps.push_back(std::move(gap));
  }
}

}  // namespace detail

std::int64_t calibrated_switch(const std::function<double(int plan, std::int64_t size_bytes)>& calibrated_us,
                               std::int64_t a, std::int64_t b) {
  if (calibrated_us(1, b) >= calibrated_us(0, b)) return b;
  if (!(calibrated_us(1, a) > calibrated_us(0, a))) return 0;
  return detail::crossover([&](std::int64_t s) { return calibrated_us(1, s) <= calibrated_us(0, s); }, a, b);
}

}  // namespace vgsim::calibrate
