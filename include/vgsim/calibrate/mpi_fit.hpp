// Fit of the Open MPI model's physical parameters (include/vgsim/sim/mpi_collective.hpp) to OSU collective files,
// and cross-validation by node count (issue 15). One set of parameters per network: every file of the fit (any node
// count, any requested algorithm) is predicted by the same model, with the algorithm Open MPI would run (the forced
// one only when the file says coll_tuned_use_dynamic_rules=1; data/measured/osu-openmpi/README.md). Least squares on
// relative error (Levenberg-Marquardt in log-parameter space, Eigen); a parameter no point is sensitive to keeps its
// catalog value and is reported "not measured".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "vgsim/calibrate/series.hpp"
#include "vgsim/sim/mpi_collective.hpp"

namespace vgsim::calibrate {

// One OSU file: its network label ("10g": the header's "network X", else the file name's token), node count, ranks
// per node, the requested algorithm (file label; "default" when none) and whether dynamic rules were on.
struct MpiOsuFile {
  std::string path, name, network, requested = "default";
  std::string op = "allreduce";
  std::int64_t nodes = 0, ranks_per_node = 1;
  bool dynamic_rules = false;  // Open MPI's default; the importer's record when it gives one
  std::vector<SeriesPoint> points;
};
// Reads OSU files through the OSU importer (InputError naming the file on bad input).
std::vector<MpiOsuFile> load_mpi_osu_files(const std::vector<std::string>& paths);

// The configuration a file's run had: `base` with the file's forced algorithm and dynamic-rules flag.
sim::MpiConfig config_for_file(const sim::MpiConfig& base, const MpiOsuFile& f);

struct MpiFileError {
  std::string network, name, requested, runs;  // runs: what the model says ran (at the file's largest size)
  std::int64_t nodes = 0, points = 0;
  double median_rel_error = 0, max_rel_error = 0;
};
MpiFileError mpi_file_error(const topo::Cluster& cluster, const sim::MpiConfig& config, const MpiOsuFile& f);

struct MpiFitParameter {
  std::string name;  // "mpi.latency"
  double catalog = 0, fitted = 0;
  bool measured = false;  // false: the data did not constrain it (kept at its catalog value)
};
struct MpiFit {
  sim::MpiConfig config;  // the start configuration with the fitted values
  std::vector<MpiFitParameter> parameters;
  double rms_before = 0, rms_after = 0;  // relative error over every point of the fitted files
  std::int64_t points = 0;
  std::vector<std::int64_t> nodes, ranks_per_node;  // what the fitted files covered (sorted, distinct)
};
// `points_per_file` > 0 thins each file to that many evenly spaced rows before fitting (speed; 0 = every row).
MpiFit fit_mpi(const topo::Cluster& cluster, const sim::MpiConfig& start, const std::vector<MpiOsuFile>& files,
               std::size_t points_per_file = 0);

// Writes the parameters as `--set` lines and as JSON ({"network", "parameters": {name: value}, "not_measured": [...],
// "rms_before", "rms_after", "points"}).
void write_mpi_fit_text(std::ostream& out, const std::string& network, const MpiFit& fit);
std::string mpi_fit_json(const std::string& network, const MpiFit& fit);
// `--set` lines of a fit profile written by mpi_fit_json (InputError naming the file on bad input).
std::vector<std::string> read_mpi_fit_sets(const std::string& path);
// What a profile was fitted on ("cluster", "transport", "nodes", "ranks_per_node", "not_measured" of the JSON) and
// the warnings for applying it to `config` at nodes x ranks_per_node: another cluster or transport, a node or
// ranks-per-node count outside the fitted ones, and the parameters it did not measure. Empty when nothing applies.
std::vector<std::string> mpi_profile_warnings(const std::string& path, const sim::MpiConfig& config, std::int64_t nodes,
                                              std::int64_t ranks_per_node);

// Cross-validation by node count: per network, fit on the files with `fit_nodes` nodes, predict the files with
// `predict_nodes`; rows per predicted file with the fitted and the uncalibrated (catalog) errors.
struct MpiCvRow {
  MpiFileError fitted, catalog;
};
struct MpiCvNetwork {
  std::string network;
  MpiFit fit;
  std::vector<MpiCvRow> rows;
  double median_fitted = 0, max_fitted = 0, median_catalog = 0, max_catalog = 0;  // over all predicted points
  // The noise floor of the predicted files when they are repeated runs of one configuration (the OSU files: forcing
  // off): median over points of |t / (median over files at that size) - 1|; and the fitted model's median error
  // against the per-size fastest run (the lower envelope).
  double median_spread = 0, median_fitted_envelope = 0;
};
// `cluster_for(network)` gives the cluster of a network (e.g. the osu-ompi-4x-<network> preset); `sets` are applied
// to every network's catalog configuration first.
std::vector<MpiCvNetwork> mpi_cross_validate(const std::vector<MpiOsuFile>& files, std::int64_t fit_nodes,
                                             std::int64_t predict_nodes, const topo::Catalog& catalog,
                                             const std::vector<std::string>& sets = {},
                                             std::size_t points_per_file = 0);
void write_mpi_cv_table(std::ostream& out, const std::vector<MpiCvNetwork>& nets, std::int64_t fit_nodes,
                        std::int64_t predict_nodes);
// One network's cross-validation as a fit profile: mpi_fit_json of the parameters fitted on the fit_nodes files
// (so --mpi-profile reads it) plus "cross_validation": {"fit_nodes", "predict_nodes", "median_fitted",
// "max_fitted", "median_catalog", "max_catalog", "median_spread", "median_fitted_envelope", "files": [{"name",
// "requested", "runs", "points", "fitted": {"median", "max"}, "catalog": {"median", "max"}}]} (relative errors).
std::string mpi_cv_json(const MpiCvNetwork& network, std::int64_t fit_nodes, std::int64_t predict_nodes);

// The preset of the OSU development cluster for a network label: "osu-ompi-4x-<network>".
std::string osu_cluster_for(const std::string& network);

}  // namespace vgsim::calibrate
