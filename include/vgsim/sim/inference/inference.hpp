// Forward-only (inference) throughput per GPU endpoint: every chosen endpoint runs `batches` forward passes of `batch`
// samples back to back, all at once on one engine, so time-sliced vGPUs share their GPU through the VgpuScheduler
// while MIG instances and whole GPUs run in isolation. Forward time per endpoint = the roofline compute model with the
// endpoint's SM / memory shares (MIG), divided by the VM's compute efficiency. Not modelled: host-side pre/post
// processing, the input pipeline, batching delays of a server scenario. Units: samples/s, Time (ps).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/training/job.hpp"

namespace vgsim::sim::virt {

// [assumption] batch when none is given: 8 samples (small-batch serving; MLPerf offline runs use larger ones).
constexpr std::int64_t kDefaultInferenceBatch = 8;
constexpr int kDefaultInferenceBatches = 20;

struct InferenceSpec {
  std::string cluster, workload;
  std::int64_t batch = kDefaultInferenceBatch;
  std::vector<std::string> endpoints;  // names; empty and !all_endpoints: the cluster's first endpoint
  bool all_endpoints = false;
  std::vector<std::string> sets;  // precision=..., compute.*, vgpu.* (as for training)
  int batches = kDefaultInferenceBatches;
};

struct EndpointInference {
  std::string endpoint, mode, profile;
  double sm_fraction = 1.0, memory_fraction = 1.0;
  double utilisation = 1.0;  // u(batch) of the compute model on this endpoint
  Time forward{0};           // one batch on an idle endpoint (VM efficiency applied)
  Time mean_latency{0};      // per batch as run (includes waiting for vGPU slices)
  double samples_per_s = 0.0;
};

struct InferenceResult {
  std::string cluster, model, unit;
  std::int64_t batch = 0;
  int batches = 0;
  std::vector<EndpointInference> endpoints;
  double aggregate_samples_per_s = 0.0;
  Json virtualization;                        // virtualization_assumptions()
  std::vector<training::ParamRecord> params;  // of the first endpoint's job
};

InferenceResult simulate_inference(const InferenceSpec& spec, const topo::Catalog& catalog);
void write_inference_summary(std::ostream& out, const InferenceResult& r);
Json inference_json(const InferenceResult& r);

}  // namespace vgsim::sim::virt
