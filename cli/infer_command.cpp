// `vgsim infer --cluster <preset|file> --workload <model|file> [--batch B] [--endpoints a,b|--all-endpoints]
// [--set k=v] [--batches N] [--json file]`: runs batches of forward passes on every chosen endpoint at once and prints
// samples/s and latency per batch per endpoint plus the aggregate. Bad input is an InputError (exit 2).
#include "infer_command.hpp"

#include <iostream>
#include <memory>
#include <sstream>

#include "catalog_option.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/sim/inference/inference.hpp"

namespace vgsim::cli {

namespace {
struct InferArgs {
  sim::virt::InferenceSpec spec;
  std::string json_out;
};
}  // namespace

void add_infer_command(CLI::App& app) {
  auto a = std::make_shared<InferArgs>();
  CLI::App* c = app.add_subcommand("infer", "Simulate inference (forward-only) throughput per GPU endpoint");
  c->add_option("--cluster", a->spec.cluster, "cluster preset name or JSON file")->required();
  c->add_option("--workload", a->spec.workload, "model library name or model JSON file")->required();
  add_catalog_option(c);
  c->add_option("--batch", a->spec.batch, "samples per batch (default 8 [assumption])");
  c->add_option("--batches", a->spec.batches, "batches per endpoint (default 20)");
  c->add_option("--endpoints", a->spec.endpoints, "endpoint names (comma separated), e.g. host0/mig0/gpu0/1g.10gb@0")
      ->delimiter(',');
  c->add_flag("--all-endpoints", a->spec.all_endpoints, "run on every endpoint of the cluster at once");
  c->add_option("--set", a->spec.sets, "override: precision=amp, compute.*, vgpu.scheduler/time_slice/switch_cost");
  c->add_option("--json", a->json_out, "write the report as JSON");
  c->callback([a] {
    const topo::Catalog catalog = topo::Catalog::load_default();
    const auto r = sim::virt::simulate_inference(a->spec, catalog);
    std::ostringstream s;
    sim::virt::write_inference_summary(s, r);
    std::cout << s.str();
    if (!a->json_out.empty()) write_file_atomically(a->json_out, sim::virt::inference_json(r).dump(2) + "\n");
  });
}

}  // namespace vgsim::cli
