// Resolves a JobSpec into a TrainingJob with every parameter's source (see include/vgsim/sim/training/job.hpp).
#include "vgsim/sim/training/job.hpp"

#include <map>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/training/job_parameters.hpp"
#include "vgsim/sim/virtualization/assumptions.hpp"
#include "vgsim/workloads/models/model_memory.hpp"

namespace vgsim::sim::training {

namespace {

double peak(const topo::GpuModel& g, const char* key) {
  const auto it = g.peak_flops.find(key);
  return it == g.peak_flops.end() ? 0.0 : it->second;
}

// Flattens a JSON object into dotted keys ("horovod.cycle_time").
void flatten(const Json& j, const std::string& prefix, std::map<std::string, std::string>& out,
             const std::string& src) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object())
      flatten(it.value(), key, out, src);
    else
      out[key] = src;
  }
}

}  // namespace

std::vector<std::uint32_t> resolve_endpoints(const topo::Cluster& cl, const std::vector<std::string>& names,
                                             std::uint32_t& nodes, std::uint32_t& gpus_per_node) {
  std::vector<std::string> all;
  for (const auto& e : cl.endpoints()) all.push_back(e.name);
  std::vector<std::uint32_t> out;
  std::vector<std::string> instance_order;  // OS instance (VM name or host name) of each rank, node-major
  std::map<std::string, std::uint32_t> per_instance;
  for (const auto& n : names) {
    const auto e = cl.find_endpoint(n);
    if (!e) {
      const std::string dym = did_you_mean(n, all);
      throw InputError(cl.file(), "--endpoints",
                       "unknown endpoint" + (dym.empty() ? std::string() : " (did you mean '" + dym + "'?)"),
                       "'" + n + "'",
                       "an endpoint of the cluster (e.g. " + (all.empty() ? std::string("none") : all.front()) + ")");
    }
    for (std::uint32_t o : out)
      if (o == *e)
        throw InputError(cl.file(), "--endpoints", "endpoint listed twice", "'" + n + "'", "distinct endpoints");
    out.push_back(*e);
    const auto& ep = cl.endpoints()[*e];
    const std::string inst = ep.vm.empty() ? cl.hosts()[ep.host].name : ep.vm;
    if (per_instance.count(inst) == 0) {
      instance_order.push_back(inst);
    } else if (instance_order.back() != inst) {
      throw InputError(cl.file(), "--endpoints", "ranks of one OS instance not contiguous", "'" + n + "'",
                       "node-major order");
    }
    ++per_instance[inst];
  }
  nodes = static_cast<std::uint32_t>(instance_order.size());
  gpus_per_node = per_instance[instance_order.front()];
  for (const auto& [inst, count] : per_instance)
    if (count != gpus_per_node)
      throw InputError(cl.file(), "--endpoints", "unequal ranks per OS instance", inst + ": " + std::to_string(count),
                       std::to_string(gpus_per_node) + " like " + instance_order.front());
  return out;
}

models::GpuComputeSpec gpu_compute_spec(const topo::GpuModel& g) {
  models::GpuComputeSpec s;
  s.name = g.key;
  s.peak_fp32_flops = peak(g, "fp32");
  s.peak_tf32_flops = peak(g, "tf32");
  s.peak_fp16_flops = peak(g, "fp16");
  s.peak_bf16_flops = peak(g, "bf16");
  s.memory_bandwidth = g.memory_bandwidth;
  s.sm_count = static_cast<int>(g.sms);
  return s;
}

