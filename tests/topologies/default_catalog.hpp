// The built-in device catalog, loaded once per test executable and shared by the topologies tests.
#pragma once

#include "vgsim/topologies/catalog.hpp"

namespace vgsim::topo::test {

inline const Catalog& cat() {
  static const Catalog c = Catalog::load_default();
  return c;
}

}  // namespace vgsim::topo::test
