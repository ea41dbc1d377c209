// Memory copy bandwidth on the writer rank's node: host->device and device->host from pinned host memory,
// device->device within one GPU, and peer-to-peer between every ordered pair of visible GPUs that
// cudaDeviceCanAccessPeer allows. bandwidth_GBps = bytes copied / time (1e9 bytes/s); a d2d copy reads and writes
// each byte, so its memory traffic is twice that figure. Other ranks wait at a barrier meanwhile.
#pragma once

#include "checked_calls.hpp"
#include "probe_context.hpp"
#include "probe_options.hpp"
#include "record_writer.hpp"

namespace vgsim::probe {

void run_copy_bandwidth(const ProbeContext& ctx, const ProbeOptions& options, RecordWriter& writer, Watchdog& watchdog);

}  // namespace vgsim::probe
