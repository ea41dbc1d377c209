// Training reports: human summary, JSON, Chrome trace (see include/vgsim/sim/training/report.hpp).
#include "vgsim/sim/training/report.hpp"

#include <cstdio>
#include <string>

#include "vgsim/sim/training/bottleneck.hpp"
#include "vgsim/sim/virtualization/assumptions.hpp"

namespace vgsim::sim::training {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Microseconds with picosecond resolution, as a JSON number (deterministic: exact decimal of an integer / 1e6).
double us_of(Time t) { return static_cast<double>(t.ps) / 1e6; }

std::string group_label(const TrainingResult& r, const CollectiveRecord& c) {
  const auto& layers = r.compute.layers;
  std::string s = layers[c.tensors.front()].name;
  if (c.tensors.size() > 1) s += " .. " + layers[c.tensors.back()].name;
  return s;
}

Json iteration_json(const TrainingResult& r, const IterationRecord& it) {
  Json j;
  j["start_us"] = us_of(it.start);
  j["backward_start_us"] = us_of(it.backward_start);
  j["backward_end_us"] = us_of(it.backward_end);
  j["optimizer_start_us"] = us_of(it.optimizer_start);
  j["end_us"] = us_of(it.end);
  j["duration_us"] = us_of(it.duration());
  Json cs = Json::array();
  for (const auto& c : it.collectives) {
    Json cj;
    cj["group"] = c.group;
    cj["op"] = c.kind == models::GroupKind::AllGather ? "allgather" : "allreduce";
    cj["bytes"] = c.bytes;
    cj["call_bytes"] = c.total_bytes;
    cj["tensors"] = c.tensors.size();
    cj["layers"] = group_label(r, c);
    cj["ready_us"] = us_of(c.ready);
    cj["start_us"] = us_of(c.start);
    cj["finish_us"] = us_of(c.finish);
    cj["duration_us"] = us_of(c.duration());
    cj["algo"] = c.algo;
    cj["proto"] = c.proto;
    cj["channels"] = c.channels;
    cj["replayed"] = c.replayed;
    cs.push_back(cj);
  }
  j["collectives"] = cs;
  return j;
}

Json result_json(const TrainingResult& r, const std::string& unit) {
  Json j;
  j["ranks"] = r.ranks;
  j["nodes"] = r.nodes;
  j["gpus_per_node"] = r.gpus_per_node;
  j["transports"] = r.transports;
  j["nccl_net"] = r.nccl_net;
  j["transport_reasons"] = r.transport_reasons;  // "why: ..." lines (topologies/path_reasons.hpp)
  j["throughput"] = {{"value", r.work_per_s}, {"unit", unit}};
  j["samples_per_s"] = r.samples_per_s;
  j["iteration_us"] = us_of(r.iteration_time);
  j["compute_us"] = us_of(r.compute_time);
  j["exposed_communication_us"] = us_of(r.exposed_communication);
  j["nccl_slowdown_us"] = us_of(r.nccl_slowdown);  // backward slowed by NCCL's SMs (part of the exposed time)
  j["communication_busy_us"] = us_of(r.communication_busy);
  // Exposed communication by cause (exposure.hpp; sums to exposed_communication_us); {} when not explained.
  Json causes = Json::object();
  for (const auto& c : r.exposure) causes[c.name + "_us"] = us_of(c.time);
  j["exposed_by_cause"] = causes;
  j["overlap_fraction"] = r.overlap_fraction;
  j["micro_steps"] = r.micro_steps;
  // Horovod: the steady state above is the mean over these cycle-tick phases (training_run.hpp); [] without ticks.
  Json phases = Json::array();
  for (const auto& p : r.tick_phases)
    phases.push_back({{"tick_offset_us", us_of(p.offset)},
                      {"iteration_us", us_of(p.iteration_time)},
                      {"exposed_communication_us", us_of(p.exposed_communication)}});
  j["tick_phases"] = phases;
  j["per_gpu"] = {{"samples_per_micro_step", r.compute.samples_per_step},
                  {"work_per_micro_step", r.compute.work_per_step},
                  {"forward_us", us_of(r.compute.forward)},
                  {"backward_us", us_of(r.compute.backward)},
                  {"optimizer_us", us_of(r.compute.optimizer)},
                  {"utilisation", r.compute.utilisation}};
  Json layers = Json::array();
  for (const auto& l : r.compute.layers)
    layers.push_back({{"name", l.name},
                      {"forward_us", us_of(l.forward)},
                      {"backward_us", us_of(l.backward)},
                      {"grad_bytes", l.grad_bytes},
                      {"sparse", l.sparse}});
  j["layers_backward_order"] = layers;
  Json its = Json::array();
  for (const auto& it : r.iterations) its.push_back(iteration_json(r, it));
  j["iterations"] = its;
  Json res = Json::array();
  for (const auto& u : r.resources)
    res.push_back({{"name", u.name},
                   {"kind", u.kind},
                   {"capacity_GBps", u.capacity_bytes_per_s / 1e9},
                   {"bytes", u.bytes},
                   {"utilisation", u.utilisation}});
  j["resources"] = res;
  const IterationBottleneck b = iteration_bottleneck(r);  // the largest term of the iteration (bottleneck.hpp)
  j["bottleneck"] = {{"what", b.what},
                     {"share", b.share},
                     {"busiest", b.busiest},
                     {"busiest_utilisation_during_comm", b.busiest_utilisation_during_comm}};
  j["engine"] = {{"events", r.events}, {"flows", r.flows}};
  return j;
}

}  // namespace

