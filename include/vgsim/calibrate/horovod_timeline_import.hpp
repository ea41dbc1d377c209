// Horovod timeline (HOROVOD_TIMELINE, Chrome trace JSON written by rank 0) -> collective measurements: every fused
// NCCL allreduce Horovod ran, with its bytes and its host-observed duration. Format (docs/SOURCES.md#horovod,
// Horovod 0.9-0.21 timeline.cc): one "process" per tensor (metadata "process_name" with args.name), nested B/E
// activities NEGOTIATE_ALLREDUCE (with one 'X' tick per rank, named by the rank number), ALLREDUCE (its 'E' carries
// args.dtype and args.shape), and inside it WAIT_FOR_DATA, QUEUE, MEMCPY_IN_FUSION_BUFFER, NCCL_ALLREDUCE, ... .
// Tensors fused into one response share their NCCL_ALLREDUCE interval (Horovod opens and closes an activity for all
// entries at once), so intervals with the same (start, end) are one collective of the summed bytes. Durations are
// what the finalizer thread observed (cudaEventSynchronize), so they include launch and completion latency.
// A file cut off without its closing ']' (older Horovod writes '[' then records with trailing commas) is accepted.
#pragma once

#include <string>
#include <vector>

#include "vgsim/calibrate/import_hints.hpp"
#include "vgsim/calibrate/measurement.hpp"

namespace vgsim::calibrate {

// Per-phase totals of the timeline (microseconds summed over tensors), printed by the importer.
struct HorovodPhaseTotals {
  std::vector<std::pair<std::string, double>> phase_us;  // activity name -> total, in first-seen order
  std::size_t tensors = 0, allreduces = 0;
};

// True when the file looks like a Horovod timeline (a JSON array mentioning NEGOTIATE_ or NCCL_ALLREDUCE).
bool looks_like_horovod_timeline(const std::string& path);

// nranks: from the hints, else the distinct rank ticks of the NEGOTIATE activities; nnodes or gpus_per_node must be
// given (the timeline does not say). InputError (file, JSON path or event index, value, expectation) on bad input.
std::vector<Measurement> import_horovod_timeline(const std::string& path, const ImportHints& hints,
                                                 HorovodPhaseTotals* totals = nullptr);

}  // namespace vgsim::calibrate