namespace {

// An error reported against an option ("--cluster", "--workload", "--endpoints") moves to where the value was given
// when that is a file (a scenario, jobs or plan file).
InputError at(const InputError& e, const std::pair<std::string, std::string>& where, const char* option) {
  return e.json_path() == option && !where.first.empty() ? e.located(where.first, where.second) : e;
}

// Cluster, rank placement and the ranks' GPU (ranks are symmetric: a mix of GPU kinds or MIG sizes is refused).
void resolve_ranks(const JobSpec& spec, const topo::Catalog& catalog, TrainingJob& job) {
  auto& P = job.params;
  try {
    job.cluster = std::make_shared<const topo::Cluster>(topo::Cluster::resolve(spec.cluster, catalog));
  } catch (const InputError& e) {
    throw at(e, spec.cluster_at, "--cluster");
  }
  const topo::Cluster& cl = *job.cluster;
  // NCCL's node is an OS instance (a bare-metal host or a VM).
  const auto instances = os_instances(cl);
  require_gpu_endpoints(cl);
  job.nodes = spec.nodes ? spec.nodes : static_cast<std::uint32_t>(instances.size());
  job.gpus_per_node = spec.gpus_per_node ? spec.gpus_per_node : static_cast<std::uint32_t>(instances[0].size());
  if (!spec.endpoints.empty()) {
    try {
      job.rank_to_endpoint = resolve_endpoints(cl, spec.endpoints, job.nodes, job.gpus_per_node);
    } catch (const InputError& e) {
      throw at(e, spec.endpoints_at, "--endpoints");
    }
  } else {
    job.rank_to_endpoint = place_ranks(cl, job.nodes, job.gpus_per_node);
  }
  P.push_back({"cluster", cl.name(), "cluster " + cl.file(), false});
  P.push_back({"nodes", job.nodes,
               spec.nodes ? spec.settings_origin + " / command line" : "default: all OS instances (hosts or VMs)",
               false});
  P.push_back(
      {"gpus_per_node", job.gpus_per_node,
       spec.gpus_per_node ? spec.settings_origin + " / command line" : "default: all GPUs of the first OS instance",
       false});
  const auto& eps = cl.endpoints();
  const topo::GpuEndpoint& e0 = eps[job.rank_to_endpoint[0]];
  const topo::GpuModel& g0 = cl.gpu_model(e0.gpu);
  for (std::uint32_t e : job.rank_to_endpoint) {
    const topo::GpuEndpoint& ep = eps[e];
    if (cl.gpu_model(ep.gpu).key != g0.key || ep.compute_fraction != e0.compute_fraction || ep.mode != e0.mode ||
        ep.profile != e0.profile)
      throw InputError(
          cl.file(), "ranks", "ranks on different GPU kinds are not supported",
          ep.name + " (" + cl.gpu_model(ep.gpu).key + (ep.profile.empty() ? "" : " " + ep.profile) + ")",
          "every rank like " + e0.name + " (" + g0.key + (e0.profile.empty() ? "" : " " + e0.profile) + ")");
  }
  job.gpu = gpu_compute_spec(g0);
  if (e0.mode == "mig") {  // a MIG instance gets a fixed share of the SMs and of the memory bandwidth (A4)
    job.gpu.sm_fraction = e0.compute_fraction;
    job.gpu.memory_fraction = e0.memory_fraction;
    P.push_back({"gpu.mig_profile", e0.profile, "cluster " + cl.file(), false});
    P.push_back(
        {"gpu.sm_fraction", e0.compute_fraction, "catalog MIG table (SMs of the instance / SMs of the GPU)", false});
    P.push_back({"gpu.memory_fraction", e0.memory_fraction, "catalog MIG table (memory slices / 8)", false});
  }
  const std::string gsrc = "catalog " + g0.key + ": " + g0.source;
  P.push_back({"gpu.model", g0.key, gsrc, false});
  P.push_back({"gpu.sms", job.gpu.sm_count, gsrc, false});
  P.push_back({"gpu.memory_bandwidth", format_bandwidth(job.gpu.memory_bandwidth), gsrc, false});
  for (const auto& [k, v] : g0.peak_flops) P.push_back({"gpu.peak_flops." + k, v, gsrc, false});
  for (const auto& f : virt::virtualization_facts(cl, job.rank_to_endpoint[0]))
    P.push_back({f.name, f.value, f.source, false});
}

// The NCCL release a job's values ask for (nccl.version among them wins over the knobs): its constants are names.
std::string requested_version(const JobSpec& spec,
                              const std::vector<std::pair<std::string, std::string>>& assignments) {
  std::string v = spec.nccl.version;
  for (const auto& [name, text] : assignments)
    if (name == "nccl.version" || name == "nccl_version") v = text;
  return v;
}

// Training settings: defaults < spec.settings (scenario) < given values; the listing's sources.
void resolve_settings(const JobSpec& spec, const JobValues& given, TrainingJob& job) {
  Json base = Json::object();
  base["batch_per_gpu"] = kDefaultBatchPerGpu;
  if (!spec.settings.is_object())
    throw InputError(spec.settings_origin, "settings", "wrong type", json_snippet(spec.settings), "an object");
  for (auto it = spec.settings.begin(); it != spec.settings.end(); ++it) base[it.key()] = it.value();
  const auto it = given.by_owner.find(ParamOwner::Settings);
  const bool any = it != given.by_owner.end();
  job.settings = models::parse_training_settings(base,
                                                 !any || spec.sets_origin == spec.settings_origin
                                                     ? spec.settings_origin
                                                     : spec.settings_origin + " + " + spec.sets_origin,
                                                 any ? it->second : std::vector<std::pair<std::string, Json>>{});
}

std::map<std::string, std::string> settings_sources(const JobSpec& spec, const JobValues& given,
                                                    const TrainingJob& job) {
  std::map<std::string, std::string> src;
  flatten(spec.settings, "", src, spec.settings_origin);
  for (const auto& [name, origin] : given.origin) src[name] = origin;
  if (job.settings.scaling == models::Scaling::Strong && !src.count("batch_per_gpu"))
    src["batch_per_gpu"] = "unused under strong scaling (global_batch / ranks)";
  if (!src.count("horovod.fusion_threshold") && src.count("horovod.era"))
    src["horovod.fusion_threshold"] = "from horovod.era (" + src["horovod.era"] + "), workloads.md B8";
  if (!src.count("horovod.cycle_time") && src.count("horovod.era"))
    src["horovod.cycle_time"] = "from horovod.era (" + src["horovod.era"] + "), workloads.md B8";
  return src;
}

// Compute model: given values < model file < defaults; calibrated mode when a measured throughput is given.
void resolve_compute(const JobValues& given, TrainingJob& job) {
  if (const auto it = given.by_owner.find(ParamOwner::Compute); it != given.by_owner.end()) {
    for (const auto& [name, value] : it->second) {
      const double v = value.get<double>();
      if (name == "compute.eff_compute") job.compute.eff_compute = v;
      if (name == "compute.eff_memory") job.compute.eff_memory = v;
      if (name == "compute.saturation") job.compute.saturation = v;
      if (name == "compute.measured_throughput") job.measured_throughput = v;
    }
  }
  if (job.measured_throughput)
    job.compute =
        models::calibrate_to_throughput(job.model, job.settings, job.gpu, job.compute, *job.measured_throughput);
}

// NCCL: the knobs (spec < given), the release's constants (given values win) and capacity scales.
void resolve_nccl(const JobSpec& spec, const JobValues& given, NcclKnobs& kn, TrainingJob& job) {
  kn = spec.nccl;
  for (const auto owner : {ParamOwner::NcclKnob, ParamOwner::NcclConstant, ParamOwner::Capacity}) {
    const auto it = given.by_owner.find(owner);
    if (it == given.by_owner.end()) continue;
    for (const auto& [name, value] : it->second) {
      if (owner == ParamOwner::NcclKnob) kn.set(name, value);
      if (owner == ParamOwner::Capacity) job.comm.capacity_scale[name.substr(name.find('.') + 1)] = value.get<double>();
    }
  }
  job.comm.nccl = kn.tuning();
  if (const auto it = given.by_owner.find(ParamOwner::NcclConstant); it != given.by_owner.end()) {
    for (const auto& [name, value] : it->second) {
      try {
        job.comm.nccl.set(name, value.get<double>());
      } catch (const UnitError& e) {
        throw InputError(spec.sets_origin, name, "bad NCCL parameter", param_text(value), e.what());
      }
    }
  }
  kn.apply(job.comm);
  job.comm.max_transfers = spec.max_transfers;
  job.comm.fold_channels = spec.fold_channels;
}

// The job's own values (sim.*, virt.*, compute.nccl_sm_per_channel) and the vGPU scheduler's.
void resolve_job_values(const JobSpec& spec, const JobValues& given, TrainingJob& job) {
  const topo::Cluster& cl = *job.cluster;
  const topo::GpuEndpoint& e0 = cl.endpoints()[job.rank_to_endpoint[0]];
  if (e0.vm_index != UINT32_MAX) job.compute_efficiency = cl.vms()[e0.vm_index].overheads.compute_efficiency;
  if (const auto it = given.by_owner.find(ParamOwner::Job); it != given.by_owner.end()) {
    for (const auto& [name, value] : it->second) {
      if (name == "compute.nccl_sm_per_channel") job.nccl_sm_per_channel = value.get<double>();
      if (name == "virt.compute_efficiency") job.compute_efficiency = value.get<double>();
      if (name == "sim.iterations") job.iterations = value.get<int>();
      if (name == "sim.horovod_tick_phases") job.tick_phases = value.get<int>();
      if (name == "sim.overlap_collectives") job.serialize_collectives = !value.get<bool>();
    }
  }
  const auto it = given.by_owner.find(ParamOwner::Vgpu);
  virt::apply_vgpu_params(job.vgpu,
                          it == given.by_owner.end() ? std::vector<std::pair<std::string, Json>>{} : it->second,
                          spec.sets_origin);
}

// One record per parameter of the registry (in its order) with the value used and where it came from.
Json setting_or_skip(const TrainingJob& job, const std::string& n, bool& skip) {
  const auto fw = job.settings.framework;
  skip = (n.rfind("horovod.", 0) == 0 && fw != models::Framework::Horovod) ||
         (n.rfind("ddp.", 0) == 0 && fw != models::Framework::DDP) ||
         (n == "global_batch" && job.settings.scaling == models::Scaling::Weak);  // refused under weak scaling
  return models::training_setting_value(job.settings, n);
}

std::pair<Json, std::string> compute_record(const TrainingJob& job, const models::ResolvedComputeParams& rp,
                                            const ParamDecl& d) {
  const std::string model_file = "model file " + job.model.file;
  if (d.name == "compute.eff_compute") return {rp.eff_compute, job.model.eff_compute ? model_file : d.source};
  if (d.name == "compute.eff_memory") return {rp.eff_memory, job.model.eff_memory ? model_file : d.source};
  if (d.name == "compute.saturation") return {rp.saturation, job.model.saturation_batch ? model_file : d.source};
  return {job.measured_throughput ? Json(*job.measured_throughput) : Json(nullptr), d.source};
}

std::pair<Json, std::string> job_record(const TrainingJob& job, const ParamDecl& d) {
  if (d.name == "compute.nccl_sm_per_channel") return {job.nccl_sm_per_channel, d.source};
  if (d.name == "virt.compute_efficiency") {
    const topo::Cluster& cl = *job.cluster;
    const topo::GpuEndpoint& e0 = cl.endpoints()[job.rank_to_endpoint[0]];
    if (e0.vm_index == UINT32_MAX) return {job.compute_efficiency, "bare metal"};
    const auto& o = cl.vms()[e0.vm_index].overheads;
    return {job.compute_efficiency, "hypervisor " + o.hypervisor + ": " + o.compute_source};
  }
  if (d.name == "sim.iterations") return {job.iterations, d.source};
  if (d.name == "sim.horovod_tick_phases") return {job.tick_phases, d.source};
  return {!job.serialize_collectives, d.source};  // sim.overlap_collectives
}

std::pair<Json, std::string> knob_record(const TrainingJob& job, const NcclKnobs& kn, const std::string& spec_origin,
                                         const ParamDecl& d) {
  const std::string& n = d.name;
  const auto src = [&](bool given) { return given ? spec_origin : d.source; };
  const topo::PathOptions& path = job.comm.path;
  if (n == "nccl.version")
    return {job.comm.nccl.version,
            "tuning tables (--nccl-version)" +
                (job.comm.nccl.approximation.empty() ? std::string() : "; " + job.comm.nccl.approximation)};
  if (n == "nccl.algo") return {kn.algo.empty() ? "auto" : kn.algo, src(!kn.algo.empty())};
  if (n == "nccl.proto") return {kn.proto.empty() ? "auto" : kn.proto, src(!kn.proto.empty())};
  if (n == "nccl.channels") return {kn.channels, src(kn.channels != 0)};
  if (n == "nccl.p2p_level") return {topo::to_string(path.p2p_level), src(!kn.p2p_level.empty())};
  if (n == "nccl.gdr_level") return {topo::to_string(path.gdr_level), src(!kn.gdr_level.empty())};
  if (n == "nccl.ib_disable") return {path.ib_disable, src(kn.ib_disable.has_value())};
  if (n == "nccl.p2p_disable") return {path.p2p_disable, src(kn.p2p_disable.has_value())};
  if (n == "nccl.shm_disable") return {path.shm_disable, src(kn.shm_disable.has_value())};
  if (n == "nccl.net") return {path.net.empty() ? "auto" : path.net, src(!kn.net.empty())};
  if (n == "nccl.socket_ifname")
    return {path.socket_ifname.empty() ? "auto" : path.socket_ifname, src(!kn.socket_ifname.empty())};
  if (n == "nccl.gdr_read")
    return {path.gdr_read < 0 ? "auto" : std::to_string(path.gdr_read), src(kn.gdr_read.has_value())};
  if (n == "nccl.socket_nthreads")
    return {path.socket_nthreads < 0 ? "auto" : std::to_string(path.socket_nthreads), src(!kn.socket_nthreads.empty())};
  if (n == "nccl.nsocks_perthread")
    return {path.nsocks_perthread < 0 ? "auto" : std::to_string(path.nsocks_perthread),
            src(!kn.nsocks_perthread.empty())};
  return {path.gdr_disable, src(kn.gdr_disable.has_value())};  // nccl.gdr_disable
}

std::pair<Json, std::string> vgpu_record(const TrainingJob& job, const ParamDecl& d) {
  if (d.name == "vgpu.scheduler") return {virt::to_string(job.vgpu.policy), job.vgpu.policy_source};
  if (d.name == "vgpu.time_slice") return {format_time(job.vgpu.time_slice), job.vgpu.time_slice_source};
  return {format_time(job.vgpu.switch_cost), job.vgpu.switch_cost_source};
}

// Refuses a micro-batch that cannot fit the smallest device memory among the ranks' endpoints (GPU, vGPU frame
// buffer or MIG slice): model_memory.hpp's floor, in the work units the compute model runs per micro-step.
void check_batch_memory(const JobSpec& spec, const TrainingJob& job) {
  const auto& eps = job.cluster->endpoints();
  std::uint32_t smallest = job.rank_to_endpoint.at(0);
  for (std::uint32_t e : job.rank_to_endpoint)
    if (eps[e].memory < eps[smallest].memory) smallest = e;
  const topo::GpuEndpoint& e = eps[smallest];
  double units = static_cast<double>(job.settings.per_gpu_batch(static_cast<int>(job.ranks())));
  if (job.model.unit == models::WorkUnit::Token)
    units = job.settings.tokens_per_gpu ? static_cast<double>(*job.settings.tokens_per_gpu)
                                        : units * static_cast<double>(job.model.tokens_per_sample);
  const std::string device = e.name + " (" + job.cluster->gpu_model(e.gpu).key +
                             (e.profile.empty() ? "" : " " + e.profile) + ", " + format_bytes(e.memory) + ")";
  models::require_batch_fits(models::model_memory_floor(job.model, units, job.settings, !spec.inference), units,
                             static_cast<double>(e.memory), device, spec.sets_origin,
                             spec.inference ? "--batch" : "batch_per_gpu");
}

void record_parameters(const JobSpec& spec, const JobParameters& reg, const JobValues& given, const NcclKnobs& kn,
                       TrainingJob& job, bool data_parallel = true) {
  const auto settings_src = data_parallel ? settings_sources(spec, given, job) : std::map<std::string, std::string>{};
  const models::ResolvedComputeParams rp =
      data_parallel ? models::resolve(job.compute, job.model, job.settings.precision, job.gpu)
                    : models::ResolvedComputeParams{};
  std::map<std::string, double> constants;
  for (const auto& prm : job.comm.nccl.list()) constants[prm.name] = prm.value;
  for (const ParamDecl& d : reg.registry.all()) {
    std::pair<Json, std::string> r;
    switch (reg.owner.at(d.name)) {
      case ParamOwner::Workload:
        continue;  // the workload's owner records these
      case ParamOwner::Settings: {
        bool skip = false;
        r.first = setting_or_skip(job, d.name, skip);
        if (skip) continue;
        r.second = settings_src.count(d.name) ? settings_src.at(d.name) : d.source;
        break;
      }
      case ParamOwner::Compute:
        r = compute_record(job, rp, d);
        break;
      case ParamOwner::Job:
        r = job_record(job, d);
        break;
      case ParamOwner::NcclKnob:
        r = knob_record(job, kn, spec.nccl_origin, d);
        break;
      case ParamOwner::NcclConstant:
        r = {constants.at(d.name), d.source};
        break;
      case ParamOwner::Capacity: {
        const auto it = job.comm.capacity_scale.find(d.name.substr(d.name.find('.') + 1));
        r = it == job.comm.capacity_scale.end() ? std::pair<Json, std::string>{1.0, d.source}
                                                : std::pair<Json, std::string>{it->second, "communicator options"};
        break;
      }
      case ParamOwner::Vgpu:
        r = vgpu_record(job, d);
        break;
    }
    if (given.has(d.name) && reg.owner.at(d.name) != ParamOwner::Vgpu) r.second = given.origin.at(d.name);
    job.params.push_back({d.name, r.first, r.second});
  }
  if (!data_parallel) return;
  // Derived values (not parameters: they follow from the ones above).
  job.params.push_back({"per_gpu_batch", job.settings.per_gpu_batch(static_cast<int>(job.ranks())),
                        "derived: batch_per_gpu (weak) or global_batch / (ranks x accumulation) (strong)", false});
  job.params.push_back({"compute.calibration_scale", rp.calibration_scale,
                        job.measured_throughput ? "derived: calibrate_to_throughput(measured_throughput)"
                                                : "default: 1 (uncalibrated roofline)",
                        false});
}

}  // namespace

