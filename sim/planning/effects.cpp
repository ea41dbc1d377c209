// Design effects of a sweep (see include/vgsim/sim/planning/effects.hpp).
#include "vgsim/sim/planning/effects.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "vgsim/sim/planning/summary_groups.hpp"

namespace vgsim::sim::planning {

namespace {

bool is_scale(const std::string& k) { return key_role(k) == KeyRole::Scale; }

std::string value_of(const PlanPoint& p, const std::string& k) {
  auto it = p.params.find(k);
  return it == p.params.end() ? std::string("(unset)") : scalar_text(it->second);
}

}  // namespace

std::vector<DesignEffect> design_effects(const SweepPlan& plan, const std::vector<PlanPoint>& points,
                                         const std::vector<PointResult>& results) {
  std::vector<std::size_t> all(std::min(points.size(), results.size()));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return design_effects(plan, points, results, all);
}

std::vector<DesignEffect> design_effects(const SweepPlan& plan, const std::vector<PlanPoint>& points,
                                         const std::vector<PointResult>& results,
                                         const std::vector<std::size_t>& among) {
  const PlanKeyRoles roles = plan_key_roles(plan);
  // The finished points of `among`, and the parameters that vary over them (templated ones follow from the others).
  std::vector<std::size_t> ok;
  for (std::size_t i : among)
    if (i < points.size() && i < results.size() && results[i].error.empty() && !results[i].id.empty() &&
        results[i].throughput > 0)
      ok.push_back(i);
  std::set<std::string> all;
  for (std::size_t i : ok)
    for (const auto& [k, _] : points[i].params)
      if (roles.role(k) != KeyRole::Ignored && !roles.templated.count(k)) all.insert(k);
  std::vector<std::string> varied;
  for (const auto& k : all) {
    std::set<std::string> vals;
    for (std::size_t i : ok) vals.insert(value_of(points[i], k));
    if (vals.size() > 1) varied.push_back(k);
  }
  std::vector<std::string> choices;  // design keys only: never a workload key, never the scale
  for (const auto& k : varied)
    if (roles.role(k) == KeyRole::Design) choices.push_back(k);
  std::map<std::vector<std::string>, DesignEffect> best;
  auto consider = [&](const std::vector<std::string>& drop) {
    // Signature: the throughput unit and every varied key but `drop` (workload and scale keys included), so a pair
    // agrees on all of them and differs in design keys of `drop` only.
    std::map<std::string, std::vector<std::size_t>> groups;  // signature -> points
    for (std::size_t i : ok) {
      std::string sig = results[i].unit + "\x1f";
      for (const auto& k : varied)
        if (std::find(drop.begin(), drop.end(), k) == drop.end()) sig += k + "=" + value_of(points[i], k) + "\x1f";
      groups[sig].push_back(i);
    }
    for (const auto& [_, g] : groups) {
      if (g.size() < 2) continue;
      std::size_t hi = g.front(), lo = g.front();
      for (std::size_t i : g) {
        if (results[i].throughput > results[hi].throughput) hi = i;
        if (results[i].throughput < results[lo].throughput) lo = i;
      }
      std::vector<std::string> keys;  // what actually differs between the two
      for (const auto& k : drop)
        if (value_of(points[hi], k) != value_of(points[lo], k)) keys.push_back(k);
      if (keys.empty()) continue;
      const double gain = results[hi].throughput / results[lo].throughput - 1.0;
      auto it = best.find(keys);
      if (it == best.end() || gain > it->second.gain) best[keys] = DesignEffect{keys, hi, lo, gain};
    }
  };
  for (std::size_t a = 0; a < choices.size(); ++a) {
    consider({choices[a]});
    for (std::size_t b = a + 1; b < choices.size(); ++b) consider({choices[a], choices[b]});
  }
  std::vector<DesignEffect> out;
  for (auto& [_, e] : best) out.push_back(e);
  std::stable_sort(out.begin(), out.end(),
                   [](const DesignEffect& x, const DesignEffect& y) { return x.gain > y.gain; });
  return out;
}

std::string describe_effect(const DesignEffect& e, const std::vector<PlanPoint>& points) {
  const PlanPoint& b = points[e.better];
  const PlanPoint& w = points[e.worse];
  std::string what;
  for (std::size_t k = 0; k < e.keys.size(); ++k)
    what += (k ? ", " : "") + e.keys[k] + " = " + value_of(b, e.keys[k]) + " instead of " + value_of(w, e.keys[k]);
  if (!b.label.empty() && !w.label.empty() && b.label != w.label)
    what = b.label + " instead of " + w.label + " (" + what + ")";
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f", 100.0 * e.gain);
  std::string s = what + " raises throughput " + pct + " %";
  std::string ctx;
  for (const auto& [k, v] : b.params)
    if (is_scale(k)) ctx += (ctx.empty() ? "" : ", ") + k + "=" + scalar_text(v);
  return ctx.empty() ? s : s + " at " + ctx;
}

}  // namespace vgsim::sim::planning
