// The NCCL knob options shared by `vgsim collective` and `vgsim train` (--algo, --proto, --channels, --p2p-level,
// --gdr-level, --ib/p2p/shm/gdr-disable, --nccl-version), bound to one sim::NcclKnobs.
#pragma once

#include <CLI/CLI.hpp>

#include "vgsim/sim/nccl_knobs.hpp"

namespace vgsim::cli {

void add_nccl_options(CLI::App* command, sim::NcclKnobs& knobs);

}  // namespace vgsim::cli
