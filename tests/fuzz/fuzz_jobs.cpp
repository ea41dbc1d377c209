// Fuzz harness: jobs files (virt::load_jobs_file), then what `jobs` does before simulating: each job placed (by
// "nodes" or "mpijob" on the named cluster) and resolved. Bad input must throw InputError or UnitError only (see
// fuzz_common.hpp).
#include <optional>
#include <set>

#include "fuzz_common.hpp"
#include "vgsim/sim/jobs/multi_job.hpp"
#include "vgsim/sim/jobs/placement.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  static const topo::Catalog catalog = topo::Catalog::load_default();
  // The manifest the repository's example jobs file names, next to the jobs file as there.
  static const bool manifest_copied = [] {
    const std::string from = topo::Catalog::data_dir() + "/workloads/jobs/mpijob-resnet50-4workers.json";
    std::filesystem::create_directories(fuzz::temp_dir() + "/jobs");
    std::filesystem::copy_file(from, fuzz::temp_dir() + "/jobs/mpijob-resnet50-4workers.json",
                               std::filesystem::copy_options::overwrite_existing);
    return true;
  }();
  (void)manifest_copied;
  const std::string path = fuzz::write_temp("jobs/jobs.json", data, size);
  fuzz::accepts([&] {
    const sim::virt::MultiJobSpec spec = sim::virt::load_jobs_file(path);
    // As run_jobs() (multi_job.cpp) up to the simulation.
    std::set<std::string> taken;
    for (const auto& js : spec.jobs) taken.insert(js.endpoints.begin(), js.endpoints.end());
    std::optional<topo::Cluster> cluster;
    for (std::size_t k = 0; k < spec.jobs.size(); ++k) {
      sim::training::JobSpec js = spec.jobs[k];
      const sim::virt::JobPlacement& pl = spec.placements.size() > k ? spec.placements[k] : sim::virt::JobPlacement{};
      if (pl.nodes || pl.mpijob) {
        if (!cluster) cluster.emplace(topo::Cluster::resolve(spec.cluster, catalog));
        js.endpoints = pl.nodes ? sim::virt::place_on_nodes(*cluster, *pl.nodes, taken, spec.file, pl.path)
                                : sim::virt::place_mpijob(*cluster, *pl.mpijob, taken, spec.file, pl.path + ".mpijob");
      }
      (void)sim::training::resolve_job(js, catalog);
    }
  });
  return 0;
}