std::string throughput_unit(const models::Model& m) {
  return m.unit == models::WorkUnit::Token ? "tokens/s" : "samples/s";
}

void write_training_summary(std::ostream& out, const TrainingJob& job, const TrainingStudy& st, std::size_t top) {
  const TrainingResult& r = st.result;
  const std::string unit = throughput_unit(job.model);
  out << "vgsim train: " << job.model.name << " on " << job.cluster->name() << ", " << r.nodes << " node(s) x "
      << r.gpus_per_node << " GPU(s) = " << r.ranks << " rank(s) (" << job.gpu.name << ")\n";
  out << "  settings: " << models::to_string(job.settings.framework) << ", "
      << models::to_string(job.settings.precision) << ", " << r.compute.samples_per_step << " samples/GPU/micro-step x "
      << r.micro_steps << " micro-step(s), " << models::to_string(job.settings.scaling) << " scaling"
      << (job.measured_throughput
              ? ", compute calibrated to " + fmt("%.2f", *job.measured_throughput) + " samples/s on 1 GPU"
              : ", uncalibrated roofline")
      << "\n";
  if (!r.transports.empty()) out << "  transports: " << r.transports << "\n";
  if (!r.nccl_net.empty()) out << "  nccl net: " << r.nccl_net << "\n";
  for (const auto& w : r.transport_reasons) out << "    " << w << "\n";
  if (job.comm.fold_channels)
    out << "  channel fold: on (approximation; each ring or tree ran its representative channels only, each "
           "resource's capacity divided among the channels that cross it)\n";
  virt::write_virtualization_summary(
      out, virt::virtualization_assumptions(*job.cluster, job.rank_to_endpoint, job.comm.path, job.vgpu));
  out << "  steady state (iteration " << r.iterations.size() << " of " << r.iterations.size();
  if (!r.tick_phases.empty())
    out << ", mean over " << r.tick_phases.size() << " Horovod tick phases: last gradient + (k + 1/2) x cycle / "
        << r.tick_phases.size();
  out << "):\n";
  out << "    throughput            " << fmt("%.2f", r.work_per_s) << " " << unit;
  if (unit != "samples/s") out << " (" << fmt("%.2f", r.samples_per_s) << " samples/s)";
  out << "\n";
  out << "    iteration             " << format_time(r.iteration_time) << "\n";
  out << "    compute               " << format_time(r.compute_time) << " (forward " << format_time(r.compute.forward)
      << ", backward " << format_time(r.compute.backward) << " per micro-step, optimizer "
      << format_time(r.compute.optimizer) << ")\n";
  out << "    exposed communication " << format_time(r.exposed_communication) << "\n";
  if (r.nccl_slowdown.ps > 0)
    out << "      of which NCCL SMs " << format_time(r.nccl_slowdown) << " (backward slowed while collectives ran)\n";
  if (!r.exposure.empty() && r.exposed_communication.ps > 0) {
    out << "      by cause          ";
    const ExposureCause* interaction = nullptr;
    for (std::size_t k = 0; k < r.exposure.size(); ++k) {
      if (r.exposure[k].name == "interaction") {
        interaction = &r.exposure[k];
        continue;
      }
      out << (k ? ", " : "") << r.exposure[k].name << " " << format_time(r.exposure[k].time);
    }
    out << "\n";
    if (interaction && interaction->time.ps != 0)  // the causes' parts are each alone; what they do together
      out << "      interaction       " << (interaction->time.ps > 0 ? "+" : "") << format_time(interaction->time)
          << " (the causes together " << (interaction->time.ps > 0 ? "cost more" : "cost less")
          << " than their parts alone; exposure.hpp)\n";
  }
  out << "    communication busy   "
      << " " << format_time(r.communication_busy);
  if (r.communication_busy.ps > 0) out << " (overlap " << fmt("%.1f", 100.0 * r.overlap_fraction) << " % hidden)";
  out << "\n";
  if (r.tick_phases.size() > 1) {
    out << "    per tick phase        ";
    for (std::size_t k = 0; k < r.tick_phases.size(); ++k)
      out << (k ? ", " : "") << format_time(r.tick_phases[k].iteration_time);
    out << "\n";
  }
  out << "    1-GPU baseline        " << fmt("%.2f", st.single_gpu.work_per_s) << " " << unit << "\n";
  out << "    scaling efficiency    " << fmt("%.1f", 100.0 * st.scaling_efficiency) << " % of " << r.ranks
      << " x 1 GPU\n";
  out << "    limited by            " << describe(iteration_bottleneck(r)) << "\n";
  const IterationRecord& last = r.iterations.back();
  if (!last.collectives.empty()) {
    out << "  collectives (last iteration" << (r.tick_phases.empty() ? "" : " of the first tick phase")
        << ", issue order):\n";
    out << "    #  op         bytes        ready(us)    start(us)   duration(us)  algo/proto  ch  layers\n";
    for (const auto& c : last.collectives) {
      char line[256];
      std::snprintf(line, sizeof line, "    %-2d %-10s %-12s %11.1f %12.1f %14.1f  %-5s/%-6s %2u  ", c.group,
                    c.kind == models::GroupKind::AllGather ? "allgather" : "allreduce",
                    format_bytes(c.total_bytes).c_str(), us_of(c.ready - last.start), us_of(c.start - last.start),
                    us_of(c.duration()), c.algo.c_str(), c.proto.c_str(), c.channels);
      out << line << group_label(r, c) << "\n";
    }
  }
  if (!r.resources.empty()) {
    out << "  top resources (bytes / (capacity x iteration)):\n";
    for (std::size_t i = 0; i < r.resources.size() && i < top; ++i) {
      const auto& u = r.resources[i];
      char line[256];
      std::snprintf(line, sizeof line, "    %6.1f %%  %-40s %-14s %8.2f GB/s\n", 100.0 * u.utilisation, u.name.c_str(),
                    u.kind.c_str(), u.capacity_bytes_per_s / 1e9);
      out << line;
    }
  }
}

