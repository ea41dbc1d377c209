// The model library: finds workloads/models/*.json by name or path (see include/vgsim/workloads/models/model.hpp).
// The source-tree fallback comes from the compile definition VGSIM_MODELS_DEFAULT_DATA_DIR (sources.cmake).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "vgsim/kernel/data_root.hpp"
#include "vgsim/workloads/models/model.hpp"

#ifndef VGSIM_MODELS_DEFAULT_DATA_DIR
#define VGSIM_MODELS_DEFAULT_DATA_DIR "."
#endif

namespace vgsim::models {

namespace fs = std::filesystem;

namespace {
// Comparison key: lower case without '-', '_', '.', ' ' ("ResNet-50" == "resnet50").
std::string key_of(const std::string& s) {
  std::string k;
  for (char c : s)
    if (c != '-' && c != '_' && c != '.' && c != ' ')
      k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}
}  // namespace

std::string models_dir() {
  return (fs::path(data_root(VGSIM_MODELS_DEFAULT_DATA_DIR)) / "workloads" / "models").string();
}

std::vector<std::string> list_models() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(models_dir(), ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());  // directory order is not deterministic
  return names;
}

Model load_model(const std::string& name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
  if (is_path) return parse_model(load_json_file(name_or_path), name_or_path);
  const auto names = list_models();
  for (const auto& n : names)
    if (key_of(n) == key_of(name_or_path)) {
      const std::string path = (fs::path(models_dir()) / (n + ".json")).string();
      return parse_model(load_json_file(path), path);
    }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string expected =
      "a model in " + models_dir() + " (" + (list.empty() ? "none found" : list) + ") or a path";
  const std::string hint = did_you_mean(name_or_path, names);
  // "--workload": where the name came from when the caller does not say otherwise (JobSpec::workload_at).
  throw InputError("", "--workload", "unknown model" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"),
                   "'" + name_or_path + "'", expected);
}

}  // namespace vgsim::models
