// Named training scenarios: JSON files under workloads/scenarios/ (each file holds {"scenarios": [...]}) or a single
// scenario file given by path. A scenario names its workers (GPUs, or CPU sockets: "workers": "cpu"), a cluster, a
// workload, the ranks, training settings, NCCL knobs and key=value overrides; it becomes a JobSpec that command-line
// options can still override. Read with JsonReader (unknown keys are errors). Not a simulation.
#pragma once

#include <string>
#include <vector>

#include "vgsim/sim/training/job.hpp"

namespace vgsim::sim::training {

struct Scenario {
  std::string name, description, source, file;
  // "gpu" (default): ranks on GPU endpoints (TrainingJob); "cpu": ranks on the CPU sockets of GPU-less nodes
  // (CpuTrainingJob, cpu_job.hpp), cpu.ranks_per_node ranks per node.
  std::string workers = "gpu";
  JobSpec spec;
};

// $VGSIM_DATA_DIR/workloads/scenarios if set, else the source tree's workloads/scenarios.
std::string scenarios_dir();
// Every scenario of the library, sorted by name.
std::vector<Scenario> list_scenarios();
// By library name, or by path (contains '/' or ends in ".json": a file with one scenario object or a one-element
// "scenarios" list). Unknown names throw InputError with a did-you-mean.
Scenario load_scenario(const std::string& name_or_path);
// Parses one scenario object; `file` labels errors.
Scenario parse_scenario(JsonReader& r);

}  // namespace vgsim::sim::training
