// `vgsim calibrate fit-mpi FILES... [--out P] [--cluster C] [--set mpi.X=v] [--cross-validate]` (calibrate_mpi.hpp).
// Files are grouped by network (the file's "network X" header or its name); each network gets one fit over all its
// files, on the given cluster or the OSU development preset osu-ompi-4x-<network>.
#include "calibrate_mpi.hpp"

#include <iostream>
#include <map>
#include <memory>

#include "vgsim/calibrate/mpi_fit.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::cli {

namespace {

struct FitMpiArgs {
  std::vector<std::string> files, sets;
  std::string out, cluster;
  bool cross_validate = false;
  std::int64_t fit_nodes = 2, predict_nodes = 4;
  std::size_t points_per_file = 0;
};

std::string out_path(const std::string& out, const std::string& network, bool several) {
  if (!several) return out;
  const auto dot = out.rfind('.');
  return dot == std::string::npos ? out + "-" + network : out.substr(0, dot) + "-" + network + out.substr(dot);
}

// Every --out file is written, or none (write_files_atomically), and the command fails (exit 2) when one cannot be:
// with --cross-validate, each network's file holds the parameters fitted on the --fit-nodes files (a profile
// --mpi-profile reads) and the cross-validation figures (mpi_cv_json).
void run(const FitMpiArgs& a) {
  if (!a.out.empty()) check_output_path(a.out, "--out");  // before the fits
  const auto files = calibrate::load_mpi_osu_files(a.files);
  const topo::Catalog catalog = topo::Catalog::load_default();
  std::vector<OutputFile> outputs;
  if (a.cross_validate) {
    const auto cv =
        calibrate::mpi_cross_validate(files, a.fit_nodes, a.predict_nodes, catalog, a.sets, a.points_per_file);
    if (cv.empty())
      throw InputError("", "--cross-validate", "no network has files with both node counts",
                       std::to_string(a.fit_nodes) + " and " + std::to_string(a.predict_nodes),
                       "files of one network at --fit-nodes and at --predict-nodes");
    calibrate::write_mpi_cv_table(std::cout, cv, a.fit_nodes, a.predict_nodes);
    for (const auto& n : cv)
      outputs.push_back({"--out", a.out.empty() ? "" : out_path(a.out, n.network, cv.size() > 1),
                         calibrate::mpi_cv_json(n, a.fit_nodes, a.predict_nodes)});
  } else {
    std::map<std::string, std::vector<calibrate::MpiOsuFile>> by_net;
    for (const auto& f : files) by_net[f.network].push_back(f);
    for (const auto& [net, fs] : by_net) {
      const topo::Cluster cl =
          topo::Cluster::resolve(a.cluster.empty() ? calibrate::osu_cluster_for(net) : a.cluster, catalog);
      const sim::MpiConfig start = sim::mpi_config_from(cl, catalog, a.sets);
      std::cerr << "vgsim calibrate fit-mpi: network " << net << ", " << fs.size() << " file(s) on " << cl.name()
                << "\n";
      const calibrate::MpiFit fit = calibrate::fit_mpi(cl, start, fs, a.points_per_file);
      calibrate::write_mpi_fit_text(std::cout, net, fit);
      outputs.push_back(
          {"--out", a.out.empty() ? "" : out_path(a.out, net, by_net.size() > 1), calibrate::mpi_fit_json(net, fit)});
    }
  }
  write_files_atomically(outputs);
  for (const auto& o : outputs)
    if (!o.path.empty()) std::cout << "wrote " << o.path << "\n";
}

}  // namespace

void add_calibrate_mpi_command(CLI::App* cal) {
  auto args = std::make_shared<FitMpiArgs>();
  CLI::App* m = cal->add_subcommand(
      "fit-mpi", "Fit the Open MPI model's physical parameters (one set per network) to OSU files; --cross-validate");
  m->add_option("files", args->files, "OSU osu_allreduce output files")->required();
  m->add_option("--out", args->out,
                "write the fitted parameters as JSON (one file per network: -<network> added; with --cross-validate "
                "those fitted on the --fit-nodes files, and the figures)");
  m->add_option("--cluster", args->cluster, "cluster preset or file (default: osu-ompi-4x-<network>)");
  m->add_option("--set", args->sets, "start value of an mpi.* parameter: name=value (vgsim params --library mpi)");
  m->add_flag("--cross-validate", args->cross_validate, "fit on --fit-nodes files, predict --predict-nodes files");
  m->add_option("--fit-nodes", args->fit_nodes, "node count of the fitted files")->capture_default_str();
  m->add_option("--predict-nodes", args->predict_nodes, "node count of the predicted files")->capture_default_str();
  m->add_option("--points-per-file", args->points_per_file, "fit on this many evenly spaced rows per file (0 = all)")
      ->capture_default_str();
  m->callback([args] { run(*args); });
}

}  // namespace vgsim::cli
