// Fuzz harness: Kubernetes MPIJob manifests (virt::load_mpijob), then placed on a VM cluster preset as `jobs` does
// (virt::place_mpijob). Bad input must throw InputError or UnitError only (see fuzz_common.hpp).
#include <set>

#include "fuzz_common.hpp"
#include "vgsim/sim/jobs/placement.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  static const topo::Catalog catalog = topo::Catalog::load_default();
  static const topo::Cluster cluster = topo::Cluster::resolve("r750xa-vm-4x-100gbe-gdr", catalog);
  const std::string path = fuzz::write_temp("mpijob.json", data, size);
  fuzz::accepts([&] {
    const sim::virt::MpiJob job = sim::virt::load_mpijob(path);
    std::set<std::string> taken;
    (void)sim::virt::place_mpijob(cluster, job, taken, path, "$.mpijob");
  });
  return 0;
}