Json training_json(const TrainingJob& job, const TrainingStudy& st) {
  const std::string unit = throughput_unit(job.model);
  Json j;
  j["tool"] = "vgsim train";
  j["model"] = job.model.name;
  j["cluster"] = job.cluster->name();
  j["result"] = result_json(st.result, unit);
  j["single_gpu"] = {{"throughput", {{"value", st.single_gpu.work_per_s}, {"unit", unit}}},
                     {"samples_per_s", st.single_gpu.samples_per_s},
                     {"iteration_us", us_of(st.single_gpu.iteration_time)}};
  j["scaling_efficiency"] = st.scaling_efficiency;
  Json params = Json::array();
  for (const auto& p : job.params) params.push_back({{"name", p.name}, {"value", p.value}, {"source", p.source}});
  j["parameters"] = params;
  j["virtualization"] = virt::virtualization_assumptions(*job.cluster, job.rank_to_endpoint, job.comm.path, job.vgpu);
  if (job.comm.fold_channels)
    j["channel_fold"] = {
        {"on", true},
        {"note",
         "an approximation (--fold-channels): each ring or tree ran its representative channels only, each resource's "
         "capacity divided among the channels that cross it; per-resource bytes count the resources the "
         "representatives crossed (times that divisor), so a resource only other channels cross shows none"}};
  j["not_modelled"] = {
      "HBM bandwidth taken by NCCL reductions [derived bound: a ring allreduce of S bytes reads and writes about 3S of "
      "HBM per GPU over its duration, e.g. ResNet-50's 102 MB in 30 ms = 10 GB/s of an A100's 1,555 GB/s, under 1 % of "
      "the memory-bound kernels it overlaps]",
      "input pipeline and host-side framework overheads",
      "Horovod negotiation messages (with requests queued at dispatch they are exchanged before the gradients exist; "
      "with requests when ready they fall inside the cycle tick)"};
  return j;
}

