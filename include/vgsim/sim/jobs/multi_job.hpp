// Several training jobs at once on one cluster: a jobs file names the cluster, optional vGPU scheduler settings and
// the jobs (workload, endpoints, key=value sets, iterations). All jobs run on one engine (simulate_training_together):
// they contend for time-sliced GPUs and for links. Each job also runs alone on the same endpoints, so its report can
// state the slowdown from sharing. Read with JsonReader (unknown keys are errors). Units: Time (ps), samples/s.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/jobs/placement.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::virt {

// Where one job's ranks go: explicit endpoints (already in JobSpec::endpoints), nodes with a rank count, or a
// Kubernetes MPIJob; the last two are resolved against the cluster by run_jobs (placement.hpp).
struct JobPlacement {
  std::optional<NodeRanks> nodes;
  std::optional<MpiJob> mpijob;
  std::string path;  // JSON path of the job, for errors
};

struct MultiJobSpec {
  std::string file;  // label for errors
  std::string cluster;
  std::vector<std::string> vgpu_sets;  // "vgpu.scheduler=fixed_share", ... applied to every job
  std::vector<std::string> names;
  std::vector<training::JobSpec> jobs;
  std::vector<JobPlacement> placements;  // one per job
};

// {"cluster": "...", "vgpu": {"scheduler": "best_effort", "time_slice": "2ms", "switch_cost": "50us"},
//  "jobs": [{"name": "a", "workload": "resnet50", "endpoints": ["host0/vm0/gpu0"], "set": ["batch_per_gpu=128"],
//            "iterations": 3}]}
// Instead of "endpoints" a job may give "nodes": ["host0/vm0", ...] with "ranks_per_node": k, or "mpijob": a
// Kubernetes MPIJob manifest (a JSON file path relative to the jobs file, or the manifest object inline).
MultiJobSpec parse_jobs(const Json& j, const std::string& file);
MultiJobSpec load_jobs_file(const std::string& path);

struct MultiJobResult {
  std::vector<std::string> names;
  std::vector<training::TrainingJob> jobs;
  std::vector<training::TrainingStudy> studies;  // result = shared run; single_gpu = the 1-GPU baseline
  std::vector<training::TrainingResult> alone;   // the same job alone on the cluster
};

MultiJobResult run_jobs(const MultiJobSpec& spec, const topo::Catalog& catalog);
void write_jobs_summary(std::ostream& out, const MultiJobResult& r);
Json jobs_json(const MultiJobResult& r);

}  // namespace vgsim::sim::virt
