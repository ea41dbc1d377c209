// Fuzz harness: catalog files. The input is the only *.json file of a catalog directory (one file may hold gpus,
// nics, pcie_generations, cpus, mig_tables and vgpu_tables); when it loads, a preset cluster is built on it, as every
// command does with the catalog. Bad input must throw InputError or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  static const std::string preset = topo::Cluster::presets_dir() + "/r750xa-vm-2x-100gbe-gdr.json";
  const std::string path = fuzz::write_temp("catalog/catalog.json", data, size);
  fuzz::accepts([&] {
    const topo::Catalog catalog = topo::Catalog::load(std::filesystem::path(path).parent_path().string());
    (void)topo::Cluster::load(preset, catalog);
  });
  return 0;
}
