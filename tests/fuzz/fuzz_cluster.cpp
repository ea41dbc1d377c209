// Fuzz harness: cluster files (topo::Cluster::load against the repository's catalog). Bad input must throw InputError
// or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  static const topo::Catalog catalog = topo::Catalog::load_default();
  const std::string path = fuzz::write_temp("cluster.json", data, size);
  fuzz::accepts([&] { (void)topo::Cluster::load(path, catalog); });
  return 0;
}
