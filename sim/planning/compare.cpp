// Two designs side by side (see include/vgsim/sim/planning/compare.hpp).
#include "vgsim/sim/planning/compare.hpp"

#include <cstdio>
#include <map>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/fidelity_run.hpp"
#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/training/exposure.hpp"
#include "vgsim/sim/training/report.hpp"

namespace vgsim::sim::planning {

namespace {

std::string fmt(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

// The keys a train report has (training/report.cpp training_json, result_json): compare refuses others, so a
// misspelt or foreign key is named rather than read as absent.
constexpr const char* kReportKeys[] = {
    "tool",       "model",          "cluster",      "result",      "single_gpu", "scaling_efficiency",
    "parameters", "virtualization", "channel_fold", "not_modelled"};
constexpr const char* kResultKeys[] = {"ranks",
                                       "nodes",
                                       "gpus_per_node",
                                       "transports",
                                       "nccl_net",
                                       "transport_reasons",
                                       "throughput",
                                       "samples_per_s",
                                       "iteration_us",
                                       "compute_us",
                                       "exposed_communication_us",
                                       "nccl_slowdown_us",
                                       "communication_busy_us",
                                       "exposed_by_cause",
                                       "overlap_fraction",
                                       "micro_steps",
                                       "tick_phases",
                                       "per_gpu",
                                       "layers_backward_order",
                                       "iterations",
                                       "resources",
                                       "bottleneck",
                                       "engine"};

// The figures we compare, read and validated from a train report.
Json summarize(const Json& j, const std::string& label) {
  JsonReader r(j, label);
  for (const char* k : kReportKeys) r.allow(k);
  if (r.string("tool") != "vgsim train")
    throw InputError(label, "$.tool", "not a vgsim train report", json_snippet(j.at("tool")), "\"vgsim train\"");
  Json s;
  s["label"] = label;
  s["model"] = r.string("model");
  s["cluster"] = r.string("cluster");
  s["scaling_efficiency"] = r.number("scaling_efficiency", 0);
  JsonReader res = r.object("result");
  for (const char* k : kResultKeys) res.allow(k);
  res.finish();
  JsonReader tp = res.object("throughput");
  s["throughput"] = tp.number("value", 0);
  s["unit"] = tp.string("unit");
  s["ranks"] = res.integer("ranks", 1);
  s["iteration_ms"] = res.number("iteration_us", 0) / 1e3;
  s["compute_ms"] = res.number("compute_us", 0) / 1e3;
  s["exposed_communication_ms"] = res.number("exposed_communication_us") / 1e3;
  s["communication_busy_ms"] = res.number("communication_busy_us", 0) / 1e3;
  // Exposed communication by cause (reports written before the breakdown existed have none: 0 each).
  Json causes = Json::object();
  if (res.json().contains("exposed_by_cause") && res.json()["exposed_by_cause"].is_object())
    for (auto it = res.json()["exposed_by_cause"].begin(); it != res.json()["exposed_by_cause"].end(); ++it)
      if (it.value().is_number()) causes[it.key()] = it.value().get<double>() / 1e3;
  s["exposed_by_cause_ms"] = causes;
  s["overlap_fraction"] = res.number("overlap_fraction", 0, 1);
  s["transports"] = res.opt_string("transports").value_or("");
  // What limits the iteration and the busiest resource while communicating (training/bottleneck.hpp); reports
  // written before the bottleneck existed have none.
  s["bottleneck"] = nullptr;
  if (res.json().contains("bottleneck") && res.json()["bottleneck"].is_object()) {
    JsonReader b = *res.opt_object("bottleneck");  // a value of the wrong type is an input error naming its path
    s["bottleneck"] = {
        {"what", b.opt_string("what").value_or("")},
        {"share", b.opt_number("share").value_or(0.0)},
        {"busiest", b.opt_string("busiest").value_or("")},
        {"busiest_utilisation_during_comm", b.opt_number("busiest_utilisation_during_comm").value_or(0.0)}};
  }
  Json params = Json::object();
  for (auto& p : r.opt_objects("parameters")) {
    const std::string name = p.string("name");
    p.allow("value");
    p.allow("source");
    params[name] = p.json().at("value");
  }
  s["parameters"] = params;
  r.finish();
  return s;
}

}  // namespace

Json load_design(const std::string& arg, const std::vector<std::string>& extra_sets) {
  const auto hash = arg.rfind('#');
  if (hash == std::string::npos) return load_json_file(arg);
  const std::string file = arg.substr(0, hash), idx = arg.substr(hash + 1);
  const SweepPlan plan = load_plan(file);
  const auto points = expand(plan);
  std::size_t i = 0;
  try {
    std::size_t used = 0;
    i = std::stoul(idx, &used);
    if (used != idx.size()) throw std::invalid_argument(idx);
  } catch (const std::exception&) {
    throw InputError(file, "#" + idx, "bad point index", "'" + idx + "'",
                     "an integer 0.." + std::to_string(points.size() - 1));
  }
  if (i >= points.size())
    throw InputError(file, "#" + idx, "point index out of range", idx, "0.." + std::to_string(points.size() - 1));
  const topo::Catalog catalog = topo::Catalog::load_default();
  training::JobSpec spec = to_job_spec(plan, points[i]);
  spec.sets.insert(spec.sets.begin(), extra_sets.begin(), extra_sets.end());
  const training::TrainingJob job = training::resolve_job(spec, catalog);
  const training::TrainingStudy st = simulate_at(job, plan.fidelity).study;
  Json j = training::training_json(job, st);
  // The plan point's own parameters (var.* included) join the report's, so that compare names them.
  for (const auto& [k, v] : points[i].params)
    j["parameters"].push_back({{"name", "plan." + k}, {"value", v}, {"source", file}});
  return j;
}

Json compare_designs(const Json& a, const std::string& la, const Json& b, const std::string& lb) {
  Json A = summarize(a, la), B = summarize(b, lb);
  Json diffs = Json::array();
  std::map<std::string, std::pair<Json, Json>> all;
  for (auto it = A["parameters"].begin(); it != A["parameters"].end(); ++it) all[it.key()].first = it.value();
  for (auto it = B["parameters"].begin(); it != B["parameters"].end(); ++it) all[it.key()].second = it.value();
  for (const auto& [name, v] : all) {
    if (v.first == v.second) continue;
    diffs.push_back({{"name", name},
                     {"a", v.first.is_null() ? Json("(unset)") : v.first},
                     {"b", v.second.is_null() ? Json("(unset)") : v.second}});
  }
  Json out;
  out["a"] = A;
  out["b"] = B;
  out["differences"] = diffs;
  const double ta = A["throughput"].get<double>();
  out["ratio_throughput"] = ta > 0 ? B["throughput"].get<double>() / ta : 0.0;
  return out;
}

void write_compare_markdown(std::ostream& os, const Json& c) {
  const Json& A = c["a"];
  const Json& B = c["b"];
  auto text = [](const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  os << "| | A: " << text(A["label"]) << " | B: " << text(B["label"]) << " | B / A |\n|---|---|---|---|\n";
  os << "| model / cluster | " << text(A["model"]) << " on " << text(A["cluster"]) << " | " << text(B["model"])
     << " on " << text(B["cluster"]) << " | |\n";
  os << "| ranks | " << A["ranks"].dump() << " | " << B["ranks"].dump() << " | |\n";
  auto row = [&](const char* name, const char* key, double scale, int prec, const std::string& unit) {
    const double a = A[key].get<double>() * scale, b = B[key].get<double>() * scale;
    os << "| " << name << " | " << fmt(a, prec) << unit << " | " << fmt(b, prec) << unit << " | "
       << (a != 0 ? fmt(b / a, 3) : std::string("-")) << " |\n";
  };
  row("throughput", "throughput", 1, 1, " " + text(A["unit"]));
  row("scaling efficiency", "scaling_efficiency", 100, 1, " %");
  row("iteration", "iteration_ms", 1, 3, " ms");
  row("compute", "compute_ms", 1, 3, " ms");
  row("exposed communication", "exposed_communication_ms", 1, 3, " ms");
  for (const char* cause : training::kExposureCauses) {  // the breakdown, where either side has one
    const std::string k = std::string(cause) + "_us";
    auto get = [&](const Json& x) {
      const Json& m = x["exposed_by_cause_ms"];
      return m.is_object() && m.contains(k) ? m[k].get<double>() : 0.0;
    };
    const double a = get(A), b = get(B);
    if (a == 0 && b == 0) continue;
    os << "| &nbsp;&nbsp;of which " << cause << " | " << fmt(a, 3) << " ms | " << fmt(b, 3) << " ms | "
       << (a != 0 ? fmt(b / a, 3) : std::string("-")) << " |\n";
  }
  row("communication busy", "communication_busy_ms", 1, 3, " ms");
  row("overlap hidden", "overlap_fraction", 100, 1, " %");
  auto limit = [&](const Json& s) {
    const Json& b = s["bottleneck"];
    return b.is_null() || text(b["what"]).empty()
               ? std::string("-")
               : text(b["what"]) + " (" + fmt(100 * b["share"].get<double>(), 1) + " % of the iteration)";
  };
  auto link = [&](const Json& s) {
    const Json& b = s["bottleneck"];
    return b.is_null() || text(b["busiest"]).empty()
               ? std::string("-")
               : text(b["busiest"]) + " (" + fmt(100 * b["busiest_utilisation_during_comm"].get<double>(), 1) + " %)";
  };
  os << "| limited by | " << limit(A) << " | " << limit(B) << " | |\n";
  os << "| busiest link while communicating | " << link(A) << " | " << link(B) << " | |\n";
  os << "| transports | " << text(A["transports"]) << " | " << text(B["transports"]) << " | |\n";
  os << "\n**What differs** (" << c["differences"].size() << " parameter(s)):\n\n";
  if (c["differences"].empty())
    os << "nothing: the parameters are identical\n";
  else {
    os << "| parameter | A | B |\n|---|---|---|\n";
    for (const auto& d : c["differences"])
      os << "| " << text(d["name"]) << " | " << text(d["a"]) << " | " << text(d["b"]) << " |\n";
  }
}

}  // namespace vgsim::sim::planning
