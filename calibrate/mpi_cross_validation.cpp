// Cross-validation of the Open MPI model by node count (include/vgsim/calibrate/mpi_fit.hpp): per network, fit one
// set of physical parameters on the small runs, predict the large ones, and compare with the catalog (uncalibrated).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <tuple>

#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/mpi_fit.hpp"

namespace vgsim::calibrate {

namespace {

// Median and max relative error over every point of `files` (pooled).
std::pair<double, double> pooled(const topo::Cluster& cl, const sim::MpiConfig& c,
                                 const std::vector<MpiOsuFile>& files) {
  std::vector<double> err;
  for (const auto& f : files) {
    const sim::MpiConfig fc = config_for_file(c, f);
    for (const auto& p : f.points)
      err.push_back(std::abs(sim::simulate_mpi_collective(cl, fc, coll::parse_op(f.op), p.size_bytes,
                                                          static_cast<std::uint32_t>(f.nodes),
                                                          static_cast<std::uint32_t>(f.ranks_per_node))
                                     .time.us() /
                                 p.time_us -
                             1.0));
  }
  return {median_of(err), err.empty() ? 0.0 : *std::max_element(err.begin(), err.end())};
}

// Noise floor and the fitted model's error against the lower envelope of the repeated runs (see MpiCvNetwork).
void spread_and_envelope(const topo::Cluster& cl, MpiCvNetwork& n, const std::vector<MpiOsuFile>& files) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<double>> by_size;
  for (const auto& f : files)
    for (const auto& p : f.points) by_size[{f.nodes, f.ranks_per_node, p.size_bytes}].push_back(p.time_us);
  std::vector<double> spread, env;
  for (const auto& [k, ts] : by_size) {
    const double med = median_of(ts);
    for (double t : ts) spread.push_back(std::abs(t / med - 1.0));
    const auto [nodes, rpn, size] = k;
    const double lo = *std::min_element(ts.begin(), ts.end());
    const double pred =
        sim::simulate_mpi_collective(cl, config_for_file(n.fit.config, files.front()), coll::parse_op(files.front().op),
                                     size, static_cast<std::uint32_t>(nodes), static_cast<std::uint32_t>(rpn))
            .time.us();
    env.push_back(std::abs(pred / lo - 1.0));
  }
  n.median_spread = median_of(spread);
  n.median_fitted_envelope = median_of(env);
}

}  // namespace

std::vector<MpiCvNetwork> mpi_cross_validate(const std::vector<MpiOsuFile>& files, std::int64_t fit_nodes,
                                             std::int64_t predict_nodes, const topo::Catalog& catalog,
                                             const std::vector<std::string>& sets, std::size_t points_per_file) {
  std::map<std::string, std::pair<std::vector<MpiOsuFile>, std::vector<MpiOsuFile>>> by_net;
  for (const auto& f : files) {
    if (f.nodes == fit_nodes) by_net[f.network].first.push_back(f);
    if (f.nodes == predict_nodes) by_net[f.network].second.push_back(f);
  }
  std::vector<MpiCvNetwork> out;
  for (auto& [net, fp] : by_net) {
    if (fp.first.empty() || fp.second.empty()) continue;
    const topo::Cluster cl = topo::Cluster::resolve(osu_cluster_for(net), catalog);
    const sim::MpiConfig start = sim::mpi_config_from(cl, catalog, sets);
    MpiCvNetwork n;
    n.network = net;
    n.fit = fit_mpi(cl, start, fp.first, points_per_file);
    for (const auto& f : fp.second)
      n.rows.push_back({mpi_file_error(cl, n.fit.config, f), mpi_file_error(cl, start, f)});
    std::tie(n.median_fitted, n.max_fitted) = pooled(cl, n.fit.config, fp.second);
    std::tie(n.median_catalog, n.max_catalog) = pooled(cl, start, fp.second);
    spread_and_envelope(cl, n, fp.second);
    out.push_back(std::move(n));
  }
  return out;
}

void write_mpi_cv_table(std::ostream& out, const std::vector<MpiCvNetwork>& nets, std::int64_t fit_nodes,
                        std::int64_t predict_nodes) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "# Open MPI model cross-validation: fit on %lld-node files, predict %lld-node files (relative error "
                "of the OSU Avg Latency; one parameter set per network)\n",
                static_cast<long long>(fit_nodes), static_cast<long long>(predict_nodes));
  out << buf;
  std::snprintf(buf, sizeof buf, "%-8s %-44s %-20s %-20s %6s %9s %9s %9s %9s\n", "network", "file", "requested",
                "model runs", "points", "fit med%", "fit max%", "cat med%", "cat max%");
  out << buf;
  for (const auto& n : nets) {
    for (const auto& r : n.rows) {
      std::snprintf(buf, sizeof buf, "%-8s %-44s %-20s %-20s %6lld %9.1f %9.1f %9.1f %9.1f\n", n.network.c_str(),
                    r.fitted.name.c_str(), r.fitted.requested.c_str(), r.fitted.runs.c_str(),
                    static_cast<long long>(r.fitted.points), 100 * r.fitted.median_rel_error,
                    100 * r.fitted.max_rel_error, 100 * r.catalog.median_rel_error, 100 * r.catalog.max_rel_error);
      out << buf;
    }
    std::snprintf(buf, sizeof buf, "%-8s %-44s %-20s %-20s %6s %9.1f %9.1f %9.1f %9.1f\n", n.network.c_str(),
                  "ALL (pooled)", "", "", "", 100 * n.median_fitted, 100 * n.max_fitted, 100 * n.median_catalog,
                  100 * n.max_catalog);
    out << buf;
    std::snprintf(buf, sizeof buf,
                  "%-8s noise floor of the repeated runs (median |t / per-size median - 1|) %.1f %%; fitted model vs "
                  "the per-size fastest run: median %.1f %%\n",
                  n.network.c_str(), 100 * n.median_spread, 100 * n.median_fitted_envelope);
    out << buf;
  }
  out << "# fitted parameters per network (fit on the " << fit_nodes << "-node files):\n";
  for (const auto& n : nets) write_mpi_fit_text(out, n.network, n.fit);
}

std::string mpi_cv_json(const MpiCvNetwork& n, std::int64_t fit_nodes, std::int64_t predict_nodes) {
  nlohmann::json j = nlohmann::json::parse(mpi_fit_json(n.network, n.fit));
  nlohmann::json cv = {{"fit_nodes", fit_nodes},
                       {"predict_nodes", predict_nodes},
                       {"median_fitted", n.median_fitted},
                       {"max_fitted", n.max_fitted},
                       {"median_catalog", n.median_catalog},
                       {"max_catalog", n.max_catalog},
                       {"median_spread", n.median_spread},
                       {"median_fitted_envelope", n.median_fitted_envelope},
                       {"files", nlohmann::json::array()}};
  for (const auto& r : n.rows)
    cv["files"].push_back({{"name", r.fitted.name},
                           {"requested", r.fitted.requested},
                           {"runs", r.fitted.runs},
                           {"points", r.fitted.points},
                           {"fitted", {{"median", r.fitted.median_rel_error}, {"max", r.fitted.max_rel_error}}},
                           {"catalog", {{"median", r.catalog.median_rel_error}, {"max", r.catalog.max_rel_error}}}});
  j["cross_validation"] = cv;
  return j.dump(2) + "\n";
}

}  // namespace vgsim::calibrate
