// NCCL's user-facing knobs as the user spells them: NCCL_ALGO, NCCL_PROTO, a pinned channel count, NCCL_P2P_LEVEL,
// NCCL_NET_GDR_LEVEL, the NCCL_*_DISABLE switches and the tuning-table version. One struct serves `vgsim
// collective`, `vgsim train`, scenario files and sweep plans; parsing and validation happen once, in apply() and
// tuning(). Empty / zero / unset means "NCCL's own choice". Not the 156 model constants (coll::NcclTuning, --set).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/sim/communicator.hpp"

namespace vgsim::sim {

struct NcclKnobs {
  std::string algo, proto;           // "ring" / "tree"; "ll" / "ll128" / "simple" (any case, NCCL spellings)
  std::uint32_t channels = 0;        // 0: from the route bottleneck, trimmed per size as NCCL does
  std::string p2p_level, gdr_level;  // LOC, NVL, PIX, PXB, PHB, SYS or a legacy integer (parse_path_level); "": PXB
  std::optional<bool> ib_disable, p2p_disable, shm_disable, gdr_disable;
  std::optional<bool> gdr_read;  // NCCL_NET_GDR_READ=1 / 0 (unset: NCCL's default by version, GPU and NVLink)
  std::string net;               // NCCL_NET: "IB" or "Socket" ("" = NCCL's choice: IB when a port is active)
  std::string socket_ifname;     // NCCL_SOCKET_IFNAME ("" = unset)
  // NCCL_SOCKET_NTHREADS (0-16) and NCCL_NSOCKS_PERTHREAD (1-64) as written ("" or "auto" = NCCL's default by
  // version and NIC vendor); checked in apply().
  std::string socket_nthreads, nsocks_perthread;
  std::string version = "2.30";  // NCCL tuning tables (coll::NcclTuning::defaults)

  // Overlays every knob `over` sets on this one (a command line over a scenario file, say).
  void merge(const NcclKnobs& over);
  // The version's tuning tables. Errors are InputErrors naming `origin` (a file; "" for the command line).
  coll::NcclTuning tuning(const std::string& origin = "") const;
  // Parses algo / proto / channels / path knobs into `opt`, leaving opt.nccl alone (so a calibration profile and
  // --set overrides applied to it survive). Errors name `origin` and the knob's option name.
  void apply(CommOptions& opt, const std::string& origin = "") const;
  // Sets one knob by its parameter name (nccl.algo, nccl.channels, ...) to a value checked against nccl_knob_params().
  void set(const std::string& name, const Json& value);
};

// The knobs as parameters, declared once here: nccl.version, nccl.algo, nccl.proto, nccl.channels, nccl.p2p_level,
// nccl.gdr_level, nccl.ib_disable, nccl.p2p_disable, nccl.shm_disable, nccl.gdr_disable, nccl.net,
// nccl.socket_ifname, nccl.gdr_read, nccl.socket_nthreads, nccl.nsocks_perthread (the names scenario files'
// "nccl" object and sweep plans use; the command line spells them --algo, --gdr-level, ... as nccl-tests does).
const std::vector<ParamDecl>& nccl_knob_params();

// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL as NCCL `nccl_version` reads them: a path-type name (LOC, NVL, PIX, PXB, PHB,
// SYS, NET; case-sensitive, as NCCL's strcmp) or an integer. Integers are NCCL's legacy numbering, not the PATH_*
// enum of the release (which moved: PIX is 2 in 2.6, 3 from 2.8; docs/SOURCES.md#nccl-versions):
// from 2.5 paths.cc ncclGetLevel maps 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS (levelsOldToNew; NCCL's env docs
// "Integer Values (Legacy)") [recalled, not read in the source; verify]; in 2.4.8 the integer is the bound of
// `distance >= level` over its enum PIX 0, PXB 1, PHB 2, NODE 3, SYS 4 (docs/SOURCES.md#nccl-paths,
// grade high for GDR, assumed for P2P), so 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 up to NODE (vgsim's PHB), 5 SYS. NCCL reads a
// larger integer as SYS; vgsim refuses it (it is most likely a PATH_* number meant otherwise). Throws UnitError
// naming the accepted names and the version's integer range.
topo::PathType parse_path_level(const std::string& value, const std::string& nccl_version);

}  // namespace vgsim::sim
