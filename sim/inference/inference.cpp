// Inference throughput per endpoint (see include/vgsim/sim/inference/inference.hpp). Each endpoint is resolved as
// a one-rank job (so MIG shares, VM efficiency and every parameter source come from resolve_job), then all endpoints
// run their forward passes together on one engine with one VgpuScheduler.
#include "vgsim/sim/inference/inference.hpp"

#include <cstdio>
#include <memory>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/virtualization/assumptions.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

namespace vgsim::sim::virt {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
double us(Time t) { return static_cast<double>(t.ps) / 1e6; }

// Runs one endpoint's batches back to back through the scheduler.
struct Stream {
  VgpuScheduler* gpus = nullptr;
  Simulator* sim = nullptr;
  std::uint32_t endpoint = 0;
  Time forward{0};
  int left = 0;
  Time submitted{0}, latency_sum{0}, finished{0};
  void next() {
    submitted = sim->now();
    gpus->submit(endpoint, forward, [this] {
      latency_sum += sim->now() - submitted;
      finished = sim->now();
      if (--left > 0) next();
    });
  }
};

}  // namespace

InferenceResult simulate_inference(const InferenceSpec& spec, const topo::Catalog& catalog) {
  if (spec.batch < 1) throw InputError("", "--batch", "bad batch", std::to_string(spec.batch), "an integer >= 1");
  if (spec.batches < 1 || spec.batches > 100000)
    throw InputError("", "--batches", "bad batch count", std::to_string(spec.batches), "1..100000");
  if (spec.all_endpoints && !spec.endpoints.empty())
    throw InputError("", "--endpoints", "both --endpoints and --all-endpoints given", "", "one of them");
  const topo::Cluster cluster = topo::Cluster::resolve(spec.cluster, catalog);
  std::vector<std::string> names = spec.endpoints;
  if (spec.all_endpoints)
    for (const auto& e : cluster.endpoints()) names.push_back(e.name);
  if (names.empty()) {
    require_gpu_endpoints(cluster);
    names.push_back(cluster.endpoints().front().name);
  }
  std::vector<std::uint32_t> ids;
  std::vector<training::TrainingJob> jobs;
  for (const auto& n : names) {
    std::uint32_t nodes = 0, gpn = 0;
    ids.push_back(training::resolve_endpoints(cluster, {n}, nodes, gpn).front());
    training::JobSpec js;
    js.cluster = spec.cluster;
    js.workload = spec.workload;
    js.endpoints = {n};
    js.sets = spec.sets;
    js.sets.push_back("batch_per_gpu=" + std::to_string(spec.batch));
    js.sets_origin = "--set / --batch";
    js.iterations = 1;
    js.inference = true;
    jobs.push_back(training::resolve_job(js, catalog));
  }
  InferenceResult r;
  r.cluster = cluster.name();
  r.model = jobs.front().model.name;
  r.unit = "samples/s";
  r.batch = spec.batch;
  r.batches = spec.batches;
  r.params = jobs.front().params;
  r.virtualization = virtualization_assumptions(cluster, ids, jobs.front().comm.path, jobs.front().vgpu);

  Simulator sim;
  VgpuScheduler gpus(cluster, sim, jobs.front().vgpu);
  std::vector<std::unique_ptr<Stream>> streams;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const training::TrainingJob& j = jobs[k];
    const models::ComputeResult cr = models::compute_iteration(j.model, j.settings, j.gpu, j.compute, 1);
    const topo::GpuEndpoint& ep = cluster.endpoints()[ids[k]];
    EndpointInference e;
    e.endpoint = ep.name;
    e.mode = ep.mode;
    e.profile = ep.profile;
    e.sm_fraction = j.gpu.sm_fraction;
    e.memory_fraction = j.gpu.memory_fraction;
    e.utilisation = cr.utilisation;
    e.forward = Time{static_cast<std::int64_t>(static_cast<double>(cr.forward.ps) / j.compute_efficiency + 0.5)};
    r.endpoints.push_back(e);
    auto s = std::make_unique<Stream>();
    s->gpus = &gpus;
    s->sim = &sim;
    s->endpoint = ids[k];
    s->forward = e.forward;
    s->left = spec.batches;
    gpus.attach(ids[k]);
    streams.push_back(std::move(s));
  }
  for (auto& s : streams) s->next();
  sim.run();
  for (std::size_t k = 0; k < streams.size(); ++k) {
    EndpointInference& e = r.endpoints[k];
    e.mean_latency = Time{streams[k]->latency_sum.ps / spec.batches};
    e.samples_per_s = static_cast<double>(spec.batch) * spec.batches / streams[k]->finished.s();
    r.aggregate_samples_per_s += e.samples_per_s;
  }
  return r;
}

void write_inference_summary(std::ostream& out, const InferenceResult& r) {
  out << "vgsim infer: " << r.model << " on " << r.cluster << ", batch " << r.batch << ", " << r.batches
      << " batches per endpoint, " << r.endpoints.size() << " endpoint(s) at once\n";
  write_virtualization_summary(out, r.virtualization);
  out << "  endpoint                               mode         profile     SMs   mem   u(batch)  latency/batch   "
         "samples/s\n";
  for (const auto& e : r.endpoints) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-38s %-12s %-10s %5.3f %5.3f %8.3f %12.3f ms %11.2f\n", e.endpoint.c_str(),
                  e.mode.c_str(), e.profile.empty() ? "-" : e.profile.c_str(), e.sm_fraction, e.memory_fraction,
                  e.utilisation, us(e.mean_latency) / 1000.0, e.samples_per_s);
    out << line;
  }
  out << "  aggregate " << fmt("%.2f", r.aggregate_samples_per_s) << " samples/s\n";
}

Json inference_json(const InferenceResult& r) {
  Json j;
  j["tool"] = "vgsim infer";
  j["cluster"] = r.cluster;
  j["model"] = r.model;
  j["batch"] = r.batch;
  j["batches"] = r.batches;
  Json eps = Json::array();
  for (const auto& e : r.endpoints)
    eps.push_back({{"endpoint", e.endpoint},
                   {"mode", e.mode},
                   {"profile", e.profile},
                   {"sm_fraction", e.sm_fraction},
                   {"memory_fraction", e.memory_fraction},
                   {"utilisation", e.utilisation},
                   {"forward_us", us(e.forward)},
                   {"mean_latency_us", us(e.mean_latency)},
                   {"samples_per_s", e.samples_per_s}});
  j["endpoints"] = eps;
  j["aggregate_samples_per_s"] = r.aggregate_samples_per_s;
  j["virtualization"] = r.virtualization;
  Json params = Json::array();
  for (const auto& p : r.params) params.push_back({{"name", p.name}, {"value", p.value}, {"source", p.source}});
  j["parameters"] = params;
  j["not_modelled"] = {"host-side pre/post-processing", "input pipeline", "server-scenario batching delays"};
  return j;
}

}  // namespace vgsim::sim::virt
