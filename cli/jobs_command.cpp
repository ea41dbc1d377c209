// `vgsim jobs <file.json> [--json out]` (`--jobs` means worker threads elsewhere, so the file is positional): runs the
// jobs of a jobs file together (see include/vgsim/sim/jobs/multi_job.hpp) and prints one report per job with its
// slowdown from sharing.
#include "jobs_command.hpp"

#include <iostream>
#include <memory>
#include <sstream>

#include "calibration_option.hpp"
#include "catalog_option.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/sim/jobs/multi_job.hpp"

namespace vgsim::cli {

namespace {
struct JobsArgs {
  std::string file, json_out, calibration;
};
}  // namespace

void add_jobs_command(CLI::App& app) {
  auto a = std::make_shared<JobsArgs>();
  CLI::App* c = app.add_subcommand("jobs", "Simulate several training jobs at once on one cluster (vGPU sharing)");
  c->add_option("file", a->file, "jobs file: {cluster, vgpu{scheduler,time_slice,switch_cost}, jobs[...]}")->required();
  c->add_option("--json", a->json_out, "write every job's report as JSON");
  c->add_option("--calibration", a->calibration, "training profile (vgsim calibrate fit-training) for every job");
  add_catalog_option(c);
  c->callback([a] {
    const topo::Catalog catalog = topo::Catalog::load_default();
    auto spec = sim::virt::load_jobs_file(a->file);
    const auto cal = calibration_sets(a->calibration);
    for (auto& j : spec.jobs) j.sets.insert(j.sets.begin(), cal.begin(), cal.end());
    const auto r = sim::virt::run_jobs(spec, catalog);
    std::ostringstream s;
    sim::virt::write_jobs_summary(s, r);
    std::cout << s.str();
    if (!a->json_out.empty()) write_file_atomically(a->json_out, sim::virt::jobs_json(r).dump(2) + "\n");
  });
}

}  // namespace vgsim::cli
