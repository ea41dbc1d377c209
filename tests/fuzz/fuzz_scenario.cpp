// Fuzz harness: scenario files (training::load_scenario by path), then the job it names resolved as `train
// --scenario file` does before simulating (cluster, model, settings, --set pairs; a GPU or a CPU-worker job). Bad input
// must throw InputError or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "vgsim/sim/training/cpu_job.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/scenarios.hpp"
#include "vgsim/topologies/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  static const topo::Catalog catalog = topo::Catalog::load_default();
  const std::string path = fuzz::write_temp("scenario.json", data, size);
  fuzz::accepts([&] {
    const sim::training::Scenario s = sim::training::load_scenario(path);
    if (s.workers == "cpu")
      (void)sim::training::resolve_cpu_job(s.spec, catalog);
    else
      (void)sim::training::resolve_job(s.spec, catalog);
  });
  return 0;
}
