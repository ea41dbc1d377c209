// Sweep plan parsing, validation and expansion (see include/vgsim/sim/planning/plan.hpp).
#include "vgsim/sim/planning/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/llm/llm_job.hpp"
#include "vgsim/sim/training/job_parameters.hpp"
#include "vgsim/sim/training/scenarios.hpp"

namespace vgsim::sim::planning {

namespace {

// Job fields a point sets directly; every other key is a job parameter (the registry's names, or the plan aliases
// it keeps for older plans: gdr_level, iterations, ...) or a plan-only key (var.*, price.*).
const std::vector<std::string> kJobFields = {"scenario", "cluster", "workload", "nodes", "gpus_per_node", "label"};
// Families whose members depend on the point's cluster or NCCL release (checked when the point is resolved).
const std::vector<std::string> kSetPrefixes = {"nccl.", "capacity_scale."};
const std::vector<std::string> kPlanPrefixes = {"var.", "price."};

bool has_prefix(const std::string& k, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes)
    if (k.rfind(p, 0) == 0 && k.size() > p.size()) return true;
  return false;
}

// The names a large-model (Transformer shape) point accepts beside the platform's: the plan (tp, pp, dp, zero_stage,
// micro_batch, global_batch, schedule, ...), llm.* and the layer compute model's, from their declarations
// (sim::llm::llm_workload_params), sorted. resolve_llm_job refuses them for other workloads' points, and
// training::resolve_job refuses them where the workload is not a Transformer shape, so the row says why.
const std::vector<std::string>& llm_parameter_names() {
  static const std::vector<std::string> names = [] {
    std::set<std::string> s;
    for (const ParamDecl& d : llm::llm_workload_params()) s.insert(d.name);
    return std::vector<std::string>(s.begin(), s.end());
  }();
  return names;
}

bool llm_parameter(const std::string& k) {
  const auto& n = llm_parameter_names();
  return std::binary_search(n.begin(), n.end(), k);
}

// A key that becomes a name=value of the job (JobSpec::sets).
bool job_parameter(const std::string& k) {
  return training::fixed_job_parameters().registry.find(k) != nullptr || has_prefix(k, kSetPrefixes) ||
         llm_parameter(k);
}

bool known_param(const std::string& k) {
  return std::find(kJobFields.begin(), kJobFields.end(), k) != kJobFields.end() || job_parameter(k) ||
         has_prefix(k, kPlanPrefixes);
}

void check_param(const std::string& file, const std::string& path, const std::string& key, const Json& v) {
  if (!known_param(key)) {
    std::vector<std::string> all = kJobFields;
    for (const auto& n : training::fixed_job_parameters().registry.names()) all.push_back(n);
    for (const auto& n : llm_parameter_names()) all.push_back(n);
    const std::string dym = did_you_mean(key, all);
    throw InputError(file, path, "unknown parameter", "'" + key + "'",
                     dym.empty() ? "a job field (cluster, workload, nodes, ...), a parameter `vgsim params` lists "
                                   "(batch_per_gpu, compute.*, nccl.*, vgpu.*, capacity_scale.*, sim.*, ...; for a "
                                   "Transformer workload tp, pp, dp, zero_stage, llm.*, ...), a per-point price.* or "
                                   "a template variable var.*"
                                 : "did you mean '" + dym + "'?");
  }
  if (!(v.is_string() || v.is_number() || v.is_boolean()))
    throw InputError(file, path, "parameter values must be scalars", json_snippet(v), "a string, number or boolean");
  // A per-point price is a number >= 0 of one of the plan's price kinds (checked here, before any point runs).
  if (key.rfind("price.", 0) == 0) {
    static const std::vector<std::string> kPrices = {"price.gpu", "price.host", "price.nic_port", "price.switch_port"};
    if (std::find(kPrices.begin(), kPrices.end(), key) == kPrices.end())
      throw InputError(file, path, "unknown price", "'" + key + "'",
                       "price.gpu, price.host, price.nic_port or price.switch_port");
    if (!v.is_number() || v.get<double>() < 0)
      throw InputError(file, path, "bad price", json_snippet(v), "a number >= 0 (in the plan's prices currency)");
  }
}

// Whether any parameter of the plan (base, grid, list) is a per-point price.
bool has_point_prices(const SweepPlan& p) {
  auto in = [](const std::map<std::string, Json>& m) {
    return std::any_of(m.begin(), m.end(), [](const auto& kv) { return kv.first.rfind("price.", 0) == 0; });
  };
  if (in(p.base) || std::any_of(p.list.begin(), p.list.end(), in)) return true;
  return std::any_of(p.grid.begin(), p.grid.end(), [](const auto& a) { return a.first.rfind("price.", 0) == 0; });
}

std::map<std::string, Json> read_params(JsonReader r) {
  std::map<std::string, Json> out;
  for (auto it = r.json().begin(); it != r.json().end(); ++it) {
    r.allow(it.key());
    check_param(r.file(), r.path_of(it.key()), it.key(), it.value());
    out[it.key()] = it.value();
  }
  return out;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Fills {name} templates in string parameters from the point's other parameters (one pass, no nesting).
void fill_templates(std::map<std::string, Json>& p, const std::string& file) {
  for (auto& [k, v] : p) {
    if (!v.is_string()) continue;
    std::string s = v.get<std::string>(), out;
    for (std::size_t i = 0; i < s.size();) {
      if (s[i] != '{') {
        out += s[i++];
        continue;
      }
      const std::size_t close = s.find('}', i);
      if (close == std::string::npos)
        throw InputError(file, k, "unclosed template", "'" + s + "'", "{name} with a closing brace");
      const std::string name = s.substr(i + 1, close - i - 1);
      auto it = p.find(name);
      if (it == p.end() || it->first == k) {
        std::vector<std::string> names;
        for (const auto& [n, _] : p) names.push_back(n);
        const std::string dym = did_you_mean(name, names);
        throw InputError(file, k, "template names no parameter of the point", "'{" + name + "}' in '" + s + "'",
                         dym.empty() ? "a parameter set in base, grid or list" : "did you mean '" + dym + "'?");
      }
      out += scalar_text(it->second);
      i = close + 1;
    }
    v = out;
  }
}

// Point i of the n = point_count(plan) points: base, then list entry i / (n / entries), then the grid values (last
// axis fastest), templates filled, label and id set.
PlanPoint point_at(const SweepPlan& plan, std::size_t i, std::size_t n) {
  const std::size_t entries = std::max<std::size_t>(1, plan.list.size());
  const std::size_t per_entry = n / entries;
  PlanPoint pt;
  pt.index = i;
  pt.params = plan.base;
  if (!plan.list.empty())
    for (const auto& [k, v] : plan.list[i / per_entry]) pt.params[k] = v;
  std::size_t rest = i % per_entry;
  for (std::size_t a = plan.grid.size(); a-- > 0;) {  // last axis fastest
    const auto& [k, vals] = plan.grid[a];
    pt.params[k] = vals[rest % vals.size()];
    rest /= vals.size();
  }
  fill_templates(pt.params, plan.file);
  if (auto it = pt.params.find("label"); it != pt.params.end()) pt.label = scalar_text(it->second);
  const Json canon(pt.params);  // std::map: sorted keys, so the dump is canonical
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(canon.dump())));
  pt.id = buf;
  return pt;
}

