// Fit and cross-validation of the Open MPI model on OSU files (include/vgsim/calibrate/mpi_fit.hpp).
#include "vgsim/calibrate/mpi_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <regex>
#include <sstream>

#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/osu_import.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace vgsim::calibrate {

namespace {

std::string network_of(const std::string& path) {
  std::ifstream in = open_input(path);
  std::string line;
  static const std::regex header("network ([A-Za-z0-9_.+-]+)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (!line.empty() && line[0] == '#' && std::regex_search(line, m, header)) return m[1];
  }
  static const std::regex token("-([0-9]+g)-");
  std::smatch m;
  return std::regex_search(path, m, token) ? std::string(m[1]) : std::string("unknown");
}

// A fitted parameter: its field in MpiPhysics, bounds, and whether it is fitted in log space.
struct Knob {
  const char* name;
  double sim::MpiPhysics::*field;
  double lo, hi;
  bool log;
};
const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = {
      {"mpi.latency", &sim::MpiPhysics::latency_us, 0.1, 500, true},
      {"mpi.wire_efficiency", &sim::MpiPhysics::wire_efficiency, 0.3, 1.0, false},
      {"mpi.copy_bandwidth", &sim::MpiPhysics::copy_GBps, 0.1, 100, true},
      {"mpi.reduce_bandwidth", &sim::MpiPhysics::reduce_GBps, 0.1, 1000, true},
      {"mpi.core_memory_bandwidth", &sim::MpiPhysics::core_dram_GBps, 0.5, 100, true},
      {"mpi.cache_size", &sim::MpiPhysics::cache_MiB, 0.5, 1024, true},
      {"mpi.rendezvous_round_trips", &sim::MpiPhysics::rendezvous_round_trips, 0.0, 4.0, false},
  };
  return k;
}

double to_x(const Knob& k, double v) { return k.log ? std::log(v) : v; }
double from_x(const Knob& k, double x) { return std::clamp(k.log ? std::exp(x) : x, k.lo, k.hi); }

// Relative residuals (prediction / measurement - 1) of every point of `files` under `c`.
Eigen::VectorXd residuals(const topo::Cluster& cl, const sim::MpiConfig& c, const std::vector<MpiOsuFile>& files,
                          std::int64_t n) {
  // Every file (one measurement session) weighs the same: a point's residual is scaled by sqrt(mean rows / rows).
  Eigen::VectorXd r(n);
  Eigen::Index i = 0;
  const double mean_rows = static_cast<double>(n) / static_cast<double>(std::max<std::size_t>(1, files.size()));
  for (const auto& f : files) {
    const double w = std::sqrt(mean_rows / static_cast<double>(std::max<std::size_t>(1, f.points.size())));
    const sim::MpiConfig fc = config_for_file(c, f);
    const coll::Op op = coll::parse_op(f.op);
    for (const auto& p : f.points) {
      const double t = sim::simulate_mpi_collective(cl, fc, op, p.size_bytes, static_cast<std::uint32_t>(f.nodes),
                                                    static_cast<std::uint32_t>(f.ranks_per_node))
                           .time.us();
      r[i++] = w * (t / p.time_us - 1.0);
    }
  }
  return r;
}

sim::MpiConfig with_x(sim::MpiConfig c, const Eigen::VectorXd& x) {
  for (std::size_t j = 0; j < knobs().size(); ++j)
    c.physics.*(knobs()[j].field) = from_x(knobs()[j], x[static_cast<Eigen::Index>(j)]);
  return c;
}

double rms(const Eigen::VectorXd& r) { return r.size() ? std::sqrt(r.squaredNorm() / double(r.size())) : 0.0; }

// Forward-difference Jacobian of the residuals in x (log or linear parameter units).
Eigen::MatrixXd jacobian(const topo::Cluster& cl, const sim::MpiConfig& c, const std::vector<MpiOsuFile>& files,
                         const Eigen::VectorXd& x, const Eigen::VectorXd& r0) {
  Eigen::MatrixXd J(r0.size(), x.size());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    Eigen::VectorXd xp = x;
    const double h = knobs()[static_cast<std::size_t>(j)].log ? 0.05 : 0.02;
    xp[j] += h;
    if (from_x(knobs()[static_cast<std::size_t>(j)], xp[j]) == from_x(knobs()[static_cast<std::size_t>(j)], x[j]))
      xp[j] -= 2 * h;  // at the upper bound: step down
    J.col(j) = (residuals(cl, with_x(c, xp), files, r0.size()) - r0) / (xp[j] - x[j]);
  }
  return J;
}

}  // namespace

