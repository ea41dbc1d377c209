// Importer for OSU micro-benchmark collective latency output ("# Size  Avg Latency(us)" [Min Max Iterations]), read
// by content: the "# OSU MPI <Op> Latency Test vX" title (collective, OSU version), an mpirun / srun line (ranks,
// nodes, ranks per node, --mca coll_tuned_<op>_algorithm k = the REQUESTED algorithm, coll_tuned_use_dynamic_rules),
// provenance comments ("nodes = N, one MPI rank per node"); the file name (<op>-...-<N>cpu-algo<k>-...) only fills
// what the content does not say and must agree with it (calibrate/SCHEMA.md, "Importers"). OSU 5.x allreduce uses
// float buffers and MPI_SUM, so dtype float, count = size/4.
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