TrainingJob resolve_job(const JobSpec& spec, const topo::Catalog& catalog) {
  TrainingJob job;
  if (spec.cluster.empty())
    throw InputError("", "--cluster", "missing cluster", "", "a preset name or a cluster JSON file");
  if (spec.workload.empty())
    throw InputError("", "--workload", "missing workload", "", "a model name or a model JSON file");
  if (spec.iterations < 1 || spec.iterations > 1000)
    throw InputError("", "--iterations", "bad iteration count", std::to_string(spec.iterations), "1..1000");
  job.iterations = spec.iterations;
  job.serialize_collectives = spec.serialize_collectives;
  job.reuse_collective_times = spec.reuse_collective_times;
  resolve_ranks(spec, catalog, job);
  try {
    job.model = models::load_model(spec.workload);
  } catch (const InputError& e) {
    throw at(e, spec.workload_at, "--workload");
  }
  job.params.push_back(
      {"model", job.model.name, "model file " + job.model.file + " (" + job.model.source + ")", false});

  // Every name=value is split once, checked against its declaration and handed to its owner.
  std::vector<std::pair<std::string, std::string>> assignments;
  for (const auto& kv : spec.sets) assignments.push_back(split_assignment(kv, spec.sets_origin));
  NcclKnobs version_only;
  version_only.version = requested_version(spec, assignments);
  const JobParameters registry = job_parameters(version_only.tuning(spec.sets_origin), *job.cluster);
  const JobValues given = read_job_values(registry, assignments, spec.sets_origin);

  resolve_settings(spec, given, job);
  resolve_compute(given, job);
  NcclKnobs knobs;
  resolve_nccl(spec, given, knobs, job);
  resolve_job_values(spec, given, job);
  check_batch_memory(spec, job);
  record_parameters(spec, registry, given, knobs, job);
  return job;
}

