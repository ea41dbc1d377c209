// The NCCL knob options shared by `vgsim collective` and `vgsim train` (--algo, --proto, --channels, --p2p-level,
// --gdr-level, --ib/p2p/shm/gdr-disable, --nccl-version), bound to one sim::NcclKnobs, and --fold-channels.
#pragma once

#include <CLI/CLI.hpp>

#include "vgsim/sim/nccl_knobs.hpp"

namespace vgsim::cli {

void add_nccl_options(CLI::App* command, sim::NcclKnobs& knobs);

// --fold-channels (sim::CommOptions::fold_channels), shared by both commands.
inline void add_fold_channels_flag(CLI::App* command, bool& fold) {
  command->add_flag("--fold-channels", fold,
                    "approximation for large scales: simulate representative channels only (the first of each run of "
                    "channels with one GPU order, else one per ring or tree), each resource's capacity divided among "
                    "the channels that cross it; errs slow where channels would drift apart (docs/BENCHMARKS.md)");
}

}  // namespace vgsim::cli
