// The collective-algorithm registry: one record per algorithm (ring, tree, NVLS, NVLS Tree, and any registered
// later) holding everything vgsim knows about it: its name as users type it (--algo, NCCL_ALGO), the collectives it
// implements, its schedule generator and default buffer geometry, its validation rules, its availability rule (which
// communicators, NCCL releases and protocols it runs on, and the InputError texts when forced where it cannot), its
// NCCL cost-model hooks (the latency and bandwidth terms NCCL's argmin compares, per-hop latency, step efficiencies)
// and its analytical-fidelity form. The generic code (generate, validate, nccl_tuning's select, the communicator,
// the analytical fidelity, parse_algo / to_string) asks the record; nothing else switches on an algorithm.
//
// Adding an algorithm: one file with its generator and a function returning its AlgorithmInfo, plus one line that
// registers it: `const coll::Algo kMine = coll::register_algorithm(mine());` (a test or a tool), or one line in
// algorithm_registry.cpp's built-in list (the built-ins, whose ids index NcclTuning's latency tables).
// Registration happens before threads start (static initialisation or main); lookups are then read-only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/analytical.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

// NCCL buffer geometry of one call (generators.hpp default_chunk_bytes / default_slots / default_slice_bytes).
struct Geometry {
  Bytes chunk_bytes = 0;    // payload bytes per step transfer
  std::uint32_t slots = 0;  // in-flight chunks per connection
  Bytes slice_bytes = 0;    // the unit the proxy hands over (host staging granule)
  // Sends per chunk step (CollectiveSchedule::slices): chunk / slice where a ring streams its slices, else 1.
  std::uint32_t slices = 1;
};
// NCCL's protocol geometry, every algorithm's default (generate.cpp): p2p chunks for sendrecv / alltoall, else one
// protocol step (Simple 512 KiB, LL 32 KiB, LL128 576,000 B), 8 slots, the slice = the chunk.
Geometry protocol_geometry(Op op, Proto proto);

// Bytes each rank received and sent (switch legs included; the switch itself is no rank), for validation rules.
struct ByteTally {
  std::vector<Bytes> recv, sent;
};
using Fail = std::function<void(const std::string&)>;

// Payload-efficiency factors of a call's legs (sim::StepCosts): every flow's payload efficiency is multiplied by
// `payload`; NVSwitch legs (coll::kSwitchRank on one side) are further scaled by `switch_legs`.
struct LegEfficiency {
  double payload = 1.0, switch_legs = 1.0;
};

struct AlgorithmInfo {
  // ---- names
  std::string name;       // as users type it and reports print it, lower case: "ring", "nvlstree"
  std::string nccl_name;  // NCCL_ALGO's spelling, for the list parse_algo prints: "Ring", "NVLSTree"
  std::string title;      // in sentences: "NVLS Tree"
  std::string help;       // the --algo help fragment: "nvls (allreduce on one NVSwitch node, Hopper+)"

  // ---- what it runs, where
  std::vector<Op> ops;  // the collectives it implements
  // When forced (--algo) for a collective not in `ops`: the InputError's message ("" = "the <name> algorithm does
  // not implement <op>"); the expectation is "ring for <op>".
  std::string ops_error;
  int since_minor = 0;       // the first NCCL release 2.<minor> that has it (0: every release vgsim models)
  bool simple_only = false;  // runs the Simple protocol only
  std::uint32_t min_nodes = 1, max_nodes = 0xffffffffu;  // node counts its cost model exists for
  bool opt_in = false;  // offered to NCCL's argmin only when NCCL_ALGO / --algo names it
  // Availability on a communicator: "" = it can run there, else why not (the argmin skips it; forcing it is an
  // InputError "<title> is not available on this communicator: <why>", expecting `requirement`). Null: everywhere.
  std::function<std::string(const CommShape&)> unavailable;
  std::string requirement;
  // Whether the argmin offers it by default on this communicator and release (forcing overrides); null = yes.
  std::function<bool(const NcclTuning&, const CommShape&)> offered_by_default;

