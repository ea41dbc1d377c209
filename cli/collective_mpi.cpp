// `vgsim collective --library mpi ...` (cli/collective_mpi.hpp): OSU's output format (osu_util: "%-10d%18.2f"), so an
// OSU file and a simulation diff line by line.
#include "collective_mpi.hpp"

#include <cstdio>
#include <iostream>

#include "vgsim/calibrate/mpi_fit.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/mpi_collective.hpp"

namespace vgsim::cli {

namespace {

const char* osu_title(coll::Op op) {
  switch (op) {
    case coll::Op::AllReduce:
      return "# OSU MPI Allreduce Latency Test v5.7";
    case coll::Op::AllGather:
      return "# OSU MPI Allgather Latency Test v5.7";
    default:
      return "";
  }
}

}  // namespace

void run_mpi_collective(const MpiCollectiveRequest& r, const std::vector<Bytes>& sizes) {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve(r.cluster, catalog);
  const coll::Op op = [&] {
    try {
      return coll::parse_op(r.op);
    } catch (const UnitError& e) {
      throw InputError("", "--op", "bad value", r.op, e.what());
    }
  }();
  if (op != coll::Op::AllReduce && op != coll::Op::AllGather)
    throw InputError("", "--op", "not modelled for --library mpi", r.op, "allreduce or allgather");
  std::vector<std::string> sets;
  if (!r.profile.empty()) sets = calibrate::read_mpi_fit_sets(r.profile);
  if (!r.mpi_algo.empty()) sets.push_back("mpi.algorithm=" + r.mpi_algo), sets.push_back("mpi.dynamic_rules=true");
  sets.insert(sets.end(), r.sets.begin(), r.sets.end());
  const sim::MpiConfig config = sim::mpi_config_from(cluster, catalog, sets, "--set");
  const std::uint32_t nodes = r.nodes ? r.nodes : static_cast<std::uint32_t>(cluster.hosts().size());
  if (nodes > cluster.hosts().size())
    throw InputError(cluster.file(), "--nodes", "more nodes than the cluster has hosts", std::to_string(nodes),
                     "1.." + std::to_string(cluster.hosts().size()) + " (the hosts of " + cluster.name() + ")");
  std::cerr << "# vgsim: simulated Open MPI " << coll::to_string(config.release) << " " << r.op << " on "
            << cluster.name() << ", " << nodes << " node(s) x " << r.ranks_per_node << " rank(s), transport "
            << sim::to_string(config.transport) << (r.profile.empty() ? "" : ", profile " + r.profile) << "\n";
  for (const auto& [name, value] : config.provenance) std::cerr << "# vgsim:   " << name << " = " << value << "\n";
  if (!r.profile.empty())
    for (const auto& w : calibrate::mpi_profile_warnings(r.profile, config, nodes, r.ranks_per_node))
      std::cerr << "# vgsim: warning: " << w << "\n";
  // Every size first, so the `# vgsim:` notes (stderr) come before the table (stdout) even when both go to one file.
  std::vector<sim::MpiCollectiveResult> results;
  std::string last_reason;
  for (Bytes size : sizes) {
    results.push_back(sim::simulate_mpi_collective(cluster, config, op, size, nodes, r.ranks_per_node));
    if (results.back().reason != last_reason)
      std::cerr << "# vgsim: from " << size << " B: " << results.back().reason << "\n";
    last_reason = results.back().reason;
  }
  std::cerr.flush();
  std::cout << "\n" << osu_title(op) << "\n# Size       Avg Latency(us)\n";
  Json rows = Json::array();
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    char line[64];
    std::snprintf(line, sizeof line, "%-10lld%18.2f\n", static_cast<long long>(sizes[k]), results[k].time.us());
    std::cout << line;
    rows.push_back({{"size", sizes[k]}, {"avg_latency_us", results[k].time.us()}, {"algorithm", results[k].algorithm}});
  }
  if (!r.json_out.empty())
    write_file_atomically(r.json_out, Json{{"cluster", cluster.name()},
                                           {"op", r.op},
                                           {"nodes", nodes},
                                           {"ranks_per_node", r.ranks_per_node},
                                           {"rows", rows}}
                                              .dump(2) +
                                          "\n");
}

void print_mpi_params(const std::string& cluster_name, const std::vector<std::string>& sets) {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster =
      topo::Cluster::resolve(cluster_name.empty() ? calibrate::osu_cluster_for("10g") : cluster_name, catalog);
  const sim::MpiConfig config = sim::mpi_config_from(cluster, catalog, sets, "--set");
  std::cout << "# Open MPI model parameters on " << cluster.name() << " (--set mpi.NAME=value)\n";
  for (const auto& [name, value] : config.provenance) {
    std::cout << name << " = " << value << "\n";
    for (const auto& d : sim::mpi_param_decls())
      if (d.name == name)
        std::cout << "#   " << d.expectation() << (d.unit.empty() ? "" : " " + d.unit) << ": " << d.help
                  << "; default: " << d.source << "\n";
  }
}

}  // namespace vgsim::cli
