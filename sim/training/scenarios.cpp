// Named training scenarios (see include/vgsim/sim/training/scenarios.hpp).
#include "vgsim/sim/training/scenarios.hpp"

#include <algorithm>
#include <filesystem>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/topologies/catalog.hpp"

namespace fs = std::filesystem;

namespace vgsim::sim::training {

std::string scenarios_dir() { return (fs::path(topo::Catalog::data_dir()) / "workloads" / "scenarios").string(); }

namespace {

// The "nccl" object: each member is the knob parameter nccl.<member> (nccl_knob_params), checked against its
// declaration. A path level is also checked against the release (read first) so the error names this file.
void read_nccl(JsonReader& n, NcclKnobs& knobs) {
  ParamRegistry reg;
  reg.add(nccl_knob_params());
  if (n.has("version")) {
    n.allow("version");
    knobs.set("nccl.version", read_param(reg.require("nccl.version", n.file()), n.json().at("version"), n.file(),
                                         n.path_of("version")));
  }
  for (auto it = n.json().begin(); it != n.json().end(); ++it) {
    if (it.key() == "version") continue;
    const ParamDecl* d = reg.find("nccl." + it.key());
    if (!d) continue;  // finish() names it with a did-you-mean
    n.allow(it.key());
    const Json v = read_param(*d, it.value(), n.file(), n.path_of(it.key()));
    if (d->name == "nccl.p2p_level" || d->name == "nccl.gdr_level") {
      try {
        (void)sim::parse_path_level(v.get<std::string>(), knobs.version);
      } catch (const UnitError& e) {
        n.fail(it.key(), e.what(), "a path name or an integer level of NCCL " + knobs.version);
      }
    }
    knobs.set(d->name, v);
  }
  n.finish();
}

}  // namespace

Scenario parse_scenario(JsonReader& r) {
  Scenario s;
  s.file = r.file();
  s.name = r.string("name");
  s.description = r.opt_string("description").value_or("");
  s.source = r.opt_string("source").value_or("");
  s.workers = r.opt_one_of("workers", {"gpu", "cpu"}).value_or("gpu");
  JobSpec& j = s.spec;
  j.cluster = r.string("cluster");
  j.workload = r.string("workload");
  j.cluster_at = {s.file, r.path_of("cluster")};
  j.workload_at = {s.file, r.path_of("workload")};
  j.nodes = static_cast<std::uint32_t>(r.opt_integer("nodes", 1, 1 << 20).value_or(0));
  j.gpus_per_node = static_cast<std::uint32_t>(r.opt_integer("gpus_per_node", 1, 1 << 10).value_or(0));
  j.iterations = static_cast<int>(r.opt_integer("iterations", 1, 1000).value_or(kDefaultIterations));
  const std::string label = "scenario " + s.name + " (" + s.file + ")";
  if (r.has("settings")) {
    JsonReader st = r.object("settings");  // validated by the training-settings parser in resolve_job
    j.settings = st.json();
    j.settings_origin = label;
  }
  j.sets = r.has("set") ? r.strings("set") : std::vector<std::string>{};
  j.sets_origin = label;
  if (auto n = r.opt_object("nccl")) read_nccl(*n, j.nccl), j.nccl_origin = label;
  r.finish();
  return s;
}

namespace {

std::vector<Scenario> read_file(const std::string& path) {
  const Json doc = load_json_file(path);
  JsonReader r(doc, path);
  std::vector<Scenario> out;
  if (r.has("scenarios")) {
    for (auto& s : r.objects("scenarios")) out.push_back(parse_scenario(s));
    r.finish();
  } else {
    out.push_back(parse_scenario(r));
  }
  return out;
}

}  // namespace

std::vector<Scenario> list_scenarios() {
  std::vector<Scenario> out;
  const fs::path dir = scenarios_dir();
  if (!fs::is_directory(dir)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    for (auto& s : read_file(f.string())) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const Scenario& a, const Scenario& b) { return a.name < b.name; });
  return out;
}

Scenario load_scenario(const std::string& name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
  if (is_path) {
    auto v = read_file(name_or_path);
    if (v.size() != 1)
      throw InputError(name_or_path, "scenarios", "a scenario file must hold exactly one scenario",
                       std::to_string(v.size()), "1 (or put the file in workloads/scenarios and use the name)");
    return v.front();
  }
  std::vector<std::string> names;
  for (auto& s : list_scenarios()) {
    if (s.name == name_or_path) return s;
    names.push_back(s.name);
  }
  const std::string dym = did_you_mean(name_or_path, names);
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  throw InputError(scenarios_dir(), "--scenario", "unknown scenario", name_or_path,
                   (dym.empty() ? std::string() : "did you mean '" + dym + "'? ") + "one of: " + all);
}

}  // namespace vgsim::sim::training