// parse_plan refuses plans of more points: a bound on what a count can mean, not a sweep limit (expand() holds every
// point in memory).
constexpr std::size_t kMaxPlanPoints = 1'000'000'000;

}  // namespace

Fidelity parse_fidelity(const std::string& s) {
  if (s == "step") return Fidelity::Step;
  if (s == "folded") return Fidelity::Folded;
  if (s == "analytical") return Fidelity::Analytical;
  throw InputError("", "--fidelity", "unknown fidelity", "'" + s + "'", "step, folded or analytical");
}
const char* to_string(Fidelity f) {
  return f == Fidelity::Step ? "step" : f == Fidelity::Folded ? "folded" : "analytical";
}

std::string scalar_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

SweepPlan parse_plan(const Json& j, const std::string& file) {
  JsonReader r(j, file);
  if (!j.is_object()) throw InputError(file, "$", "a sweep plan must be a JSON object", json_snippet(j), "{...}");
  SweepPlan p;
  p.file = file;
  p.name = r.string("name");
  p.description = r.opt_string("description").value_or("");
  p.source = r.opt_string("source").value_or("");
  if (auto f = r.opt_one_of("fidelity", {"step", "folded", "analytical"})) p.fidelity = parse_fidelity(*f);
  if (auto b = r.opt_object("base")) p.base = read_params(*b);
  if (auto g = r.opt_object("grid")) {
    for (auto it = g->json().begin(); it != g->json().end(); ++it) {
      g->allow(it.key());
      const std::string path = g->path_of(it.key());
      if (!it.value().is_array() || it.value().empty())
        throw InputError(file, path, "a grid axis must be a non-empty array", json_snippet(it.value()), "[value, ...]");
      std::vector<Json> vals;
      for (std::size_t i = 0; i < it.value().size(); ++i) {
        check_param(file, path + "[" + std::to_string(i) + "]", it.key(), it.value()[i]);
        vals.push_back(it.value()[i]);
      }
      p.grid.emplace_back(it.key(), std::move(vals));
    }
  }
  if (r.has("list")) {
    r.allow("list");
    const Json& l = j.at("list");
    if (!l.is_array() || l.empty())
      throw InputError(file, r.path_of("list"), "list must be a non-empty array of objects", json_snippet(l),
                       "[{param: value, ...}, ...]");
    for (std::size_t i = 0; i < l.size(); ++i) {
      const std::string path = r.path_of("list") + "[" + std::to_string(i) + "]";
      if (!l[i].is_object()) throw InputError(file, path, "list entries must be objects", json_snippet(l[i]), "{...}");
      p.list.push_back(read_params(JsonReader(l[i], file, path)));
      // A list entry is one design; two with one label could not be told apart in the summary and the CSV (grid
      // points of one entry share its label and differ by their grid values, which the summary prints).
      if (auto lab = p.list.back().find("label"); lab != p.list.back().end())
        for (std::size_t k = 0; k + 1 < p.list.size(); ++k)
          if (auto o = p.list[k].find("label"); o != p.list[k].end() && o->second == lab->second)
            throw InputError(file, path + ".label", "the same label as list entry " + std::to_string(k),
                             json_snippet(lab->second), "a label of its own per design (list entry)");
    }
  }
  if (auto pr = r.opt_object("prices")) {
    Prices x;
    x.currency = pr->opt_string("currency").value_or("USD");
    x.source = pr->string("source");
    x.gpu = pr->opt_number("gpu", 0).value_or(0);
    x.host = pr->opt_number("host", 0).value_or(0);
    x.nic_port = pr->opt_number("nic_port", 0).value_or(0);
    x.switch_port = pr->opt_number("switch_port", 0).value_or(0);
    pr->finish();
    p.prices = x;
  }
  r.finish();
  if (!p.prices && has_point_prices(p))
    throw InputError(file, "$.prices", "per-point price.* values without the plan's \"prices\" (they would be ignored)",
                     "no prices", "a \"prices\" object (source, gpu, host, nic_port, switch_port) beside them");
  // Every point needs a cluster and a workload (from the scenario or a parameter).
  bool has_cluster = p.base.count("cluster") || p.base.count("scenario");
  bool has_workload = p.base.count("workload") || p.base.count("scenario");
  for (const auto& [k, _] : p.grid) {
    has_cluster = has_cluster || k == "cluster" || k == "scenario";
    has_workload = has_workload || k == "workload" || k == "scenario";
  }
  if (!p.list.empty()) {
    bool all_c = true, all_w = true;
    for (const auto& e : p.list) {
      all_c = all_c && (e.count("cluster") || e.count("scenario"));
      all_w = all_w && (e.count("workload") || e.count("scenario"));
    }
    has_cluster = has_cluster || all_c;
    has_workload = has_workload || all_w;
  }
  if (!has_cluster)
    throw InputError(file, "$.base.cluster", "no cluster for the points", "",
                     "base.cluster, base.scenario or a cluster axis");
  if (!has_workload)
    throw InputError(file, "$.base.workload", "no workload for the points", "",
                     "base.workload, base.scenario or a workload axis");
  // The point count must be representable: an axis product past 2^64 would wrap (to 0 points, or to a count that
  // expand() cannot reserve). Far smaller plans are refused by the sweep's own limits.
  std::size_t n = std::max<std::size_t>(1, p.list.size());
  for (const auto& [k, v] : p.grid)
    if (__builtin_mul_overflow(n, v.size(), &n) || n > kMaxPlanPoints)
      throw InputError(file, "$.grid", "too many points (list entries x the product of the grid axis lengths)",
                       "more than " + std::to_string(kMaxPlanPoints) + " at axis '" + k + "'",
                       "at most " + std::to_string(kMaxPlanPoints) + " points");
  // Templates must resolve: build the first point now (cheap) so that errors come before any simulation.
  (void)point_at(p, 0, n);
  return p;
}

