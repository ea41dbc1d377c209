// Per-layer compute time of one training micro-step on one GPU (or a MIG slice of it), from a roofline:
//   t = max(FLOPs / (peak[precision] x sm_fraction x eff_compute), bytes / (mem_bw x memory_fraction x eff_memory))
//       / u(work) x calibration_scale,   u(work) = min(1, work / (saturation x SMs_used / reference_SMs)).
// Below saturation the GPU is under-filled and a layer takes as long as at the saturation batch (flat step time, as
// the MISO A100 step times show, training-measurements.md A4). Not a simulator: pure arithmetic, no engine.
// Units: FLOP/s, Bandwidth (bytes/s), Time (ps); "work" is samples or tokens (the model's unit) per micro-step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/models/model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::models {

// What the compute model needs to know about a GPU; sim/ fills it from the device catalog. Peaks are dense
// (no sparsity) FLOP/s; 0 means "not supported" (tf32 falls back to fp32, bf16 to fp16).
struct GpuComputeSpec {
  std::string name;
  double peak_fp32_flops = 0.0;   // CUDA-core FP32
  double peak_tf32_flops = 0.0;   // tensor-core TF32
  double peak_fp16_flops = 0.0;   // tensor-core FP16 (also used for AMP)
  double peak_bf16_flops = 0.0;   // tensor-core BF16
  Bandwidth memory_bandwidth;     // device memory
  int sm_count = 0;               // SMs of the whole GPU
  double sm_fraction = 1.0;       // share of the SMs this context gets (MIG: slice SMs / sm_count)
  double memory_fraction = 1.0;   // share of memory bandwidth (MIG: memory slices / 8)
};

// Defaults of the compute model, each with its source.
// eff_compute 0.45 and eff_memory 0.7: [assumption, fitted] chosen so ResNet-50 v1.5 AMP bs256 on an A100-SXM-80GB
// (312 TFLOP/s fp16, 2039 GB/s, 108 SMs, NVIDIA datasheet) predicts within ~10 % of DLE's 2,470 img/s
// (training-cases.csv dle-rn50-pyt-amp-1); TF32 then lands near DLE's 938 img/s. Calibrated mode replaces them.
constexpr double kDefaultEffCompute = 0.45;
constexpr double kDefaultEffMemory = 0.70;
// [assumption] saturation batch when the model file gives none: 32 samples / 4,096 tokens on a 108-SM GPU.
constexpr double kDefaultSaturationSamples = 32.0;
constexpr double kDefaultSaturationTokens = 4096.0;
// A100 SM count (NVIDIA A100 datasheet): the GPU the saturation batches are stated for.
constexpr int kReferenceSmCount = 108;

struct ComputeParams {
  // Explicit values win over the model file's, which win over the defaults above.
  std::optional<double> eff_compute;
  std::optional<double> eff_memory;
  std::optional<double> saturation;   // work units (samples or tokens) that fill a kReferenceSmCount GPU
  double calibration_scale = 1.0;     // multiplies every time; set by calibrate_to_throughput
};

struct LayerTime {
  std::string name;
  Time forward;
  Time backward;
  std::int64_t params = 0;
  Bytes grad_bytes = 0;               // dense gradient bytes as communicated (precision and compression applied)
  bool sparse = false;                // sparse gradient under Horovod without sparse_as_dense
  Bytes sparse_bytes_per_rank = 0;    // IndexedSlices size per rank: lookups x (row bytes + 8 B int64 index)
};

struct ComputeResult {
  std::vector<LayerTime> layers;      // BACKWARD order (first entry = first gradient ready)
  Time forward;                       // sum of layer forward times
  Time backward;                      // sum of layer backward times
  Time optimizer;                     // optimizer step (memory bound)
  double work_per_step = 0.0;         // samples or tokens per GPU per micro-step
  double samples_per_step = 0.0;
  double utilisation = 1.0;           // u(work), 1 = saturated
  Time step() const { return forward + backward + optimizer; }
};

// Resolved parameter values (for reports): what compute_iteration actually used.
struct ResolvedComputeParams {
  double eff_compute, eff_memory, saturation, calibration_scale;
};
ResolvedComputeParams resolve(const ComputeParams& p, const Model& m);

// Forward and backward times per layer for one micro-step with settings.per_gpu_batch(ranks) samples.
ComputeResult compute_iteration(const Model& m, const TrainingSettings& s, const GpuComputeSpec& gpu,
                                const ComputeParams& p = {}, int ranks = 1);

// The same iteration on a slower (or faster) device: every layer's forward and backward time and the optimizer
// step divided by `speed` (e.g. a VM's compute efficiency 0.98), totals recomputed. speed == 1 returns `r` as is.
ComputeResult scale_compute(ComputeResult r, double speed);

// Calibrated mode: returns `p` with calibration_scale set so that the single-GPU step time (forward + backward +
// optimizer) equals samples_per_step / measured_samples_per_s exactly (up to picosecond rounding), keeping the
// per-layer shape. Throws InputError for a non-positive throughput.
ComputeParams calibrate_to_throughput(const Model& m, const TrainingSettings& s, const GpuComputeSpec& gpu,
                                      ComputeParams p, double measured_samples_per_s);

}  // namespace vgsim::models
