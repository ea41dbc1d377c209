// The "environment" records of a probe run: the first line of every output file (GPU models and memory, MIG and
// virtualization state, PCI bus ids, peer-access matrix, driver/runtime/NCCL versions, every NCCL_* variable, host
// names, rank and node counts, the options), and a later one holding NCCL's topology dump when NCCL_TOPO_DUMP_FILE
// is set. Free-form by design: calibrate keeps these fields verbatim and never interprets them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "probe_context.hpp"
#include "probe_options.hpp"

namespace vgsim::probe {

// Collective over all ranks (gathers per-rank device facts); the result is meaningful on the writer rank only.
nlohmann::ordered_json environment_record(const ProbeContext& ctx, const ProbeOptions& options);

// A record with the contents of NCCL_TOPO_DUMP_FILE (written by NCCL at the first communicator init), or null json
// when the variable is unset or the file cannot be read.
nlohmann::ordered_json topology_dump_record(const ProbeContext& ctx);

// An environment record saying why a measurement was not taken (e.g. NCCL rejected NCCL_ALGO=Tree for allgather).
nlohmann::ordered_json skipped_record(const ProbeContext& ctx, const std::string& what, const std::string& algo,
                                      const std::string& proto, const std::string& reason);

}  // namespace vgsim::probe
