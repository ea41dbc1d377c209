// Resolves a JobSpec into a CpuTrainingJob with every parameter's source (see include/vgsim/sim/training/cpu_job.hpp).
#include "vgsim/sim/training/cpu_job.hpp"

#include <map>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/training/job_parameters.hpp"

namespace vgsim::sim::training {

namespace {

const char* kCpuDefaults =
    "CPU workers default (cpu_job.hpp): TF 1.x MKL trains in FP32 with Horovod; on CPU an op runs when its input is "
    "computed, so Horovod requests arrive as gradients are ready (docs/SOURCES.md#horovod)";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

const ParamRegistry& cpu_job_registry() {
  static const ParamRegistry reg = [] {
    ParamRegistry r;
    r.add(models::training_setting_params());
    r.add(models::cpu_worker_params());
    r.add(mpi_param_decls());
    for (const ParamDecl& d : job_params())
      if (d.name == "sim.horovod_tick_phases") r.add(d);
    return r;
  }();
  return reg;
}

models::CpuNodeSpec cpu_node_spec(const topo::Cluster& cl, const topo::Catalog& catalog) {
  const topo::HostInfo& h = cl.hosts().front();
  if (!h.gpus.empty())
    throw InputError(cl.file(), "$.host_templates." + h.template_name + ".gpus",
                     "CPU workers need hosts without GPUs (cluster '" + cl.name() + "')",
                     std::to_string(h.gpus.size()) + " GPUs", "\"gpus\": [] (or a GPU job: --workers gpu)");
  const topo::CpuModel& cpu = catalog.cpu(h.cpu_model);
  if (!cpu.compute)
    throw InputError(topo::Catalog::default_dir() + "/cpus.json", "$.cpus[" + cpu.key + "].compute",
                     "CPU model without per-core compute figures", "none",
                     "a \"compute\" object (fp32_flops_per_cycle, base_clock_ghz, avx512_clock_ghz, source)");
  models::CpuNodeSpec n;
  n.name = cpu.key;
  n.sockets = static_cast<int>(h.sockets);
  n.cores_per_socket = static_cast<int>(cpu.cores);
  n.fp32_flops_per_cycle = cpu.compute->fp32_flops_per_cycle;
  n.clock_hz = cpu.compute->avx512_clock_hz;
  n.memory_bandwidth = cpu.memory_bandwidth;
  return n;
}

namespace {

struct Given {
  std::vector<std::pair<std::string, Json>> settings, cpu;
  std::vector<std::string> mpi;  // "mpi.NAME=value", checked again by mpi_config_from
  std::map<std::string, std::string> origin;
  int tick_phases = 0;
};

Given read_given(const JobSpec& spec) {
  Given g;
  for (const auto& kv : spec.sets) {
    const auto [name, text] = split_assignment(kv, spec.sets_origin);
    const ParamDecl& d = cpu_job_registry().require(name, spec.sets_origin);
    const Json v = read_param(d, text, spec.sets_origin);
    g.origin[d.name] = spec.sets_origin;
    if (starts_with(d.name, "mpi."))
      g.mpi.push_back(kv);
    else if (starts_with(d.name, "cpu.") || starts_with(d.name, "tf."))
      g.cpu.emplace_back(d.name, v);
    else if (d.name == "sim.horovod_tick_phases")
      g.tick_phases = v.get<int>();
    else
      g.settings.emplace_back(d.name, v);
  }
  return g;
}

void apply_cpu(const std::vector<std::pair<std::string, Json>>& values, models::CpuWorkerParams& p) {
  for (const auto& [name, v] : values) {
    if (name == "cpu.ranks_per_node") p.ranks_per_node = v.get<int>();
    if (name == "cpu.threads_per_rank") p.threads_per_rank = v.get<int>();
    if (name == "cpu.eff_compute") p.eff_compute = v.get<double>();
    if (name == "cpu.eff_memory") p.eff_memory = v.get<double>();
    if (name == "cpu.serial_fraction") p.serial_fraction = v.get<double>();
    if (name == "cpu.oversubscription_efficiency") p.oversubscription_efficiency = v.get<double>();
    if (name == "cpu.comm_cores_per_rank") p.comm_cores_per_rank = v.get<double>();
    if (name == "cpu.optimizer_bandwidth") p.optimizer_bandwidth_GBps = v.get<double>();
    if (name == "tf.lookups_per_unit") p.lookups_per_unit = v.get<double>();
    if (name == "tf.tied_softmax_slices") p.tied_softmax_slices = v.get<bool>();
  }
}

Json cpu_value(const models::CpuWorkerParams& p, const models::CpuNodeSpec& node, const std::string& name) {
  if (name == "cpu.ranks_per_node") return p.ranks_per_node;
  if (name == "cpu.threads_per_rank") return models::rank_threads(p, node);
  if (name == "cpu.eff_compute") return p.eff_compute;
  if (name == "cpu.eff_memory") return p.eff_memory;
  if (name == "cpu.serial_fraction") return p.serial_fraction;
  if (name == "cpu.oversubscription_efficiency") return p.oversubscription_efficiency;
  if (name == "cpu.comm_cores_per_rank") return p.comm_cores_per_rank;
  if (name == "cpu.optimizer_bandwidth") return p.optimizer_bandwidth_GBps;
  if (name == "tf.lookups_per_unit") return p.lookups_per_unit;
  return p.tied_softmax_slices;  // tf.tied_softmax_slices
}

// Defaults for CPU workers < the spec's settings object (deep-merged one level) < given values.
void resolve_settings(const JobSpec& spec, const Given& given, CpuTrainingJob& job) {
  Json base = {{"batch_per_gpu", kDefaultBatchPerGpu},
               {"framework", "horovod"},
               {"precision", "fp32"},
               {"horovod", {{"requests", "ready"}}}};
  if (!spec.settings.is_object())
    throw InputError(spec.settings_origin, "settings", "wrong type", json_snippet(spec.settings), "an object");
  for (auto it = spec.settings.begin(); it != spec.settings.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
      for (auto jt = it.value().begin(); jt != it.value().end(); ++jt) base[it.key()][jt.key()] = jt.value();
    else
      base[it.key()] = it.value();
  }
  job.settings = models::parse_training_settings(base, spec.settings_origin, given.settings);
  const auto where = [&](const char* name) {
    const auto it = given.origin.find(name);
    return it == given.origin.end() ? spec.settings_origin : it->second;
  };
  if (job.settings.framework != models::Framework::Horovod)
    throw InputError(where("framework"), "framework", "CPU workers exchange gradients with Horovod over MPI",
                     models::to_string(job.settings.framework), "horovod");
  if (job.settings.precision != models::Precision::FP32)
    throw InputError(where("precision"), "precision", "CPU workers train in FP32 (TensorFlow 1.x with MKL)",
                     models::to_string(job.settings.precision), "fp32");
}

std::map<std::string, std::string> settings_sources(const JobSpec& spec, const Given& given) {
  std::map<std::string, std::string> src{
      {"framework", kCpuDefaults}, {"precision", kCpuDefaults}, {"horovod.requests", kCpuDefaults}};
  for (auto it = spec.settings.begin(); it != spec.settings.end(); ++it) {
    if (!it.value().is_object()) {
      src[it.key()] = spec.settings_origin;
      continue;
    }
    for (auto jt = it.value().begin(); jt != it.value().end(); ++jt)
      src[it.key() + "." + jt.key()] = spec.settings_origin;
  }
  for (const auto& [name, origin] : given.origin) src[name] = origin;
  return src;
}

void record_parameters(const JobSpec& spec, const Given& given, CpuTrainingJob& job) {
  const auto src = settings_sources(spec, given);
  std::map<std::string, std::string> mpi_prov(job.mpi.provenance.begin(), job.mpi.provenance.end());
  for (const ParamDecl& d : cpu_job_registry().all()) {
    const std::string& n = d.name;
    if (starts_with(n, "ddp.") || (n == "global_batch" && job.settings.scaling == models::Scaling::Weak)) continue;
    if (n == "batch_per_gpu" && job.model.unit == models::WorkUnit::Token && job.settings.tokens_per_gpu)
      continue;  // tokens_per_gpu (tokens per rank) decides
    if (starts_with(n, "mpi.")) {
      // provenance is "value  # source" (mpi_config_from)
      const auto it = mpi_prov.find(n);
      const std::string text = it == mpi_prov.end() ? std::string() : it->second;
      const auto cut = text.find("  # ");
      const std::string source = cut == std::string::npos ? d.source : text.substr(cut + 4);
      job.params.push_back({n, text.substr(0, cut), source});
      continue;
    }
    ParamRecord r{n, nullptr, given.origin.count(n) ? given.origin.at(n) : d.source};
    if (starts_with(n, "cpu.") || starts_with(n, "tf.")) {
      r.value = cpu_value(job.cpu, job.node, n);
    } else if (n == "sim.horovod_tick_phases") {
      r.value = job.tick_phases;
    } else {
      r.value = models::training_setting_value(job.settings, n);
      if (src.count(n)) r.source = src.at(n);
    }
    job.params.push_back(std::move(r));
  }
}

void record_facts(const topo::Catalog& catalog, CpuTrainingJob& job) {
  const topo::CpuModel& cpu = catalog.cpu(job.node.name);
  const std::string csrc = "catalog " + cpu.key + ": " + cpu.compute->source;
  auto& P = job.params;
  P.push_back({"cpu.model", cpu.key, "catalog " + cpu.key + ": " + cpu.source, false});
  P.push_back({"cpu.sockets", job.node.sockets, "cluster " + job.cluster->file(), false});
  P.push_back({"cpu.cores_per_socket", job.node.cores_per_socket, "catalog " + cpu.key + ": " + cpu.source, false});
  P.push_back({"cpu.fp32_flops_per_cycle", job.node.fp32_flops_per_cycle, csrc, false});
  P.push_back({"cpu.avx512_clock_ghz", job.node.clock_hz / 1e9, csrc, false});
  P.push_back({"cpu.memory_bandwidth", format_bandwidth(job.node.memory_bandwidth),
               "catalog " + cpu.key + " (per socket): " + cpu.source, false});
  P.push_back({"cpu.effective_cores_per_rank", models::effective_cores(job.cpu, job.node),
               "derived: threads_per_rank, or cores / ranks_per_node x oversubscription_efficiency", false});
  P.push_back({"cpu.comm_compute_share", models::comm_compute_share(job.cpu, job.node),
               "derived: compute lost while a collective runs (comm cores taken when no core is idle)", false});
}

}  // namespace

CpuTrainingJob resolve_cpu_job(const JobSpec& spec, const topo::Catalog& catalog) {
  CpuTrainingJob job;
  if (spec.cluster.empty())
    throw InputError("", "--cluster", "missing cluster", "", "a preset name or a cluster JSON file");
  if (spec.workload.empty())
    throw InputError("", "--workload", "missing workload", "", "a model name or a model JSON file");
  if (spec.gpus_per_node != 0 || !spec.endpoints.empty())
    throw InputError("", "--gpus-per-node", "CPU workers place ranks with cpu.ranks_per_node",
                     std::to_string(spec.gpus_per_node), "no --gpus-per-node / --endpoints");
  job.cluster = std::make_shared<const topo::Cluster>(topo::Cluster::resolve(spec.cluster, catalog));
  const topo::Cluster& cl = *job.cluster;
  const auto hosts = static_cast<std::uint32_t>(cl.hosts().size());
  job.nodes = spec.nodes ? spec.nodes : hosts;
  if (job.nodes > hosts)
    throw InputError(cl.file(), "--nodes", "not enough hosts in cluster '" + cl.name() + "'", std::to_string(job.nodes),
                     "1.." + std::to_string(hosts));
  job.node = cpu_node_spec(cl, catalog);
  job.model = models::load_model(spec.workload);
  const Given given = read_given(spec);
  resolve_settings(spec, given, job);
  apply_cpu(given.cpu, job.cpu);
  job.tick_phases = given.tick_phases > 0 ? given.tick_phases : kDefaultTickPhases;
  job.mpi = mpi_config_from(cl, catalog, given.mpi, spec.sets_origin);
  job.params.push_back({"cluster", cl.name(), "cluster " + cl.file(), false});
  job.params.push_back(
      {"nodes", job.nodes, spec.nodes ? spec.settings_origin + " / command line" : "all hosts", false});
  job.params.push_back(
      {"model", job.model.name, "model file " + job.model.file + " (" + job.model.source + ")", false});
  record_parameters(spec, given, job);
  record_facts(catalog, job);
  return job;
}

CpuTrainingJob with_nodes(const CpuTrainingJob& job, std::uint32_t nodes) {
  CpuTrainingJob j = job;
  j.nodes = nodes;
  return j;
}

}  // namespace vgsim::sim::training
