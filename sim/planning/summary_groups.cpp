// Key roles and comparison groups of a sweep summary (see include/vgsim/sim/planning/summary_groups.hpp).
#include "vgsim/sim/planning/summary_groups.hpp"

#include <algorithm>
#include <map>

namespace vgsim::sim::planning {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The sweep plans' unprefixed NCCL knob spellings (job_parameters.cpp add_knob_aliases).
const std::vector<std::string> kNcclAliases = {
    "algo",          "proto",       "channels",        "p2p_level",        "gdr_level",
    "ib_disable",    "p2p_disable", "shm_disable",     "gdr_disable",      "net",
    "socket_ifname", "gdr_read",    "socket_nthreads", "nsocks_perthread", "nccl_version"};
// A large model's parallelism layout (sim::llm::llm_workload_params): the same model and global batch, laid out
// differently over the same GPUs.
const std::vector<std::string> kLayoutKeys = {
    "tp", "pp", "dp", "zero_stage", "micro_batch", "recompute", "schedule", "virtual_stages", "sequence_parallel"};
const std::vector<const char*> kDesignPrefixes = {
    "nccl.", "capacity_scale.", "virt.", "vgpu.", "horovod.", "ddp.", "llm.", "var."};

bool contains(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}

// The {name} references of a string value.
std::vector<std::string> template_names(const Json& v) {
  std::vector<std::string> out;
  if (!v.is_string()) return out;
  const std::string s = v.get<std::string>();
  for (std::size_t open = s.find('{'); open != std::string::npos; open = s.find('{', open + 1)) {
    const std::size_t close = s.find('}', open);
    if (close == std::string::npos) break;
    out.push_back(s.substr(open + 1, close - open - 1));
  }
  return out;
}

}  // namespace

KeyRole key_role(const std::string& k) {
  if (k == "label" || starts_with(k, "price.")) return KeyRole::Ignored;
  if (k == "nodes" || k == "gpus_per_node") return KeyRole::Scale;
  if (k == "cluster" || k == "compute.nccl_sm_per_channel" || contains(kNcclAliases, k) || contains(kLayoutKeys, k))
    return KeyRole::Design;
  for (const char* p : kDesignPrefixes)
    if (starts_with(k, p)) return KeyRole::Design;
  return KeyRole::Workload;
}

KeyRole PlanKeyRoles::role(const std::string& k) const {
  return workload_vars.count(k) ? KeyRole::Workload : key_role(k);
}

PlanKeyRoles plan_key_roles(const SweepPlan& plan) {
  PlanKeyRoles roles;
  std::map<std::string, std::set<std::string>> refs;  // templated key -> the names its templates use
  auto note = [&](const std::string& k, const Json& v) {
    const auto names = template_names(v);
    if (names.empty()) return;
    roles.templated.insert(k);
    refs[k].insert(names.begin(), names.end());
  };
  for (const auto& [k, v] : plan.base) note(k, v);
  for (const auto& e : plan.list)
    for (const auto& [k, v] : e) note(k, v);
  for (const auto& [k, vals] : plan.grid)
    for (const auto& v : vals) note(k, v);
  // A var.* that a non-design key's template uses is a workload key, and so on through var.* templates.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [k, names] : refs) {
      const KeyRole r = roles.role(k);
      if (r == KeyRole::Design || r == KeyRole::Scale || r == KeyRole::Ignored) continue;
      for (const auto& n : names)
        if (starts_with(n, "var.") && roles.workload_vars.insert(n).second) changed = true;
    }
  }
  return roles;
}

std::string workload_of(const PlanPoint& p) {
  if (auto it = p.params.find("workload"); it != p.params.end()) return scalar_text(it->second);
  if (auto it = p.params.find("scenario"); it != p.params.end()) return "scenario " + scalar_text(it->second);
  return "(scenario default)";
}

std::vector<SummaryGroup> summary_groups(const std::vector<PlanPoint>& points,
                                         const std::vector<PointResult>& results) {
  std::vector<SummaryGroup> groups;
  for (std::size_t i = 0; i < points.size() && i < results.size(); ++i) {
    if (!results[i].error.empty() || results[i].id.empty()) continue;
    const std::string w = workload_of(points[i]);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const SummaryGroup& g) { return g.workload == w && g.unit == results[i].unit; });
    if (it == groups.end()) it = groups.insert(groups.end(), SummaryGroup{w, results[i].unit, {}});
    it->points.push_back(i);
  }
  return groups;
}

}  // namespace vgsim::sim::planning
