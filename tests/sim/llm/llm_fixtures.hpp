// Shared by the large-model tests: the default device catalog (loaded once) and a JobSpec from a preset, a workload
// and --set assignments.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/sim/llm/llm_job.hpp"

namespace vgsim::sim::llm::test {

inline const topo::Catalog& cat() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}

inline training::JobSpec spec(const std::string& cluster, const std::string& workload, std::vector<std::string> sets,
                              std::uint32_t nodes = 0) {
  training::JobSpec s;
  s.cluster = cluster;
  s.workload = workload;
  s.nodes = nodes;
  s.sets = std::move(sets);
  return s;
}

}  // namespace vgsim::sim::llm::test
