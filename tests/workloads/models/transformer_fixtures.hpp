// Shared by the Transformer model tests: the shapes of workloads/llm/transformer_shapes.json by name, the A100 SXM4
// 80GB compute spec, and the error text a plan's validation gives.
#pragma once

#include <string>
#include <vector>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/parallel_plan.hpp"
#include "vgsim/workloads/models/transformer_compute.hpp"

namespace vgsim::models::test {

inline const TransformerShape& shape(const std::string& n) {
  static const std::vector<TransformerShape> s = load_transformer_shapes();
  return find_transformer_shape(s, n);
}

// topologies/catalog/gpus.json "a100-sxm-80gb" (NVIDIA A100 datasheet): 312 TFLOP/s fp16/bf16 dense, HBM2e
// 2,039 GB/s, 108 SMs.
inline GpuComputeSpec a100() {
  GpuComputeSpec g;
  g.name = "a100-sxm-80gb";
  g.peak_fp32_flops = 19.5e12, g.peak_tf32_flops = 156e12, g.peak_fp16_flops = 312e12, g.peak_bf16_flops = 312e12;
  g.memory_bandwidth = Bandwidth{2039e9};
  g.sm_count = 108;
  return g;
}

// validate_plan's InputError text ("" when the plan is valid).
inline std::string plan_error(const TransformerShape& m, const ParallelPlan& p) {
  try {
    validate_plan(m, p, "plan.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace vgsim::models::test
