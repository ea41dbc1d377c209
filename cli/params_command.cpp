// `vgsim params` lists every overridable model parameter with its value and source: NCCL's model constants alone
// (--nccl-version), or, given a job (--scenario, or --cluster and --workload, plus --set), every parameter that job
// accepts (exactly the names --set, scenario files and sweep plans take: the job's parameter registry,
// sim/training/job_parameters.hpp), then the job's catalog facts and derived values as comments. `vgsim presets`
// lists the cluster presets.
#include "params_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "catalog_option.hpp"
#include "collective_mpi.hpp"
#include "vgsim/sim/llm/llm_job.hpp"
#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/sim/training/cpu_job.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/job_parameters.hpp"
#include "vgsim/sim/training/scenarios.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::cli {

namespace {
struct ParamsArgs {
  std::string version = "2.30";
  std::string scenario, cluster, workload;
  std::string workers;  // "", "gpu" or "cpu" ("": the scenario's, else gpu)
  std::vector<std::string> sets;
  bool json = false;
  std::string library;  // "mpi": the Open MPI model's parameters (collective_mpi.hpp)
};

// One declaration with its value, as `vgsim params --json` writes it.
Json declaration_json(const ParamDecl& d, const sim::training::ParamRecord& p) {
  Json j = {{"name", p.name}, {"value", p.value}, {"source", p.source}, {"type", to_string(d.type)}};
  if (!d.unit.empty()) j["unit"] = d.unit;
  if (std::isfinite(d.min)) j[d.min_open ? "above" : "min"] = d.min;
  if (std::isfinite(d.max)) j["max"] = d.max;
  if (!d.choices.empty()) j["choices"] = d.choices;
  j["help"] = d.help;
  return j;
}

// Parameters first (what --set accepts, `name = value  # source`), then the job's facts and derived values as
// comments: they are shown, not set. `reg` declares every settable name of `params`.
template <class Records>
void print_listing(const Records& params, const ParamRegistry& reg, bool json) {
  if (json) {
    Json decls = Json::array(), facts = Json::array();
    for (const auto& p : params) {
      if (p.settable)
        decls.push_back(declaration_json(*reg.find(p.name), p));
      else
        facts.push_back({{"name", p.name}, {"value", p.value}, {"source", p.source}});
    }
    std::cout << Json{{"parameters", decls}, {"facts", facts}}.dump(2) << "\n";
    return;
  }
  for (const auto& p : params)
    if (p.settable) std::cout << p.name << " = " << param_text(p.value) << "  # " << p.source << "\n";
  std::cout << "# facts of this job (catalog, cluster and derived values; not parameters):\n";
  for (const auto& p : params)
    if (!p.settable) std::cout << "#   " << p.name << " = " << param_text(p.value) << "  # " << p.source << "\n";
}

// A GPU job's registry carries its NCCL release's constants and its cluster's resource kinds.
void print_job(const sim::training::TrainingJob& job, bool json) {
  print_listing(job.params, sim::training::job_parameters(job.comm.nccl, *job.cluster).registry, json);
}

// A CPU-worker job (cpu_job.hpp): its registry is cpu_job_registry().
void print_cpu_job(const sim::training::CpuTrainingJob& job, bool json) {
  print_listing(job.params, sim::training::cpu_job_registry(), json);
}

// A large-model job (sim/llm): the platform's registry plus the plan's and the layer model's declarations.
void print_llm_job(const sim::llm::LlmJob& job, bool json) {
  print_listing(
      job.params,
      sim::training::platform_parameters(job.platform.comm.nccl, *job.platform.cluster, sim::llm::llm_workload_params())
          .registry,
      json);
}

void run(const ParamsArgs& a) {
  if (a.library == "mpi") return print_mpi_params(a.cluster, a.sets);
  if (a.scenario.empty() && a.cluster.empty() && a.workload.empty()) {
    if (!a.sets.empty())  // the NCCL constants alone take no overrides: they would be silently ignored
      throw InputError("", "--set", "needs a job", a.sets.front(),
                       "--scenario S, or --cluster C --workload W, with it");
    sim::NcclKnobs kn;
    kn.version = a.version;
    const auto t = kn.tuning();  // an unknown version is an InputError naming --nccl-version
    if (!t.approximation.empty()) std::cout << "# " << t.approximation << "\n";
    for (const auto& prm : t.list()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", prm.value);
      std::cout << prm.name << " = " << buf << " " << prm.unit << "  # " << prm.source << "\n";
    }
    return;
  }
  sim::training::JobSpec spec;
  std::string workers = a.workers.empty() ? "gpu" : a.workers;
  if (!a.scenario.empty()) {
    const auto sc = sim::training::load_scenario(a.scenario);
    spec = sc.spec;
    if (a.workers.empty()) workers = sc.workers;
  }
  if (!a.cluster.empty()) spec.cluster = a.cluster, spec.cluster_at = {"", "--cluster"};
  if (!a.workload.empty()) spec.workload = a.workload, spec.workload_at = {"", "--workload"};
  for (const auto& kv : a.sets) spec.sets.push_back(kv);
  if (!a.sets.empty()) spec.sets_origin = a.scenario.empty() ? "--set" : spec.sets_origin + " / --set";  // as train
  spec.nccl.version = a.version;
  const topo::Catalog catalog = topo::Catalog::load_default();
  if (workers == "cpu") return print_cpu_job(sim::training::resolve_cpu_job(spec, catalog), a.json);
  if (sim::llm::is_llm_workload(spec.workload)) return print_llm_job(sim::llm::resolve_llm_job(spec, catalog), a.json);
  print_job(sim::training::resolve_job(spec, catalog), a.json);
}
}  // namespace

void add_params_command(CLI::App& app) {
  CLI::App* p = app.add_subcommand(
      "params", "List model parameters with their values and sources (NCCL constants; or every parameter of a job)");
  auto a = std::make_shared<ParamsArgs>();
  p->add_option("--nccl-version", a->version,
                "NCCL release 2.4 .. 2.30 whose tuning tables to list (what is approximated is said first)")
      ->capture_default_str();
  p->add_option("--scenario", a->scenario, "list every parameter this training scenario uses");
  p->add_option("--cluster", a->cluster, "with --workload: list every parameter of this job");
  p->add_option("--workload", a->workload, "model library name or model JSON file");
  p->add_option("--workers", a->workers, "gpu or cpu workers (default: the scenario's, else gpu)")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  p->add_option("--set", a->sets, "name=value overrides, as for vgsim train (the names this command lists)");
  p->add_flag("--json", a->json,
              "with a job: every parameter with its declaration (type, unit, bounds, choices, help) "
              "and the job's facts, as JSON");
  p->add_option("--library", a->library, "mpi: the Open MPI model's mpi.* parameters (with --cluster, --set)")
      ->check(CLI::IsMember({"mpi"}));
  add_catalog_option(p);
  p->callback([a] { run(*a); });
  CLI::App* s = app.add_subcommand("presets", "List cluster presets");
  s->callback([] {
    for (const auto& n : topo::Cluster::preset_names()) std::cout << n << "\n";
  });
}

}  // namespace vgsim::cli
