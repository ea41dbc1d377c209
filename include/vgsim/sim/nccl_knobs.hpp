// NCCL's user-facing knobs as the user spells them: NCCL_ALGO, NCCL_PROTO, a pinned channel count, NCCL_P2P_LEVEL,
// NCCL_NET_GDR_LEVEL, the NCCL_*_DISABLE switches and the tuning-table version. One struct serves `vgsim
// collective`, `vgsim train`, scenario files and sweep plans; parsing and validation happen once, in apply() and
// tuning(). Empty / zero / unset means "NCCL's own choice". Not the 156 model constants (coll::NcclTuning, --set).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vgsim/sim/communicator.hpp"

namespace vgsim::sim {

struct NcclKnobs {
  std::string algo, proto;          // "ring" / "tree"; "ll" / "ll128" / "simple" (any case, NCCL spellings)
  std::uint32_t channels = 0;       // 0: from the route bottleneck, trimmed per size as NCCL does
  std::string p2p_level, gdr_level;  // LOC, NVL, PIX, PXB, PHB, SYS (empty: PXB, NCCL's default)
  std::optional<bool> ib_disable, p2p_disable, shm_disable, gdr_disable;
  std::string version = "2.30";     // NCCL tuning tables (coll::NcclTuning::defaults)

  // Overlays every knob `over` sets on this one (a command line over a scenario file, say).
  void merge(const NcclKnobs& over);
  // The version's tuning tables. Errors are InputErrors naming `origin` (a file; "" for the command line).
  coll::NcclTuning tuning(const std::string& origin = "") const;
  // Parses algo / proto / channels / path knobs into `opt`, leaving opt.nccl alone (so a calibration profile and
  // --set overrides applied to it survive). Errors name `origin` and the knob's option name.
  void apply(CommOptions& opt, const std::string& origin = "") const;
};

}  // namespace vgsim::sim
