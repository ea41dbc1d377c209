// Resolves a JobSpec into a TrainingJob with every parameter's source (see include/vgsim/sim/training/job.hpp).
#include "vgsim/sim/training/job.hpp"

#include <map>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::sim::training {

namespace {

double peak(const topo::GpuModel& g, const char* key) {
  const auto it = g.peak_flops.find(key);
  return it == g.peak_flops.end() ? 0.0 : it->second;
}

// Flattens a JSON object into dotted keys ("horovod.cycle_time").
void flatten(const Json& j, const std::string& prefix, std::map<std::string, std::string>& out, const std::string& src) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object())
      flatten(it.value(), key, out, src);
    else
      out[key] = src;
  }
}

double number_value(const std::string& origin, const std::string& key, const std::string& val) {
  try {
    std::size_t used = 0;
    const double v = std::stod(val, &used);
    if (used != val.size()) throw std::invalid_argument("trailing characters");
    return v;
  } catch (const std::exception&) {
    throw InputError(origin, key, "not a number", "'" + val + "'", "a plain number (see vgsim params)");
  }
}

const std::vector<std::string> kComputeKeys = {"compute.eff_compute", "compute.eff_memory", "compute.saturation",
                                               "compute.measured_throughput", "compute.nccl_sm_per_channel"};