Json chrome_trace(const TrainingJob& job, const TrainingResult& r) {
  Json ev = Json::array();
  auto x = [&](std::uint32_t pid, int tid, const std::string& name, const char* cat, Time start, Time dur, Json args) {
    Json e = {{"name", name}, {"cat", cat},         {"ph", "X"},        {"pid", pid},
              {"tid", tid},   {"ts", us_of(start)}, {"dur", us_of(dur)}};
    if (!args.is_null()) e["args"] = std::move(args);
    ev.push_back(std::move(e));
  };
  const auto& layers = r.compute.layers;  // backward order
  const auto& eps = job.cluster->endpoints();
  for (std::uint32_t rank = 0; rank < r.ranks; ++rank) {
    const std::string gpu = eps[job.rank_to_endpoint[rank]].name;
    ev.push_back({{"name", "process_name"},
                  {"ph", "M"},
                  {"pid", rank},
                  {"args", {{"name", "rank " + std::to_string(rank) + " (" + gpu + ")"}}}});
    ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"name", "compute"}}}});
    ev.push_back({{"name", "thread_name"},
                  {"ph", "M"},
                  {"pid", rank},
                  {"tid", 1},
                  {"args", {{"name", "communication (NCCL stream)"}}}});
    for (std::size_t i = 0; i < r.iterations.size(); ++i) {
      const IterationRecord& it = r.iterations[i];
      Time t = it.start;
      for (std::int64_t m = 0; m < r.micro_steps; ++m) {
        for (auto l = layers.rbegin(); l != layers.rend(); ++l) {
          x(rank, 0, "fwd " + l->name, "forward", t, l->forward, nullptr);
          t += l->forward;
        }
        for (const auto& l : layers) {
          x(rank, 0, "bwd " + l.name, "backward", t, l.backward, {{"grad_bytes", l.grad_bytes}});
          t += l.backward;
        }
      }
      x(rank, 0, "optimizer", "optimizer", it.optimizer_start, r.compute.optimizer, {{"iteration", i}});
      for (const auto& c : it.collectives)
        x(rank, 1,
          std::string(c.kind == models::GroupKind::AllGather ? "allgather " : "allreduce ") +
              format_bytes(c.total_bytes),
          "communication", c.start, c.duration(),
          {{"group", c.group},
           {"layers", group_label(r, c)},
           {"algo", c.algo},
           {"proto", c.proto},
           {"channels", c.channels},
           {"ready_us", us_of(c.ready)}});
    }
  }
  return Json{{"traceEvents", ev}, {"displayTimeUnit", "ms"}};
}

}  // namespace vgsim::sim::training
