// Helpers for the training tests: run a job from a few strings (cluster preset or test cluster file, model, ranks,
// key=value settings). Test clusters live in tests/sim/training/data (written by make_clusters.py).
#pragma once

#include <string>
#include <vector>

#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::test {

inline const topo::Catalog& catalog() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}

inline std::string test_cluster(const std::string& name) {
  return std::string(VGSIM_TRAINING_TEST_DATA) + "/" + name + ".json";
}

inline sim::training::JobSpec spec(const std::string& cluster, const std::string& model, std::uint32_t nodes,
                                   std::uint32_t gpn, std::vector<std::string> sets) {
  sim::training::JobSpec s;
  s.cluster = cluster;
  s.workload = model;
  s.nodes = nodes;
  s.gpus_per_node = gpn;
  s.sets = std::move(sets);
  return s;
}

inline sim::training::TrainingStudy study(const sim::training::JobSpec& s) {
  return sim::training::simulate_study(sim::training::resolve_job(s, catalog()));
}

}  // namespace vgsim::test
