// Importer for OSU micro-benchmark collective latency output ("# Size  Avg Latency(us)" [Min Max Iterations]).
// Algorithm and node count come from file names "allreduce-<net>-<N>cpu-algo<k>-step<...>.txt" (Open MPI coll/tuned
// allreduce algorithm k: 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring,
// 6 rabenseifner; shared/data/README.md) and "nodes = N" in the header; hints fill or check them. OSU 5.x
// allreduce uses float buffers and MPI_SUM, so dtype float, count = size/4, one rank per node unless hinted.
#pragma once

#include <string>
#include <vector>

#include "vgsim/calibrate/import_hints.hpp"
#include "vgsim/calibrate/measurement.hpp"

namespace vgsim::calibrate {

std::vector<Measurement> import_osu(const std::string& path, const ImportHints& hints = {});
std::vector<Measurement> import_osu_text(const std::string& text, const std::string& file,
                                         const ImportHints& hints = {});

// Open MPI coll/tuned allreduce algorithm number (1..6) -> name; throws std::out_of_range otherwise.
const std::string& openmpi_allreduce_algorithm(int k);

}  // namespace vgsim::calibrate