  // ---- schedule
  // The generator (generators.hpp contract): throws std::invalid_argument for collectives it does not implement.
  std::function<CollectiveSchedule(Op, Proto, std::uint32_t ranks, std::uint32_t ranks_per_node, Bytes size,
                                   const GenOptions&)>
      generate;
  std::function<Geometry(Op, Proto)> geometry;  // null = protocol_geometry
  // enqueue.cc's per-call chunk adaptation: the chunk a call of `size` bytes on `channels` channels and
  // `ranks_per_node` local ranks runs with, given the geometry's chunk (null = that chunk at every size).
  std::function<Bytes(Bytes chunk, Bytes size, std::uint32_t channels, std::uint32_t ranks_per_node)> call_chunk;
  bool nvls_channels = false;  // runs CommShape::nvls_channels channels (>= 2), not the ring graph's
  bool even_channels = false;  // channels alternate two trees: an odd count becomes even (1 -> 2, else - 1)

  // ---- validation (validate.hpp)
  bool switch_legs = false;  // its transfers may have coll::kSwitchRank on one side
  // Before the transfers are read: "" or the one problem that stops validation (e.g. a ranks_per_node it needs).
  std::function<std::string(const CollectiveSchedule&)> check_layout;
  // A GPU-to-GPU transfer (index i): "" or what is wrong with it. Null: any pair of ranks.
  std::function<std::string(const CollectiveSchedule&, const Transfer&, std::size_t i)> check_gpu_transfer;
  // Total payload bytes on the wire (ranks >= 2). Null: allreduce 2(n-1)S, sendrecv nS, else (n-1)S.
  std::function<Bytes(Op, std::uint32_t ranks, Bytes size, std::uint32_t ranks_per_node)> required_bytes;
  // The collective's semantics per rank (ranks >= 2, structure and totals already valid).
  std::function<void(const CollectiveSchedule&, const ByteTally&, const Fail&)> check_bytes;

  // ---- NCCL's cost model (nccl_tuning.hpp): microseconds and GB/s as NCCL's tuning.cc
  std::function<double(const NcclTuning&, Proto)> base_latency_us;
  // One hop of the step-level engine on a link class, latencyInter included (the communicator's shape).
  std::function<double(const NcclTuning&, coll::Link, Proto, const CommShape&)> hop_latency_us;
  std::function<double(const NcclTuning&, Op, Proto, const CommShape&)> latency_us;
  std::function<double(const NcclTuning&, Op, Proto, const CommShape&)> bandwidth_GBps;
  // Size-dependent corrections of an AlgoTime's latency / bandwidth before time = lat + bytes / bw (null = none).
  std::function<void(const NcclTuning&, Op, Proto, Bytes, const CommShape&, AlgoTime&)> size_terms;
  // Channel trimming (enqueue.cc): the LL thread threshold scales with the rank count (ring), and the Simple sync
  // warps added after trimming (ring 32 threads, others 4 x 32).
  bool ll_threshold_per_rank = false;
  std::uint32_t simple_sync_threads = 4 * 32;
  std::function<LegEfficiency(const NcclTuning&, const CommShape&)> efficiency;  // null = {1, 1}

  // ---- analytical fidelity (analytical.hpp): the closed form, null = none (analytical_time throws)
  std::function<Time(const AnalyticalCall&, const PathCosts&)> analytical;
  bool mean_hop_latency = false;  // its data chain crosses every hop of a class in turn (ring): mean, not max latency

  bool supports(Op op) const;
};

// Registers `info` and returns its id. std::invalid_argument when the name (normalised: lower case, no '_', '-' or
// ' ') is taken or empty, a required hook (generate, base_latency_us, hop_latency_us, latency_us, bandwidth_GBps) is
// missing, or 64 algorithms exist already.
Algo register_algorithm(AlgorithmInfo info);
// The record of `a`; std::invalid_argument for an id nothing registered.
const AlgorithmInfo& algorithm(Algo a);
// Every registered algorithm, in id order (the built-ins first, in NCCL's order).
std::vector<Algo> algorithms();
// The algorithm named `name` (case-insensitive, '_', '-' and ' ' ignored), if any.
std::optional<Algo> find_algorithm(const std::string& name);
// "" when `a` can run on a communicator of this shape, else why not (AlgorithmInfo::unavailable).
std::string why_unavailable(Algo a, const CommShape& c);
// The --algo help text: "force the algorithm like NCCL_ALGO: ring, tree, nvls (...) or nvlstree (...)".
std::string algorithm_help();

}  // namespace vgsim::coll
