// Assembles a training job's parameter registry from its owners and routes given values to them (see
// include/vgsim/sim/training/job_parameters.hpp).
#include "vgsim/sim/training/job_parameters.hpp"

#include <set>

#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"
#include "vgsim/workloads/models/compute_model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::sim::training {

namespace {

ParamDecl decl(const char* name, ParamType type, double min, double max, const char* help, const char* source) {
  ParamDecl d;
  d.name = name;
  d.type = type;
  d.min = min;
  d.max = max;
  d.help = help;
  d.source = source;
  return d;
}

void add(JobParameters& p, const std::vector<ParamDecl>& decls, ParamOwner owner) {
  for (const auto& d : decls) {
    p.registry.add(d);
    p.owner[d.name] = owner;
  }
}

// Sweep plans name the NCCL knobs without their prefix (written before the registry).
void add_knob_aliases(JobParameters& p) {
  for (const char* k :
       {"algo", "proto", "channels", "p2p_level", "gdr_level", "ib_disable", "p2p_disable", "shm_disable",
        "gdr_disable", "net", "socket_ifname", "gdr_read", "socket_nthreads", "nsocks_perthread"})
    p.registry.alias(k, std::string("nccl.") + k);
  p.registry.alias("nccl_version", "nccl.version");
}

// ... and two job fields too.
void add_plan_aliases(JobParameters& p) {
  add_knob_aliases(p);
  p.registry.alias("iterations", "sim.iterations");
  p.registry.alias("overlap_collectives", "sim.overlap_collectives");
}

// This module's own declarations whose names start with `prefix` (each group listed beside its owners' names).
std::vector<ParamDecl> own(const char* prefix) {
  std::vector<ParamDecl> out;
  for (const auto& d : job_params())
    if (d.name.rfind(prefix, 0) == 0) out.push_back(d);
  return out;
}

JobParameters fixed_parameters() {
  JobParameters p;
  add(p, models::training_setting_params(), ParamOwner::Settings);
  add(p, models::compute_params(), ParamOwner::Compute);
  add(p, own("compute."), ParamOwner::Job);  // compute.nccl_sm_per_channel, beside compute.*
  add(p, nccl_knob_params(), ParamOwner::NcclKnob);
  return p;
}

void add_rest(JobParameters& p) {
  add(p, own("virt."), ParamOwner::Job);
  add(p, virt::vgpu_params(), ParamOwner::Vgpu);
  add(p, own("sim."), ParamOwner::Job);
}

}  // namespace

const std::vector<ParamDecl>& job_params() {
  static const std::vector<ParamDecl> decls = {
      decl("compute.nccl_sm_per_channel", ParamType::Number, 0, 64,
           "SMs one NCCL channel takes from compute while a collective runs (backward slows by channels x this / SMs)",
           "default: one CTA (one SM) per NCCL channel, enqueue.cc grid = nChannels (compute_clock.hpp)"),
      decl("virt.compute_efficiency", ParamType::Number, 0.01, 1,
           "compute speed of the ranks' VM relative to bare metal",
           "the cluster file's hypervisor overheads (1 on bare metal)"),
      decl("sim.iterations", ParamType::Integer, 1, 1000, "iterations simulated; the last is the steady state",
           "default: 3 (job.hpp kDefaultIterations; --iterations)"),
      decl("sim.horovod_tick_phases", ParamType::Integer, 1, 64,
           "Horovod cycle-tick phases averaged for the steady state",
           "assumption: uniform phase, K samples (steady state = mean over K evenly spaced cycle-tick phases; job.hpp "
           "kDefaultTickPhases)"),
      decl("sim.overlap_collectives", ParamType::Boolean, 0, 1,
           "collectives start as soon as their group is ready and contend for links (false: one NCCL stream)",
           "default: false, one NCCL stream (NCCL's behaviour for one communicator)"),
  };
  return decls;
}

JobParameters job_parameters(const coll::NcclTuning& tuning, const topo::Cluster& cluster) {
  JobParameters p = fixed_parameters();
  for (const auto& prm : tuning.list()) {
    ParamDecl d;
    d.name = prm.name;
    d.unit = prm.unit;
    d.min = 0.0;
    d.help = "NCCL cost-model constant (tuning tables of NCCL " + tuning.version + ")";
    d.source = prm.source;
    p.registry.add(d);
    p.owner[d.name] = ParamOwner::NcclConstant;
  }
  std::set<std::string> kinds;
  for (const auto& r : cluster.resources()) kinds.insert(r.kind);
  // Not a resource: each socket connection's TCP stream cap (topo::Path::connection_cap).
  if (kinds.count("socket-threads")) kinds.insert("socket-stream");
  for (const auto& kind : kinds) {
    ParamDecl d = decl("", ParamType::Number, 0, 1000,
                       "capacity multiplier of every resource of this kind (e.g. an achievable fraction of line rate "
                       "fitted by vgsim calibrate fit-training)",
                       "default: 1 (catalog capacity)");
    d.name = "capacity_scale." + kind;
    d.min_open = true;
    p.registry.add(d);
    p.owner[d.name] = ParamOwner::Capacity;
  }
  add_rest(p);
  add_plan_aliases(p);
  return p;
}

JobParameters platform_parameters(const coll::NcclTuning& tuning, const topo::Cluster& cluster,
                                  const std::vector<ParamDecl>& workload) {
  const JobParameters all = job_parameters(tuning, cluster);
  JobParameters p;
  for (const ParamDecl& d : all.registry.all()) {
    const ParamOwner o = all.owner.at(d.name);
    const bool platform = o == ParamOwner::NcclKnob || o == ParamOwner::NcclConstant || o == ParamOwner::Capacity ||
                          d.name == "virt.compute_efficiency";
    if (platform) add(p, {d}, o);
  }
  add(p, workload, ParamOwner::Workload);
  add_knob_aliases(p);  // the sweep plans' unprefixed NCCL knob spellings
  return p;
}

const JobParameters& fixed_job_parameters() {
  static const JobParameters p = [] {
    JobParameters q = fixed_parameters();
    add_rest(q);
    add_plan_aliases(q);
    return q;
  }();
  return p;
}

JobValues read_job_values(const JobParameters& params,
                          const std::vector<std::pair<std::string, std::string>>& assignments,
                          const std::string& origin) {
  JobValues v;
  for (const auto& [name, text] : assignments) {
    const ParamDecl& d = params.registry.require(name, origin);
    v.by_owner[params.owner.at(d.name)].emplace_back(d.name, read_param(d, text, origin));
    v.origin[d.name] = origin;
  }
  return v;
}

}  // namespace vgsim::sim::training
