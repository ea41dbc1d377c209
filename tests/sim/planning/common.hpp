// Helpers of the planning tests: a scratch directory and writing a plan JSON into it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "vgsim/kernel/json_input.hpp"

namespace vgsim::test {

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("vgsim-planning-" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

inline std::string write_json(const std::filesystem::path& p, const Json& j) {
  std::ofstream(p) << j.dump(2);
  return p.string();
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A small valid plan: ResNet-50 on 1-2 R750xa hosts x 1 GPU, 25/100 GbE, GDR on/off (2 x 2 x 2 = 8 points).
inline Json small_plan() {
  return Json::parse(R"({
    "name": "small", "source": "test",
    "base": {"cluster": "r750xa-{nodes}x-{var.nic}", "workload": "resnet50", "gpus_per_node": 1,
             "batch_per_gpu": 256, "precision": "amp", "framework": "horovod", "gdr_level": "SYS"},
    "grid": {"nodes": [1, 2], "var.nic": ["25gbe", "100gbe"], "gdr_disable": [false, true]},
    "prices": {"source": "test", "gpu": 10000, "host": 15000, "nic_port": 500, "switch_port": 200}
  })");
}

}  // namespace vgsim::test
