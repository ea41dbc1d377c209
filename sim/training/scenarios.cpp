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

Scenario parse_scenario(JsonReader& r) {
  Scenario s;
  s.file = r.file();
  s.name = r.string("name");
  s.description = r.opt_string("description").value_or("");
  s.source = r.opt_string("source").value_or("");
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
  if (auto n = r.opt_object("nccl")) {
    j.nccl.algo = n->opt_one_of("algo", {"ring", "tree", "nvls", "nvlstree"}).value_or("");
    j.nccl.proto = n->opt_one_of("proto", {"ll", "ll128", "simple"}).value_or("");
    j.nccl.channels = static_cast<std::uint32_t>(n->opt_integer("channels", 1, 64).value_or(0));
    // A name or NCCL's legacy integer (a JSON number or a string), read by the one parser, sim::parse_path_level,
    // with the version of this file (read first) or the default.
    const std::string level_version = n->has("version") && n->json().at("version").is_string()
                                          ? n->json().at("version").get<std::string>()
                                          : j.nccl.version;
    auto level = [&](const char* key) -> std::string {
      if (!n->has(key)) return "";
      n->allow(key);
      const Json& v = n->json().at(key);
      if (!v.is_string() && !v.is_number_integer())
        n->fail(key, "wrong type", "a path name (LOC, NVL, PIX, PXB, PHB, SYS) or an integer level");
      const std::string text = v.is_string() ? v.get<std::string>() : std::to_string(v.get<std::int64_t>());
      try {
        (void)sim::parse_path_level(text, level_version);
      } catch (const UnitError& e) {
        n->fail(key, e.what(), "a path name or an integer level of NCCL " + level_version);
      }
      return text;
    };
    j.nccl.p2p_level = level("p2p_level");
    j.nccl.gdr_level = level("gdr_level");
    j.nccl.ib_disable = n->opt_boolean("ib_disable");
    j.nccl.p2p_disable = n->opt_boolean("p2p_disable");
    j.nccl.shm_disable = n->opt_boolean("shm_disable");
    j.nccl.gdr_disable = n->opt_boolean("gdr_disable");
    j.nccl.version = n->opt_string("version").value_or(j.nccl.version);
    j.nccl_origin = label;
    n->finish();
  }
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
