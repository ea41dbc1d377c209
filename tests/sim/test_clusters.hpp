// Shared fixtures of the engine tests (tests/sim): the default catalog, loaded once, and a small inline cluster.
#pragma once

#include "vgsim/topologies/catalog.hpp"

namespace vgsim::test {

inline const topo::Catalog& catalog() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}

// Two hosts of two A100 PCIe each, one single-port 100 GbE NIC per host behind the GPUs' PCIe switch: the smallest
// multi-node cluster whose inter-node traffic all crosses one NIC port per host.
inline constexpr const char* kTwoHostsTwoGpusOneNic = R"({
  "name": "test-2x2-one-nic",
  "host_templates": {"node": {
    "cpu": "xeon-gold-6338", "sockets": 1,
    "pcie_switches": [{"name": "sw0", "gen": "gen4", "lanes": 16, "attach": "socket0"}],
    "gpus": [{"name": "gpu0", "model": "a100-pcie-40gb", "attach": "sw0"},
             {"name": "gpu1", "model": "a100-pcie-40gb", "attach": "sw0"}],
    "nics": [{"name": "nic0", "model": "connectx-6-dx-100g", "ports": 1, "attach": "sw0"}]}},
  "hosts": [{"template": "node", "count": 2}],
  "fabric": {"type": "switch", "link_latency": "20ns", "switch_latency": "0.5us", "source": "test"}
})";

}  // namespace vgsim::test