std::vector<MpiOsuFile> load_mpi_osu_files(const std::vector<std::string>& paths) {
  std::vector<MpiOsuFile> out;
  for (const auto& path : paths) {
    MpiOsuFile f;
    f.path = path;
    f.name = path.substr(path.find_last_of('/') + 1);
    f.network = network_of(path);
    for (const auto& m : import_osu(path)) {
      const auto* c = std::get_if<CollectiveMeasurement>(&m);
      if (!c || !(c->time_us > 0)) continue;
      f.op = c->op, f.nodes = c->nnodes, f.ranks_per_node = std::max<std::int64_t>(1, c->gpus_per_node);
      f.requested = c->algo.empty() ? "default" : c->algo;
      f.dynamic_rules = c->mpi_dynamic_rules.value_or(false);  // not stated: Open MPI's default (off)
      f.points.push_back({c->size_bytes, c->time_us});
    }
    if (f.points.empty()) throw InputError(path, "", "no OSU rows with a time > 0", "", "an OSU latency table");
    if (f.nodes <= 0) f.nodes = 1;
    out.push_back(std::move(f));
  }
  return out;
}

sim::MpiConfig config_for_file(const sim::MpiConfig& base, const MpiOsuFile& f) {
  sim::MpiConfig c = base;
  c.dynamic_rules = f.dynamic_rules;
  c.forced_algorithm = f.requested == "default" ? std::string() : f.requested;
  return c;
}

MpiFileError mpi_file_error(const topo::Cluster& cl, const sim::MpiConfig& config, const MpiOsuFile& f) {
  MpiFileError e;
  e.network = f.network, e.name = f.name, e.requested = f.requested, e.nodes = f.nodes;
  const sim::MpiConfig c = config_for_file(config, f);
  const coll::Op op = coll::parse_op(f.op);
  std::vector<double> err;
  for (const auto& p : f.points) {
    const auto r = sim::simulate_mpi_collective(cl, c, op, p.size_bytes, static_cast<std::uint32_t>(f.nodes),
                                                static_cast<std::uint32_t>(f.ranks_per_node));
    err.push_back(std::abs(r.time.us() / p.time_us - 1.0));
    e.runs = r.algorithm;
  }
  e.points = static_cast<std::int64_t>(err.size());
  e.median_rel_error = median_of(err);
  e.max_rel_error = err.empty() ? 0.0 : *std::max_element(err.begin(), err.end());
  return e;
}

MpiFit fit_mpi(const topo::Cluster& cl, const sim::MpiConfig& start, const std::vector<MpiOsuFile>& all_files,
               std::size_t points_per_file) {
  std::vector<MpiOsuFile> files = all_files;
  for (auto& f : files)
    if (points_per_file > 0 && f.points.size() > points_per_file) {
      std::vector<SeriesPoint> keep;
      for (std::size_t k = 0; k < points_per_file; ++k)
        keep.push_back(f.points[k * (f.points.size() - 1) / std::max<std::size_t>(1, points_per_file - 1)]);
      f.points = keep;
    }
  std::int64_t n = 0;
  for (const auto& f : files) n += static_cast<std::int64_t>(f.points.size());
  if (n == 0) throw InputError("", "files", "nothing to fit", "0 points", "OSU files with rows");
  const auto& ks = knobs();
  Eigen::VectorXd x(static_cast<Eigen::Index>(ks.size())), x0;
  for (std::size_t j = 0; j < ks.size(); ++j)
    x[static_cast<Eigen::Index>(j)] = to_x(ks[j], start.physics.*(ks[j].field));
  x0 = x;
  Eigen::VectorXd r = residuals(cl, start, files, n);
  MpiFit fit;
  fit.points = n;
  fit.rms_before = rms(r);
  double mu = 1e-2;
  Eigen::MatrixXd J;
  for (int it = 0; it < 8; ++it) {
    J = jacobian(cl, start, files, x, r);
    // A weak prior (weight kPrior per parameter unit) keeps parameters the points do not constrain at the catalog
    // value instead of letting a singular normal matrix throw them to a bound; steps are at most one unit (e-fold).
    constexpr double kPrior = 0.03;
    Eigen::MatrixXd A = J.transpose() * J;
    A.diagonal().array() += kPrior * kPrior;
    const Eigen::VectorXd g = J.transpose() * r + kPrior * kPrior * (x - x0);
    bool improved = false;
    for (int tries = 0; tries < 6 && !improved; ++tries) {
      Eigen::MatrixXd D = A;
      D.diagonal() += mu * A.diagonal();
      Eigen::VectorXd step = D.ldlt().solve(-g);
      step = step.cwiseMax(-1.0).cwiseMin(1.0);
      Eigen::VectorXd xn = x + step;
      for (Eigen::Index j = 0; j < xn.size(); ++j)
        xn[j] = to_x(ks[static_cast<std::size_t>(j)], from_x(ks[static_cast<std::size_t>(j)], xn[j]));
      const Eigen::VectorXd rn = residuals(cl, with_x(start, xn), files, n);
      if (rn.squaredNorm() < r.squaredNorm()) {
        improved = r.squaredNorm() - rn.squaredNorm() > 1e-6 * r.squaredNorm();
        x = xn, r = rn, mu = std::max(1e-6, mu / 3);
        if (!improved) break;
        improved = true;
      } else {
        mu *= 4;
      }
    }
    if (!improved) break;
  }
  // Not measured: a parameter whose e-fold (log) or +1 (linear) change moves no prediction by 1 %.
  J = jacobian(cl, start, files, x, r);
  for (std::size_t j = 0; j < ks.size(); ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    MpiFitParameter p;
    p.name = ks[j].name;
    p.catalog = start.physics.*(ks[j].field);
    p.measured = J.col(jj).cwiseAbs().maxCoeff() >= 0.01;
    if (!p.measured) x[jj] = x0[jj];
    p.fitted = from_x(ks[j], x[jj]);
    fit.parameters.push_back(p);
  }
  fit.config = with_x(start, x);
  for (const auto& f : all_files) fit.nodes.push_back(f.nodes), fit.ranks_per_node.push_back(f.ranks_per_node);
  for (auto* v : {&fit.nodes, &fit.ranks_per_node}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  fit.rms_after = rms(residuals(cl, fit.config, files, n));
  return fit;
}

void write_mpi_fit_text(std::ostream& out, const std::string& network, const MpiFit& fit) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "# network %s: %lld points, RMS relative error %.1f %% (catalog) -> %.1f %% (fit)\n",
                network.c_str(), static_cast<long long>(fit.points), 100 * fit.rms_before, 100 * fit.rms_after);
  out << buf;
  for (const auto& p : fit.parameters) {
    std::snprintf(buf, sizeof buf, "--set %s=%.6g  # catalog %.6g%s\n", p.name.c_str(), p.fitted, p.catalog,
                  p.measured ? "" : ", not measured (the data do not constrain it: kept)");
    out << buf;
  }
  out << "# not measured (no intra-node data in these files): mpi.shm_latency, mpi.shm_eager_limit\n";
}