TrainingJob resolve_platform(const JobSpec& spec, const topo::Catalog& catalog, const std::vector<ParamDecl>& workload,
                             std::vector<WorkloadValue>& workload_values) {
  TrainingJob job;
  if (spec.cluster.empty())
    throw InputError("", "--cluster", "missing cluster", "", "a preset name or a cluster JSON file");
  resolve_ranks(spec, catalog, job);
  std::vector<std::pair<std::string, std::string>> assignments;
  for (const auto& kv : spec.sets) assignments.push_back(split_assignment(kv, spec.sets_origin));
  NcclKnobs version_only;
  version_only.version = requested_version(spec, assignments);
  const JobParameters registry = platform_parameters(version_only.tuning(spec.sets_origin), *job.cluster, workload);
  const JobValues given = read_job_values(registry, assignments, spec.sets_origin);
  NcclKnobs knobs;
  resolve_nccl(spec, given, knobs, job);
  resolve_job_values(spec, given, job);
  record_parameters(spec, registry, given, knobs, job, false);
  workload_values.clear();
  if (const auto it = given.by_owner.find(ParamOwner::Workload); it != given.by_owner.end())
    for (const auto& [name, value] : it->second) workload_values.push_back({name, value, given.origin.at(name)});
  return job;
}

TrainingJob with_ranks(const TrainingJob& job, std::uint32_t nodes, std::uint32_t gpus_per_node) {
  TrainingJob j = job;
  j.nodes = nodes;
  j.gpus_per_node = gpus_per_node;
  j.rank_to_endpoint = place_ranks(*j.cluster, nodes, gpus_per_node);
  return j;
}

}  // namespace vgsim::sim::training
