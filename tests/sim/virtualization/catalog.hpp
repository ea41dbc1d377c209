// The default device catalog, loaded once per test executable (the virtualization tests resolve many presets and
// the catalog is read-only). Test helper only.
#pragma once

#include "vgsim/topologies/catalog.hpp"

namespace vgsim::test {
inline const topo::Catalog& catalog() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}
}  // namespace vgsim::test
