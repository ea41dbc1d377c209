// `vgsim params` lists every overridable model parameter with its value and source: NCCL's model constants alone
// (--nccl-version), or, given a job (--scenario, or --cluster and --workload, plus --set), every parameter that job
// would use — training settings, compute.*, nccl.*, vgpu.*, virtualization — exactly as `vgsim train --json` records
// them. `vgsim presets` lists the cluster presets.
#include "params_command.hpp"
#include "catalog_option.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/scenarios.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::cli {

namespace {
struct ParamsArgs {
  std::string version = "2.30";
  std::string scenario, cluster, workload;
  std::vector<std::string> sets;
};

std::string text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v.get<double>());
    return buf;
  }
  return v.dump();
}

void run(const ParamsArgs& a) {
  if (a.scenario.empty() && a.cluster.empty() && a.workload.empty()) {
    if (!a.sets.empty())  // the NCCL constants alone take no overrides: they would be silently ignored
      throw InputError("", "--set", "needs a job", a.sets.front(), "--scenario S, or --cluster C --workload W, with it");
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
  if (!a.scenario.empty()) spec = sim::training::load_scenario(a.scenario).spec;
  if (!a.cluster.empty()) spec.cluster = a.cluster, spec.cluster_at = {"", "--cluster"};
  if (!a.workload.empty()) spec.workload = a.workload, spec.workload_at = {"", "--workload"};
  for (const auto& kv : a.sets) spec.sets.push_back(kv);
  spec.nccl.version = a.version;
  const topo::Catalog catalog = topo::Catalog::load_default();
  const sim::training::TrainingJob job = sim::training::resolve_job(spec, catalog);
  for (const auto& p : job.params) std::cout << p.name << " = " << text(p.value) << "  # " << p.source << "\n";
}
}  // namespace

void add_params_command(CLI::App& app) {
  CLI::App* p = app.add_subcommand(
      "params", "List model parameters with their values and sources (NCCL constants; or every parameter of a job)");
  auto a = std::make_shared<ParamsArgs>();
  p->add_option("--nccl-version", a->version, "NCCL release 2.4 .. 2.30 whose tuning tables to list (what is approximated is said first)")->capture_default_str();
  p->add_option("--scenario", a->scenario, "list every parameter this training scenario uses");
  p->add_option("--cluster", a->cluster, "with --workload: list every parameter of this job");
  p->add_option("--workload", a->workload, "model library name or model JSON file");
  p->add_option("--set", a->sets, "key=value overrides, as for vgsim train");
  add_catalog_option(p);
  p->callback([a] { run(*a); });
  CLI::App* s = app.add_subcommand("presets", "List cluster presets");
  s->callback([] {
    for (const auto& n : topo::Cluster::preset_names()) std::cout << n << "\n";
  });
}

}  // namespace vgsim::cli