std::string mpi_fit_json(const std::string& network, const MpiFit& fit) {
  Json params = Json::object(), not_measured = Json::array();
  for (const auto& p : fit.parameters) {
    if (p.measured)
      params[p.name] = p.fitted;
    else
      not_measured.push_back(p.name);
  }
  not_measured.push_back("mpi.shm_latency");
  not_measured.push_back("mpi.shm_eager_limit");
  Json j = {{"network", network}, {"parameters", params}, {"not_measured", not_measured}};
  j["cluster"] = fit.config.cluster_name;
  j["transport"] = sim::to_string(fit.config.transport);
  j["nodes"] = fit.nodes;
  j["ranks_per_node"] = fit.ranks_per_node;
  j["rms_before"] = fit.rms_before, j["rms_after"] = fit.rms_after, j["points"] = fit.points;
  return j.dump(2) + "\n";
}

std::vector<std::string> read_mpi_fit_sets(const std::string& path) {
  // load_json_file: one reader for every JSON input (duplicate keys refused with their path, errors name the file).
  const Json j = load_json_file(path);
  if (!j.is_object() || !j.contains("parameters") || !j["parameters"].is_object())
    throw InputError(path, "$.parameters", "missing", "", "an object of mpi.* values");
  std::vector<std::string> sets;
  for (auto it = j["parameters"].begin(); it != j["parameters"].end(); ++it) {
    if (!it.value().is_number())
      throw InputError(path, "$.parameters." + it.key(), "not a number", it.value().dump(), "a number");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", it.value().get<double>());
    sets.push_back(it.key() + "=" + buf);
  }
  return sets;
}

std::vector<std::string> mpi_profile_warnings(const std::string& path, const sim::MpiConfig& config, std::int64_t nodes,
                                              std::int64_t rpn) {
  const Json j = load_json_file(path);
  std::vector<std::string> w;
  const std::string where = "MPI profile " + path + ": ";
  auto text = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  if (!text("cluster").empty() && text("cluster") != config.cluster_name)
    w.push_back(where + "fitted on cluster " + text("cluster") + ", applied to " + config.cluster_name);
  if (!text("transport").empty() && text("transport") != sim::to_string(config.transport))
    w.push_back(where + "fitted over transport " + text("transport") + ", applied to " +
                sim::to_string(config.transport));
  auto outside = [&](const char* k, std::int64_t v, const char* what) {
    if (!j.contains(k) || !j[k].is_array() || j[k].empty()) return;
    const auto seen = j[k].get<std::vector<std::int64_t>>();
    if (v < seen.front() || v > seen.back())
      w.push_back(where + what + " " + std::to_string(v) + " outside the fitted " + std::to_string(seen.front()) +
                  ".." + std::to_string(seen.back()) + " (extrapolated)");
  };
  outside("nodes", nodes, "node count");
  outside("ranks_per_node", rpn, "ranks per node");
  if (j.contains("not_measured") && j["not_measured"].is_array() && !j["not_measured"].empty()) {
    std::string names;
    for (const auto& n : j["not_measured"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
    w.push_back(where + "not measured (catalog values kept): " + names);
  }
  return w;
}

std::string osu_cluster_for(const std::string& network) { return "osu-ompi-4x-" + network; }

}  // namespace vgsim::calibrate
