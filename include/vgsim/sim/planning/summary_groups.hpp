// What a sweep summary may compare. Points are grouped by (workload, throughput unit): the summary ranks, draws the
// Pareto front and looks for design effects within one group only, so samples/s is never ranked against tokens/s and
// ResNet-50 never against BERT. Each plan key has a role:
//  - design: where and how the same training step runs: cluster (and the var.* template variables that only build
//    design keys, e.g. a cluster name), the NCCL knobs and constants (nccl.*, gdr_level, ib_disable, ...,
//    compute.nccl_sm_per_channel), capacity_scale.*, virtualization (virt.*, vgpu.*), the framework's communication
//    tuning (horovod.*, ddp.*) and a large model's parallelism layout (tp, pp, dp, zero_stage, micro_batch,
//    recompute, schedule, virtual_stages, sequence_parallel, llm.*): changing one leaves what is trained the same;
//  - scale: nodes, gpus_per_node (design keys too, but an effect holds them equal and names them as its context);
//  - workload: what is trained and by which software: workload, scenario, batch_per_gpu, tokens_per_gpu,
//    global_batch, grad_accumulation_steps, scaling, precision, framework, optimizer*, steps_to_converge, grad_bytes,
//    compute.* (the workload's compute calibration), sim.* (simulator settings), a var.* that feeds a template of a
//    workload key, and any key not named above;
//  - ignored: label, price.*.
// A design effect pairs two points of one group that agree on every workload and scale key and differ in one or two
// design keys only (effects.hpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/planning/point_runner.hpp"

namespace vgsim::sim::planning {

enum class KeyRole { Design, Scale, Workload, Ignored };

// The role of a key by its name alone (a var.* key is Design here; plan_key_roles decides it from the templates).
KeyRole key_role(const std::string& key);

struct PlanKeyRoles {
  std::set<std::string> templated;      // keys whose plan value is a template: they follow from the others
  std::set<std::string> workload_vars;  // var.* keys that feed a template of a non-design key
  KeyRole role(const std::string& key) const;
};

// Reads the plan's templates ({name} in string values of base and list entries): which keys are templated, and
// which var.* keys feed (directly or through other var.* templates) a key that is not a design key.
PlanKeyRoles plan_key_roles(const SweepPlan& plan);

// Finished points (no error, a result) of one workload and throughput unit, in point order.
struct SummaryGroup {
  std::string workload;  // the point's workload parameter (or its scenario, or "(scenario default)")
  std::string unit;      // the result's throughput unit
  std::vector<std::size_t> points;
};

// The point's workload as the summary names it.
std::string workload_of(const PlanPoint& point);

// Groups of the finished points, in the order of their first point.
std::vector<SummaryGroup> summary_groups(const std::vector<PlanPoint>& points, const std::vector<PointResult>& results);

}  // namespace vgsim::sim::planning