Json settings_value(const models::TrainingSettings& s, const std::string& key) {
  if (key == "batch_per_gpu") return s.batch_per_gpu;
  if (key == "tokens_per_gpu") return s.tokens_per_gpu ? Json(*s.tokens_per_gpu) : Json(nullptr);
  if (key == "precision") return models::to_string(s.precision);
  if (key == "framework") return models::to_string(s.framework);
  if (key == "horovod.era") return s.horovod.era;
  if (key == "horovod.fusion_threshold") return format_bytes(s.horovod.fusion_threshold);
  if (key == "horovod.cycle_time") return format_time(s.horovod.cycle_time);
  if (key == "horovod.fp16_compression") return s.horovod.fp16_compression;
  if (key == "horovod.sparse_as_dense") return s.horovod.sparse_as_dense;
  if (key == "horovod.hierarchical_allreduce") return s.horovod.hierarchical_allreduce;
  if (key == "horovod.requests") return s.horovod.requests_at_dispatch ? "dispatch" : "ready";
  if (key == "ddp.bucket_cap_mb") return static_cast<double>(s.ddp.bucket_cap) / static_cast<double>(MiB);
  if (key == "ddp.first_bucket_mb") return static_cast<double>(s.ddp.first_bucket) / static_cast<double>(MiB);
  if (key == "grad_accumulation_steps") return s.grad_accumulation_steps;
  if (key == "scaling") return models::to_string(s.scaling);
  if (key == "global_batch") return s.global_batch ? Json(*s.global_batch) : Json(nullptr);
  if (key == "optimizer") return s.optimizer;
  if (key == "optimizer_bytes_per_param") return s.optimizer_bytes_per_param;
  return nullptr;
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
      if (o == *e) throw InputError(cl.file(), "--endpoints", "endpoint listed twice", "'" + n + "'", "distinct endpoints");
    out.push_back(*e);
    const auto& ep = cl.endpoints()[*e];
    const std::string inst = ep.vm.empty() ? cl.hosts()[ep.host].name : ep.vm;
    if (per_instance.count(inst) == 0) {
      instance_order.push_back(inst);
    } else if (instance_order.back() != inst) {
      throw InputError(cl.file(), "--endpoints", "ranks of one OS instance not contiguous", "'" + n + "'", "node-major order");
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

void apply_vgpu_sets(virt::VgpuSchedulerOptions& o, const std::vector<std::pair<std::string, std::string>>& sets,
                     const std::string& origin) {
  for (const auto& [key, val] : sets) {
    try {
      if (key == "vgpu.scheduler") {
        o.policy = virt::parse_vgpu_policy(val);
        o.policy_source = origin;
      } else if (key == "vgpu.time_slice") {
        o.time_slice = parse_time(val);
        o.time_slice_source = origin;
      } else if (key == "vgpu.switch_cost") {
        o.switch_cost = parse_time(val);
        o.switch_cost_source = origin;
      } else {
        const std::string dym = did_you_mean(key, {"vgpu.scheduler", "vgpu.time_slice", "vgpu.switch_cost"});
        throw InputError(origin, key, "unknown vGPU parameter", "'" + key + "'",
                         (dym.empty() ? std::string() : "did you mean '" + dym + "'? ") +
                             "one of vgpu.scheduler, vgpu.time_slice, vgpu.switch_cost");
      }
    } catch (const UnitError& e) {
      throw InputError(origin, key, "bad value", "'" + val + "'", e.what());
    }
  }
  if (o.switch_cost.ps < 0 || o.time_slice.ps <= o.switch_cost.ps)
    throw InputError(origin, "vgpu.time_slice", "time slice not above the switch cost",
                     format_time(o.time_slice) + " vs " + format_time(o.switch_cost), "time_slice > switch_cost >= 0");
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

TrainingJob resolve_job(const JobSpec& spec, const topo::Catalog& catalog) {
  TrainingJob job;
  auto& P = job.params;
  if (spec.cluster.empty()) throw InputError("", "--cluster", "missing cluster", "", "a preset name or a cluster JSON file");
  if (spec.workload.empty()) throw InputError("", "--workload", "missing workload", "", "a model name or a model JSON file");
  if (spec.iterations < 1 || spec.iterations > 1000)
    throw InputError("", "--iterations", "bad iteration count", std::to_string(spec.iterations), "1..1000");
  job.iterations = spec.iterations;
  job.serialize_collectives = spec.serialize_collectives;
  job.reuse_collective_times = spec.reuse_collective_times;

  // An error reported against an option ("--cluster", "--workload", "--endpoints") moves to where the value was given
  // when that is a file (a scenario, jobs or plan file).
  auto at = [](const InputError& e, const std::pair<std::string, std::string>& where, const char* option) {
    return e.json_path() == option && !where.first.empty() ? e.located(where.first, where.second) : e;
  };
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
  P.push_back({"cluster", cl.name(), "cluster " + cl.file()});
  P.push_back({"nodes", job.nodes, spec.nodes ? spec.settings_origin + " / command line" : "default: all OS instances (hosts or VMs)"});
  P.push_back({"gpus_per_node", job.gpus_per_node,
               spec.gpus_per_node ? spec.settings_origin + " / command line" : "default: all GPUs of the first OS instance"});

  // GPU: data-parallel ranks are symmetric; a mix of GPU kinds (or of MIG slice sizes) is not modelled.
  const auto& eps = cl.endpoints();
  const topo::GpuEndpoint& e0 = eps[job.rank_to_endpoint[0]];
  const topo::GpuModel& g0 = cl.gpu_model(e0.gpu);
  for (std::uint32_t e : job.rank_to_endpoint) {
    const topo::GpuEndpoint& ep = eps[e];
    if (cl.gpu_model(ep.gpu).key != g0.key || ep.compute_fraction != e0.compute_fraction ||
        ep.mode != e0.mode || ep.profile != e0.profile)
      throw InputError(cl.file(), "ranks", "ranks on different GPU kinds are not supported",
                       ep.name + " (" + cl.gpu_model(ep.gpu).key + (ep.profile.empty() ? "" : " " + ep.profile) + ")",
                       "every rank like " + e0.name + " (" + g0.key + (e0.profile.empty() ? "" : " " + e0.profile) + ")");
  }
  job.gpu = gpu_compute_spec(g0);
  if (e0.mode == "mig") {  // a MIG instance gets a fixed share of the SMs and of the memory bandwidth (A4)
    job.gpu.sm_fraction = e0.compute_fraction;
    job.gpu.memory_fraction = e0.memory_fraction;
    P.push_back({"gpu.mig_profile", e0.profile, "cluster " + cl.file()});
    P.push_back({"gpu.sm_fraction", e0.compute_fraction, "catalog MIG table (SMs of the instance / SMs of the GPU)"});
    P.push_back({"gpu.memory_fraction", e0.memory_fraction, "catalog MIG table (memory slices / 8)"});
  }
  const std::string gsrc = "catalog " + g0.key + ": " + g0.source;
  P.push_back({"gpu.model", g0.key, gsrc});
  P.push_back({"gpu.sms", job.gpu.sm_count, gsrc});
  P.push_back({"gpu.memory_bandwidth", format_bandwidth(job.gpu.memory_bandwidth), gsrc});
  for (const auto& [k, v] : g0.peak_flops) P.push_back({"gpu.peak_flops." + k, v, gsrc});

  try {
    job.model = models::load_model(spec.workload);
  } catch (const InputError& e) {
    throw at(e, spec.workload_at, "--workload");
  }
  P.push_back({"model", job.model.name, "model file " + job.model.file + " (" + job.model.source + ")"});

  // Split the key=value pairs by prefix.
  std::vector<std::string> train_pairs;
  std::map<std::string, double> compute_sets, nccl_sets, scale_sets;
  std::vector<std::pair<std::string, std::string>> vgpu_sets;
  for (const auto& kv : spec.sets) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(spec.sets_origin, "", "not a key=value pair", "'" + kv + "'",
                       "key=value, e.g. batch_per_gpu=256, compute.eff_compute=0.5, nccl.base_latency.ring.simple=8.4");
    const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (key.rfind("compute.", 0) == 0) {
      bool known = false;
      for (const auto& k : kComputeKeys) known = known || k == key;
      if (!known) {
        const std::string dym = did_you_mean(key, kComputeKeys);
        throw InputError(spec.sets_origin, key, "unknown compute parameter", "'" + key + "'",
                         (dym.empty() ? std::string() : "did you mean '" + dym + "'? ") + "one of compute.eff_compute, "
                         "compute.eff_memory, compute.saturation, compute.measured_throughput, compute.nccl_sm_per_channel");
      }
      compute_sets[key] = number_value(spec.sets_origin, key, val);
    } else if (key.rfind("vgpu.", 0) == 0) {
      vgpu_sets.emplace_back(key, val);
    } else if (key.rfind("nccl.", 0) == 0) {
      nccl_sets[key] = number_value(spec.sets_origin, key, val);
    } else if (key.rfind("capacity_scale.", 0) == 0) {
      // Capacity multiplier of every resource of one kind (nic-port, pcie, socket-threads, ...; Fabric), e.g. an
      // achievable fraction of line rate fitted by `vgsim calibrate fit-training`.
      const double v = number_value(spec.sets_origin, key, val);
      if (!(v > 0.0 && v <= 1000.0) || key.size() == std::string("capacity_scale.").size())
        throw InputError(spec.sets_origin, key, "capacity scale out of range", "'" + kv + "'",
                         "capacity_scale.<resource kind>=x with 0 < x <= 1000, e.g. capacity_scale.nic-port=0.95");
      scale_sets[key.substr(std::string("capacity_scale.").size())] = v;
    } else {
      train_pairs.push_back(kv);
    }
  }

  // Training settings: defaults < spec.settings (scenario) < --set.
  Json base = Json::object();
  base["batch_per_gpu"] = kDefaultBatchPerGpu;
  if (!spec.settings.is_object())
    throw InputError(spec.settings_origin, "settings", "wrong type", json_snippet(spec.settings), "an object");
  for (auto it = spec.settings.begin(); it != spec.settings.end(); ++it) base[it.key()] = it.value();
  job.settings = models::parse_training_settings(
      base,
      train_pairs.empty() || spec.sets_origin == spec.settings_origin ? spec.settings_origin
                                                                      : spec.settings_origin + " + " + spec.sets_origin,
      train_pairs);
  std::map<std::string, std::string> src;
  src["batch_per_gpu"] = "default [assumption]: 64, tf_cnn_benchmarks batch (workloads.md table 2)";
  flatten(spec.settings, "", src, spec.settings_origin);
  for (const auto& kv : train_pairs) src[kv.substr(0, kv.find('='))] = spec.sets_origin;
  if (job.settings.scaling == models::Scaling::Strong && src["batch_per_gpu"].rfind("default", 0) == 0)
    src["batch_per_gpu"] = "unused under strong scaling (global_batch / ranks)";
  for (const char* key : {"batch_per_gpu", "tokens_per_gpu", "precision", "framework", "horovod.era",
                          "horovod.fusion_threshold", "horovod.cycle_time", "horovod.fp16_compression",
                          "horovod.sparse_as_dense", "horovod.hierarchical_allreduce", "horovod.requests", "ddp.bucket_cap_mb",
                          "ddp.first_bucket_mb", "grad_accumulation_steps", "scaling", "global_batch", "optimizer",
                          "optimizer_bytes_per_param"}) {
    const std::string k = key;
    if (k.rfind("horovod.", 0) == 0 && job.settings.framework != models::Framework::Horovod) continue;
    if (k.rfind("ddp.", 0) == 0 && job.settings.framework != models::Framework::DDP) continue;
    std::string s = src.count(k) ? src[k] : "";
    if (s.empty() && (k == "horovod.fusion_threshold" || k == "horovod.cycle_time") && src.count("horovod.era"))
      s = "from horovod.era (" + src["horovod.era"] + "), workloads.md B8";
    if (s.empty() && k == "horovod.requests")
      s = "default: requests queued when the framework dispatches the op, ahead of the GPU (TF graph mode, "
          "tf_cnn_benchmarks; horovod-internals.md 4, 7)";
    if (s.empty() && k == "optimizer_bytes_per_param") s = "derived from optimizer and precision (training_settings.hpp)";
    if (s.empty()) s = "default (training_settings.hpp; workloads.md B8 for framework defaults)";
    P.push_back({"settings." + k, settings_value(job.settings, k), s});
  }
  P.push_back({"settings.per_gpu_batch", job.settings.per_gpu_batch(static_cast<int>(job.ranks())),
               "derived: batch_per_gpu (weak) or global_batch / (ranks x accumulation) (strong)"});

  // Compute model: --set compute.* < defaults/model file; calibrated mode when a measured throughput is given.
  if (compute_sets.count("compute.eff_compute")) job.compute.eff_compute = compute_sets["compute.eff_compute"];
  if (compute_sets.count("compute.eff_memory")) job.compute.eff_memory = compute_sets["compute.eff_memory"];
  if (compute_sets.count("compute.saturation")) job.compute.saturation = compute_sets["compute.saturation"];
  for (const char* k : {"compute.eff_compute", "compute.eff_memory"})
    if (compute_sets.count(k) && !(compute_sets[k] > 0.0 && compute_sets[k] <= 1.0))
      throw InputError(spec.sets_origin, k, "efficiency out of range", std::to_string(compute_sets[k]), "a fraction in (0, 1]");
  if (compute_sets.count("compute.saturation") && !(compute_sets["compute.saturation"] > 0.0))
    throw InputError(spec.sets_origin, "compute.saturation", "non-positive saturation batch",
                     std::to_string(compute_sets["compute.saturation"]), "units > 0");
  if (compute_sets.count("compute.nccl_sm_per_channel")) {
    const double v = compute_sets["compute.nccl_sm_per_channel"];
    if (!(v >= 0.0 && v <= 64.0))
      throw InputError(spec.sets_origin, "compute.nccl_sm_per_channel", "SMs per NCCL channel out of range",
                       std::to_string(v), "0 (no slowdown) .. 64 SMs");
    job.nccl_sm_per_channel = v;
  }
  if (compute_sets.count("compute.measured_throughput")) {
    job.measured_throughput = compute_sets["compute.measured_throughput"];
    job.compute = models::calibrate_to_throughput(job.model, job.settings, job.gpu, job.compute, *job.measured_throughput);
  }
  const models::ResolvedComputeParams rp = models::resolve(job.compute, job.model, job.settings.precision, job.gpu);
  auto csrc = [&](const std::string& key, bool from_model) {
    if (compute_sets.count(key)) return spec.sets_origin;
    if (from_model) return "model file " + job.model.file;
    return std::string("per-math-path default (compute_model.hpp: default_eff_compute, sources in workloads/models/README.md)");
  };
  P.push_back({"compute.eff_compute", rp.eff_compute, csrc("compute.eff_compute", job.model.eff_compute.has_value())});
  P.push_back({"compute.eff_memory", rp.eff_memory, csrc("compute.eff_memory", job.model.eff_memory.has_value())});
  P.push_back({"compute.saturation", rp.saturation,
               compute_sets.count("compute.saturation") ? spec.sets_origin
               : job.model.saturation_batch ? "model file " + job.model.file
                                            : std::string("default [assumption] (compute_model.hpp)")});
  if (job.measured_throughput)
    P.push_back({"compute.measured_throughput", *job.measured_throughput, spec.sets_origin + " (calibrated mode)"});
  P.push_back({"compute.nccl_sm_per_channel", job.nccl_sm_per_channel,
               compute_sets.count("compute.nccl_sm_per_channel")
                   ? spec.sets_origin
                   : std::string("default: one CTA (one SM) per NCCL channel, enqueue.cc grid = nChannels "
                                 "(compute_clock.hpp); backward slows by channels x this / gpu.sms while a collective runs")});
  P.push_back({"compute.calibration_scale", rp.calibration_scale,
               job.measured_throughput ? "derived: calibrate_to_throughput(measured_throughput)" : "default: 1 (uncalibrated roofline)"});

  // NCCL options.
  const NcclKnobs& kn = spec.nccl;
  job.comm.nccl = kn.tuning();
  for (const auto& [k, v] : nccl_sets) {
    try {
      job.comm.nccl.set(k, v);
    } catch (const UnitError& e) {
      throw InputError(spec.sets_origin, k, "bad NCCL parameter", std::to_string(v), e.what());
    }
  }
  kn.apply(job.comm);
  job.comm.max_transfers = spec.max_transfers;
  auto nsrc = [&](bool given) { return given ? spec.nccl_origin : std::string("NCCL default"); };
  P.push_back({"nccl.version", job.comm.nccl.version,
               "tuning tables (--nccl-version)" +
                   (job.comm.nccl.approximation.empty() ? std::string() : "; " + job.comm.nccl.approximation)});
  P.push_back({"nccl.algo", kn.algo.empty() ? "auto" : kn.algo, nsrc(!kn.algo.empty())});
  P.push_back({"nccl.proto", kn.proto.empty() ? "auto" : kn.proto, nsrc(!kn.proto.empty())});
  P.push_back({"nccl.channels", kn.channels ? Json(kn.channels) : Json("auto"), nsrc(kn.channels != 0)});
  P.push_back({"nccl.p2p_level", topo::to_string(job.comm.path.p2p_level), nsrc(!kn.p2p_level.empty())});
  P.push_back({"nccl.gdr_level", topo::to_string(job.comm.path.gdr_level), nsrc(!kn.gdr_level.empty())});
  P.push_back({"nccl.ib_disable", job.comm.path.ib_disable, nsrc(kn.ib_disable.has_value())});
  P.push_back({"nccl.p2p_disable", job.comm.path.p2p_disable, nsrc(kn.p2p_disable.has_value())});
  P.push_back({"nccl.shm_disable", job.comm.path.shm_disable, nsrc(kn.shm_disable.has_value())});
  P.push_back({"nccl.gdr_disable", job.comm.path.gdr_disable, nsrc(kn.gdr_disable.has_value())});
  for (const auto& prm : job.comm.nccl.list())
    P.push_back({prm.name, prm.value, nccl_sets.count(prm.name) ? spec.sets_origin : prm.source});
  for (const auto& [kind, scale] : scale_sets) job.comm.capacity_scale[kind] = scale;
  for (const auto& [kind, scale] : job.comm.capacity_scale)
    P.push_back({"capacity_scale." + kind, scale, scale_sets.count(kind) ? spec.sets_origin : "communicator options"});
  // Virtualization: the VM's compute efficiency and the vGPU scheduler.
  if (e0.vm_index != UINT32_MAX) {
    const topo::VmInfo& vm = cl.vms()[e0.vm_index];
    job.compute_efficiency = vm.overheads.compute_efficiency;
    P.push_back({"virt.compute_efficiency", job.compute_efficiency,
                 "hypervisor " + vm.overheads.hypervisor + ": " + vm.overheads.compute_source});
  } else {
    P.push_back({"virt.compute_efficiency", 1.0, "bare metal"});
  }
  apply_vgpu_sets(job.vgpu, vgpu_sets, spec.sets_origin);
  P.push_back({"vgpu.scheduler", virt::to_string(job.vgpu.policy), job.vgpu.policy_source});
  P.push_back({"vgpu.time_slice", format_time(job.vgpu.time_slice), job.vgpu.time_slice_source});
  P.push_back({"vgpu.switch_cost", format_time(job.vgpu.switch_cost), job.vgpu.switch_cost_source});
  P.push_back({"sim.iterations", job.iterations, "--iterations (default 3)"});
  if (job.settings.framework == models::Framework::Horovod && job.ranks() > 1)
    P.push_back({"sim.horovod_tick_phases", job.tick_phases,
                 "assumption: uniform phase, K samples (steady state = mean over K evenly spaced cycle-tick phases; "
                 "job.hpp kDefaultTickPhases)"});
  P.push_back({"sim.serialize_collectives", job.serialize_collectives, "one NCCL stream (default)"});
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
