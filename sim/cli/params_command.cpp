// `vgsim params` lists every overridable model parameter with its default and source; `vgsim presets` lists presets.
#include "params_command.hpp"

#include <cstdio>
#include <iostream>

#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::cli {

void add_params_command(CLI::App& app) {
  CLI::App* p = app.add_subcommand("params", "List model parameters with defaults, units and sources");
  auto version = std::make_shared<std::string>("2.30");
  p->add_option("--nccl-version", *version, "NCCL tuning tables")->capture_default_str();
  p->callback([version] {
    const auto t = coll::NcclTuning::defaults(*version);
    for (const auto& prm : t.list()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", prm.value);
      std::cout << prm.name << " = " << buf << " " << prm.unit << "  # " << prm.source << "\n";
    }
  });
  CLI::App* s = app.add_subcommand("presets", "List cluster presets");
  s->callback([] {
    for (const auto& n : topo::Cluster::preset_names()) std::cout << n << "\n";
  });
}

}  // namespace vgsim::cli
