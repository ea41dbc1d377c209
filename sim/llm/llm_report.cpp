// Large-model training reports: text summary, JSON and Chrome trace (include/vgsim/sim/llm/llm_run.hpp).
#include <cstdio>
#include <ostream>
#include <string>
#include <utility>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/sim/llm/llm_run.hpp"
#include "vgsim/workloads/models/moe.hpp"

namespace vgsim::sim::llm {

namespace {

// Microseconds as report.cpp writes them (picoseconds / 1e6, exact for an integer; Time::us() multiplies by 1e-6).
double us_of(Time t) { return static_cast<double>(t.ps) / 1e6; }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double gib(double b) { return b / double(1 << 30); }

std::string share(Time part, Time whole) {
  return fmt("%9.3f ms", part.ms()) + fmt("  %5.1f %%", whole.ps ? 100.0 * double(part.ps) / double(whole.ps) : 0);
}

void write_plan(std::ostream& os, const LlmJob& job, const LlmResult& r) {
  const auto& p = job.plan;
  os << "plan: tp " << p.tp << " x pp " << p.pp << " x dp " << p.dp << " = " << job.ranks() << " GPUs, "
     << models::to_string(p.schedule)
     << (p.virtual_stages > 1 ? " (" + std::to_string(p.virtual_stages) + " chunks)" : "") << ", micro-batch "
     << p.micro_batch << ", global batch " << p.global_batch << " (" << p.micro_batches()
     << " micro-batches per replica), ZeRO " << p.zero_stage << ", recompute " << models::to_string(p.recompute)
     << (p.sequence_parallel ? ", sequence parallel" : "")
     << (r.moe ? ", MoE " + std::to_string(job.shape.experts) + " experts top-" + std::to_string(job.shape.top_k) +
                     " ep " + std::to_string(p.ep) + " capacity " +
                     models::moe_capacity_factor_text(p.moe_capacity_factor)
               : "")
     << "\n";
  os << "memory per GPU (largest stage): weights " << fmt("%.2f", gib(r.memory.weights)) << " + gradients "
     << fmt("%.2f", gib(r.memory.gradients)) << " + optimizer " << fmt("%.2f", gib(r.memory.optimizer))
     << " + activations " << fmt("%.2f", gib(r.memory.activations)) << " = " << fmt("%.2f", gib(r.memory.total()))
     << " GiB of " << fmt("%.2f", gib(job.memory_bytes)) << " GiB on " << job.memory_device << "\n";
  // The transients at the backward's peak, already inside the terms above (parallel_plan.hpp's MemoryEstimate).
  const std::pair<const char*, double> transients[] = {
      {"recomputed layer (in activations)", r.memory.recompute_layer},
      {"ZeRO-3 gathered weights (in weights)", r.memory.zero3_gathered},
      {"ZeRO-3 unsharded gradients (in gradients)", r.memory.zero3_unsharded_gradients}};
  std::string parts;
  for (const auto& [what, bytes] : transients)
    if (bytes > 0.0) parts += (parts.empty() ? "" : ", ") + std::string(what) + " " + fmt("%.2f", gib(bytes)) + " GiB";
  if (!parts.empty()) os << "  of which transient at the backward's peak: " << parts << "\n";
}

void write_breakdown(std::ostream& os, const LlmResult& r) {
  os << "iteration " << fmt("%.3f ms", r.iteration.ms()) << " (pipeline rank " << r.critical_stage << " ends last):\n";
  os << "  compute                          " << share(r.compute, r.iteration) << "\n";
  os << "  tensor-parallel communication    " << share(r.tp_exposed, r.iteration) << "\n";
  os << "  ZeRO-3 weight/gradient traffic   " << share(r.zero3_exposed, r.iteration) << "\n";
  if (r.moe) os << "  expert-parallel all-to-all (EP)  " << share(r.ep_exposed, r.iteration) << "\n";
  os << "  pipeline bubble and p2p waits    " << share(r.pipeline_idle, r.iteration)
     << fmt("   (ideal bubble (p-1)/(v m) = %.1f %%)", 100.0 * r.ideal_bubble_fraction) << "\n";
  os << "  data-parallel gradient sync      " << share(r.dp_exposed, r.iteration) << "\n";
  os << "  optimizer step                   " << share(r.optimizer, r.iteration) << "\n";
  os << fmt("throughput: %.0f tokens/s", r.tokens_per_s) << fmt(", %.1f model TFLOP/s per GPU", r.model_tflops_per_gpu)
     << fmt(" (%.1f with recomputation)", r.hardware_tflops_per_gpu) << fmt(", MFU %.1f %%", 100.0 * r.mfu)
     << fmt(", HFU %.1f %%", 100.0 * r.hfu) << "\n";
}

}  // namespace

void write_llm_summary(std::ostream& os, const LlmJob& job, const LlmResult& r) {
  // The plan, the layer model and the facts; the NCCL knobs and constants and the capacity scales (about 180 more
  // names) are listed by `vgsim params` with the same arguments.
  os << "# parameters (name = value  # source; NCCL knobs, NCCL constants and capacity scales: vgsim params)\n";
  for (const auto& prm : job.params) {
    const bool network = prm.name.rfind("nccl.", 0) == 0 || prm.name.rfind("capacity_scale.", 0) == 0;
    if (network && prm.settable) continue;
    os << (prm.settable ? "" : "# ") << prm.name << " = " << param_text(prm.value) << "  # " << prm.source << "\n";
  }
  os << "\n" << job.shape.name << " on " << job.platform.cluster->name() << "\n";
  write_plan(os, job, r);
  write_breakdown(os, r);
  os << "communication (simulated on the engine; groups = instances sharing nodes, run together):\n";
  for (const auto& c : r.comms)
    os << "  " << c.what << ": " << c.op << " " << format_bytes(c.bytes) << fmt(", %.3f ms", c.time.ms()) << ", "
       << c.groups << " group(s), " << c.algo << "/" << c.proto << " x" << c.channels << ", " << c.count
       << " per iteration\n";
}

Json llm_json(const LlmJob& job, const LlmResult& r) {
  Json j;
  j["workload"] = job.shape.name;
  j["cluster"] = job.platform.cluster->name();
  Json params = Json::array();
  for (const auto& p : job.params)
    params.push_back({{"name", p.name}, {"value", p.value}, {"source", p.source}, {"settable", p.settable}});
  j["parameters"] = params;
  j["iteration_us"] = us_of(r.iteration);
  j["breakdown_us"] = {{"compute", us_of(r.compute)},
                       {"tp_communication", us_of(r.tp_exposed)},
                       {"zero3_traffic", us_of(r.zero3_exposed)},
                       {"pipeline_idle", us_of(r.pipeline_idle)},
                       {"dp_sync", us_of(r.dp_exposed)},
                       {"optimizer", us_of(r.optimizer)}};
  if (r.moe) j["breakdown_us"]["ep_communication"] = us_of(r.ep_exposed);
  j["critical_stage"] = r.critical_stage;
  j["ideal_bubble_fraction"] = r.ideal_bubble_fraction;
  j["tokens_per_s"] = r.tokens_per_s;
  j["model_tflops_per_gpu"] = r.model_tflops_per_gpu;
  j["hardware_tflops_per_gpu"] = r.hardware_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["memory_bytes"] = {{"weights", r.memory.weights},     {"gradients", r.memory.gradients},
                       {"optimizer", r.memory.optimizer}, {"activations", r.memory.activations},
                       {"total", r.memory.total()},       {"capacity", job.memory_bytes}};
  Json comms = Json::array();
  for (const auto& c : r.comms)
    comms.push_back({{"what", c.what},
                     {"op", c.op},
                     {"bytes", c.bytes},
                     {"time_us", us_of(c.time)},
                     {"groups", c.groups},
                     {"algo", c.algo},
                     {"proto", c.proto},
                     {"channels", c.channels},
                     {"per_iteration", c.count}});
  j["communication"] = comms;
  return j;
}

Json llm_chrome_trace(const LlmJob& job, const LlmResult& r) {
  Json ev = Json::array();
  const auto& p = job.plan;
  for (std::int64_t s = 0; s < p.pp; ++s) {
    ev.push_back({{"name", "process_name"},
                  {"ph", "M"},
                  {"pid", s},
                  {"args", {{"name", "pipeline stage " + std::to_string(s)}}}});
    for (const auto& span : r.timeline.ranks[s]) {
      const std::string name = std::string(span.op.backward ? "B" : "F") + std::to_string(span.op.micro) +
                               (p.virtual_stages > 1 ? "." + std::to_string(span.op.chunk) : "");
      ev.push_back({{"name", name},
                    {"cat", span.op.backward ? "backward" : "forward"},
                    {"ph", "X"},
                    {"pid", s},
                    {"tid", 0},
                    {"ts", us_of(span.start)},
                    {"dur", us_of(span.end - span.start)},
                    {"args", {{"micro_batch", span.op.micro}, {"chunk", span.op.chunk}}}});
    }
    const Time sync_start = r.stage_end[s] - r.stage_optimizer[s] - r.stage_sync[s];
    ev.push_back({{"name", "gradient sync"},
                  {"cat", "data-parallel"},
                  {"ph", "X"},
                  {"pid", s},
                  {"tid", 1},
                  {"ts", us_of(sync_start)},
                  {"dur", us_of(r.stage_sync[s])}});
    ev.push_back({{"name", "optimizer"},
                  {"cat", "optimizer"},
                  {"ph", "X"},
                  {"pid", s},
                  {"tid", 0},
                  {"ts", us_of(r.stage_end[s] - r.stage_optimizer[s])},
                  {"dur", us_of(r.stage_optimizer[s])}});
  }
  return Json{{"traceEvents", ev}, {"displayTimeUnit", "ms"}};
}

}  // namespace vgsim::sim::llm
