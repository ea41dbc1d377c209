// The NCCL collective sweep: allreduce, allgather, reducescatter, broadcast and sendrecv over the size sweep, first
// with NCCL's default choice, then with each NCCL_ALGO x NCCL_PROTO forced (NCCL reads them at communicator init, so
// each combination gets fresh communicators). Timing and bandwidth follow nccl-tests (docs/SOURCES.md#nccl-tests);
// every result is checked against a host-computed expectation (nccl-tests' #wrong). float32 only.
#pragma once

#include "checked_calls.hpp"
#include "probe_context.hpp"
#include "probe_options.hpp"
#include "record_writer.hpp"

namespace vgsim::probe {

// Runs the sweep on every rank (collective over all ranks). Returns the number of records with wrong > 0.
long run_collective_sweep(const ProbeContext& ctx, const ProbeOptions& options, RecordWriter& writer,
                          Watchdog& watchdog);

}  // namespace vgsim::probe