SweepPlan load_plan(const std::string& file) { return parse_plan(load_json_file(file), file); }

std::size_t point_count(const SweepPlan& plan) {
  std::size_t n = std::max<std::size_t>(1, plan.list.size());
  for (const auto& [_, v] : plan.grid) n *= v.size();
  return n;
}

std::vector<PlanPoint> expand(const SweepPlan& plan) {
  std::vector<PlanPoint> out;
  const std::size_t n = point_count(plan);
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(point_at(plan, i, n));
  return out;
}

training::JobSpec to_job_spec(const SweepPlan& plan, const PlanPoint& pt) {
  using training::JobSpec;
  JobSpec spec;
  const auto& P = pt.params;
  const std::string origin = plan.file + " point " + std::to_string(pt.index);
  const std::string point = "point " + std::to_string(pt.index) + ": ";  // JSON-path label for errors
  if (auto it = P.find("scenario"); it != P.end()) spec = training::load_scenario(scalar_text(it->second)).spec;
  auto str = [&](const char* k) -> std::optional<std::string> {
    auto it = P.find(k);
    return it == P.end() ? std::nullopt : std::optional<std::string>(scalar_text(it->second));
  };
  auto num = [&](const char* k, std::int64_t lo, std::int64_t hi) -> std::optional<std::int64_t> {
    auto it = P.find(k);
    if (it == P.end()) return std::nullopt;
    if (!it->second.is_number_integer() || it->second.get<std::int64_t>() < lo || it->second.get<std::int64_t>() > hi)
      throw InputError(plan.file, point + k, "bad value", json_snippet(it->second),
                       "an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    return it->second.get<std::int64_t>();
  };
  if (auto v = str("cluster")) spec.cluster = *v, spec.cluster_at = {plan.file, point + "cluster"};
  if (auto v = str("workload")) spec.workload = *v, spec.workload_at = {plan.file, point + "workload"};
  if (auto v = num("nodes", 1, 100000)) spec.nodes = static_cast<std::uint32_t>(*v);
  if (auto v = num("gpus_per_node", 1, 1024)) spec.gpus_per_node = static_cast<std::uint32_t>(*v);
  bool any_set = false;
  for (const auto& [k, v] : P) {
    if (job_parameter(k)) {
      spec.sets.push_back(k + "=" + scalar_text(v));
      any_set = true;
    }
  }
  if (any_set) spec.sets_origin = P.count("scenario") ? spec.sets_origin + " / " + origin : origin;
  return spec;
}

std::vector<std::string> parameter_columns(const std::vector<PlanPoint>& points) {
  std::set<std::string> names;
  for (const auto& p : points)
    for (const auto& [k, _] : p.params)
      if (k != "label") names.insert(k);
  return {names.begin(), names.end()};
}

}  // namespace vgsim::sim::planning
