// The parameters a training job accepts, assembled from the declarations of their owners: training settings
// (workloads/models/training_settings), compute.* (the compute model), compute.nccl_sm_per_channel and sim.* (this
// job), nccl.* knobs (sim/nccl_knobs) and the NCCL cost-model constants of the job's release (coll::NcclTuning),
// capacity_scale.<kind> for every resource kind of the cluster (Fabric), virt.compute_efficiency and vgpu.* (the vGPU
// scheduler). `vgsim params`, `--set`, scenario files and sweep plans all go through this one registry.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::sim::training {

// Who applies a parameter's value.
// Workload: declarations a job kind with its own workload brings (platform_parameters; large-model training).
enum class ParamOwner { Settings, Compute, Job, NcclKnob, NcclConstant, Capacity, Vgpu, Workload };

struct JobParameters {
  ParamRegistry registry;
  std::map<std::string, ParamOwner> owner;
};

// This module's own parameters: compute.nccl_sm_per_channel, virt.compute_efficiency, sim.iterations,
// sim.horovod_tick_phases, sim.overlap_collectives.
const std::vector<ParamDecl>& job_params();

// The registry of one job: every owner's declarations, the constants of `tuning`'s release and one
// capacity_scale.<kind> per resource kind of `cluster`. Sweep plans' older spellings (gdr_level, iterations, ...) are
// aliases of the canonical names.
JobParameters job_parameters(const coll::NcclTuning& tuning, const topo::Cluster& cluster);
// The names every job accepts whatever its cluster and NCCL release (no nccl.<constant>, no capacity_scale.<kind>),
// with the plan aliases: what a sweep plan is checked against before its points are resolved.
const JobParameters& fixed_job_parameters();
// The registry of a job kind that brings its own workload parameters (large-model training, sim/llm): the platform
// part of job_parameters (nccl.* knobs, the release's NCCL constants, capacity_scale.<kind>, virt.compute_efficiency)
// without the data-parallel training settings, compute.*, vgpu.* and sim.*, plus `workload` (owner Workload); the
// sweep plans' unprefixed knob spellings (gdr_level, ib_disable, ...) are aliases here too.
JobParameters platform_parameters(const coll::NcclTuning& tuning, const topo::Cluster& cluster,
                                  const std::vector<ParamDecl>& workload);

// Values given as "name=value" (--set, a scenario's "set", a plan point), each split once, checked against its
// declaration and grouped by owner in the order given (a later value of a name wins).
struct JobValues {
  std::map<ParamOwner, std::vector<std::pair<std::string, Json>>> by_owner;
  std::map<std::string, std::string> origin;  // canonical name -> where it was given
  bool has(const std::string& name) const { return origin.count(name) != 0; }
};
JobValues read_job_values(const JobParameters& params,
                          const std::vector<std::pair<std::string, std::string>>& assignments,
                          const std::string& origin);

}  // namespace vgsim::sim::training
