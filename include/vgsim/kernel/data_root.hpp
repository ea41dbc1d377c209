// Where vgsim's data (topologies/catalog, topologies/presets, workloads/models, workloads/scenarios, workloads/plans)
// is found at run time, one rule for every reader: $VGSIM_DATA_DIR when set; else <the running executable's
// folder>/../share/vgsim when it holds topologies/catalog (an installed tree, `cmake --install`); else the source tree
// the library was built from (`build_tree`).
#pragma once

#include <string>

namespace vgsim {

std::string data_root(const std::string& build_tree);

}  // namespace vgsim
