// CPU-worker training reports (see include/vgsim/sim/training/cpu_report.hpp).
#include "vgsim/sim/training/cpu_report.hpp"

#include <cstdio>
#include <string>

namespace vgsim::sim::training {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double us_of(Time t) { return static_cast<double>(t.ps) / 1e6; }

const char* unit_name(const CpuTrainingJob& job) {
  return job.model.unit == models::WorkUnit::Token ? "tokens/s" : "samples/s";
}

const char* op_name(models::GroupKind k) { return k == models::GroupKind::AllGather ? "allgather" : "allreduce"; }

void write_collectives(std::ostream& os, const CpuTrainingResult& r) {
  if (r.collectives.empty()) return;
  os << "collectives (first tick phase; Horovod background thread, one after the other):\n";
  os << "  #  op         bytes/rank   tensors  start        copy         mpi          algorithm\n";
  for (std::size_t i = 0; i < r.collectives.size(); ++i) {
    const auto& c = r.collectives[i];
    char line[256];
    std::snprintf(line, sizeof line, "  %-2zu %-10s %-12s %-8d %-12s %-12s %-12s %s\n", i, op_name(c.kind),
                  format_bytes(c.bytes).c_str(), c.tensors, format_time(c.start).c_str(), format_time(c.copy).c_str(),
                  format_time(c.mpi).c_str(), c.algorithm.c_str());
    os << line;
  }
}

void write_scaling(std::ostream& os, const CpuTrainingJob& job, const std::vector<CpuScalingRow>& rows) {
  if (rows.empty()) return;
  const bool dense = job.settings.horovod.sparse_as_dense;
  os << "scaling (" << job.ranks_per_node() << " ranks/node; efficiency = " << unit_name(job) << " / (nodes x 1-node "
     << unit_name(job) << "), same gradient mode):\n";
  os << "  nodes  " << (dense ? "dense allreduce" : "sparse allgather") << " " << unit_name(job) << "  eff     | "
     << (dense ? "sparse allgather" : "dense allreduce (sparse_as_dense)") << " " << unit_name(job)
     << "  eff     | largest message/rank\n";
  for (const auto& row : rows) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-6u %14.1f  %5.1f %% | %14.1f  %5.1f %% | %s\n", row.nodes, row.units_per_s,
                  100.0 * row.efficiency, row.other_units_per_s, 100.0 * row.other_efficiency,
                  format_bytes(row.largest_message).c_str());
    os << line;
  }
}

}  // namespace

void write_cpu_training_summary(std::ostream& os, const CpuTrainingJob& job, const CpuTrainingResult& r,
                                const std::vector<CpuScalingRow>& scaling) {
  const auto& cr = r.compute;
  os << "CPU training: " << job.model.name << " on " << job.nodes << " node(s) x " << job.ranks_per_node()
     << " rank(s) of " << job.cluster->name() << " (" << job.node.sockets << " x " << job.node.name << ", "
     << models::rank_threads(job.cpu, job.node) << " threads/rank), Horovod over Open MPI ("
     << to_string(job.mpi.transport) << ")\n";
  os << "throughput: " << fmt("%.1f", r.units_per_s) << " " << unit_name(job) << " ("
     << fmt("%.1f", r.units_per_s / job.nodes) << " per node), iteration " << format_time(r.iteration) << "\n";
  if (!scaling.empty() && scaling.back().nodes == job.nodes)
    os << "scaling efficiency: " << fmt("%.1f", 100.0 * scaling.back().efficiency) << " % of " << job.nodes
       << " x the 1-node throughput\n";
  os << "per rank: " << fmt("%.0f", cr.work_per_step) << " "
     << (job.model.unit == models::WorkUnit::Token ? "tokens" : "samples") << "/step, forward "
     << format_time(cr.forward) << ", backward " << format_time(cr.backward) << ", optimizer "
     << format_time(cr.optimizer) << ", sparse apply " << format_time(r.sparse_apply) << "\n";
  os << "communication: busy " << format_time(r.comm_busy) << ", exposed " << format_time(r.exposed)
     << ", backward slowed by " << format_time(r.comm_slowdown) << " (communication cores)\n";
  double gathered = 0.0;  // bytes each rank receives from sparse allgathers (its receive buffer)
  for (const auto& c : r.collectives)
    if (c.kind == models::GroupKind::AllGather) gathered += static_cast<double>(c.bytes) * job.ranks();
  if (gathered > 0.0)
    os << "sparse allgather: " << format_bytes(static_cast<Bytes>(gathered)) << " gathered per rank ("
       << format_bytes(static_cast<Bytes>(gathered * job.ranks_per_node()))
       << " per node; node memory capacity is not modelled)\n";
  write_collectives(os, r);
  write_scaling(os, job, scaling);
  os << "parameters (name = value  # source):\n";
  for (const auto& p : job.params)
    if (p.settable) os << "  " << p.name << " = " << param_text(p.value) << "  # " << p.source << "\n";
  os << "facts (catalog, cluster, derived):\n";
  for (const auto& p : job.params)
    if (!p.settable) os << "  " << p.name << " = " << param_text(p.value) << "  # " << p.source << "\n";
}

Json cpu_training_json(const CpuTrainingJob& job, const CpuTrainingResult& r,
                       const std::vector<CpuScalingRow>& scaling) {
  Json j;
  j["workers"] = "cpu";
  j["model"] = job.model.name;
  j["cluster"] = job.cluster->name();
  j["nodes"] = job.nodes;
  j["ranks_per_node"] = job.ranks_per_node();
  j["unit"] = unit_name(job);
  j["throughput"] = r.units_per_s;
  j["iteration_us"] = us_of(r.iteration);
  j["compute_us"] = us_of(r.compute_time);
  j["communication_busy_us"] = us_of(r.comm_busy);
  j["exposed_communication_us"] = us_of(r.exposed);
  j["comm_slowdown_us"] = us_of(r.comm_slowdown);
  j["sparse_apply_us"] = us_of(r.sparse_apply);
  Json cs = Json::array();
  for (const auto& c : r.collectives)
    cs.push_back({{"op", op_name(c.kind)},
                  {"bytes", c.bytes},
                  {"tensors", c.tensors},
                  {"ready_us", us_of(c.ready)},
                  {"start_us", us_of(c.start)},
                  {"copy_us", us_of(c.copy)},
                  {"mpi_us", us_of(c.mpi)},
                  {"algorithm", c.algorithm}});
  j["collectives"] = cs;
  Json rows = Json::array();
  for (const auto& row : scaling)
    rows.push_back({{"nodes", row.nodes},
                    {"throughput", row.units_per_s},
                    {"efficiency", row.efficiency},
                    {"other_mode_throughput", row.other_units_per_s},
                    {"other_mode_efficiency", row.other_efficiency},
                    {"largest_message_bytes", row.largest_message}});
  j["scaling"] = rows;
  j["sparse_as_dense"] = job.settings.horovod.sparse_as_dense;
  Json params = Json::array();
  for (const auto& p : job.params)
    params.push_back({{"name", p.name}, {"value", p.value}, {"source", p.source}, {"settable", p.settable}});
  j["params"] = params;
  return j;
}

}  // namespace vgsim::sim::training
