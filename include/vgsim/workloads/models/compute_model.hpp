// Per-layer compute time of one training micro-step on one GPU (or a MIG slice of it), a two-phase roofline:
//   t = [ max(FLOPs_eff / (peak[prec] x sm_fraction x eff_compute[prec]) / u(work),
//             matmul_bytes / mem_rate / u_mem(work)) + elementwise_bytes / mem_rate / u_mem(work) ] x
//             calibration_scale,
//   mem_rate = mem_bw x memory_fraction x eff_memory,  u(work) = min(1, work / (saturation x SMs_used / 108)),
//   u_mem(work) = min(1, work / (saturation x memory_fraction)) (equal to u on a whole GPU).
// The matmul (conv/linear) kernel is a roofline; the memory-bound kernels after it (BN, activations, adds, softmax,
// LN) run one after another, so their time adds. FLOPs_eff: 3x3 stride-1 convolutions on the FP32 CUDA-core path
// count 1/kWinogradFactor of their direct FLOPs (cuDNN Winograd). Below saturation a layer takes as long as at the
// saturation batch (MISO A100 step times, docs/SOURCES.md#mig-vgpu); memory traffic saturates at the memory share of
// it (Little's law: bytes in flight in proportion to bandwidth), so a MIG slice is never faster than its GPU and a
// slice with more SMs and no less bandwidth never slower than one with fewer. Pure arithmetic, no engine.
// Units: FLOP/s, Bandwidth (bytes/s), Time (ps); "work" is samples or tokens (the model's unit) per micro-step.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/models/model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::models {

// What the compute model needs to know about a GPU; sim/ fills it from the device catalog. Peaks are dense
// (no sparsity) FLOP/s; 0 means "not supported" (tf32 falls back to fp32, bf16 to fp16).
struct GpuComputeSpec {
  std::string name;
  double peak_fp32_flops = 0.0;  // CUDA-core FP32
  double peak_tf32_flops = 0.0;  // tensor-core TF32
  double peak_fp16_flops = 0.0;  // tensor-core FP16 (also used for AMP)
  double peak_bf16_flops = 0.0;  // tensor-core BF16
  Bandwidth memory_bandwidth;    // device memory
  int sm_count = 0;              // SMs of the whole GPU
  double sm_fraction = 1.0;      // share of the SMs this context gets (MIG: slice SMs / sm_count)
  double memory_fraction = 1.0;  // share of memory bandwidth (MIG: memory slices / 8)
};

// Defaults of the compute model, each with its source. The compute efficiencies are per math path (achieved
// fraction of the dense peak by the convolution/GEMM kernels of a training step, ResNet-50-like layer sizes);
// each is fitted to ONE published figure, named below, and the development rows of other GPUs / frameworks /
// precisions are predictions from it (tests/sim/training/test_training.cpp).
// Tensor-core FP16/BF16 (also AMP): 0.30 [assumption, fitted] so ResNet-50 v1.5 AMP bs256 on an A100-SXM-80GB
// predicts DLE PyTorch's 2,470 img/s (training-cases.csv dle-rn50-pyt-amp-1).
constexpr double kDefaultEffTensorFp16 = 0.30;
// Tensor-core TF32: 0.21 [assumption, fitted] to DLE TF1 ResNet-50 TF32 bs256 on an A100-SXM-40GB, 909 img/s
// (docs/SOURCES.md#single-gpu-throughput; NOT a development-set row). Lower than FP16: TF32 operands are 4 B, so the
// same kernel moves twice the bytes per FLOP through shared memory and L2.
constexpr double kDefaultEffTensorTf32 = 0.21;
// FP32 on CUDA cores (FMA; also TF32/BF16 requests on GPUs without those units): 0.58 [assumption, fitted] to DLE
// PyTorch ResNet-50 FP32 bs256 on a V100-16GB, 367 img/s (docs/SOURCES.md#single-gpu-throughput; NOT a development-set
// row).
constexpr double kDefaultEffFma = 0.58;
// Kept for callers that want one number: the tensor-core FP16 efficiency.
constexpr double kDefaultEffCompute = kDefaultEffTensorFp16;
// eff_memory 0.90 [assumption]: achieved fraction of the datasheet DRAM bandwidth by streaming (copy-like) kernels,
// the usual STREAM-copy fraction on HBM GPUs.
constexpr double kDefaultEffMemory = 0.90;
// Winograd F(2x2, 3x3) does 16 multiplies where direct convolution does 36: 2.25x fewer (Lavin & Gray, "Fast
// Algorithms for Convolutional Neural Networks", CVPR 2016). cuDNN picks Winograd for 3x3 stride-1 FP32 convolutions
// [assumption: in forward and backward alike]; tensor-core paths use implicit GEMM (no reduction).
constexpr double kWinogradFactor = 2.25;
// Default compute efficiency for a precision on a GPU (the math path the precision runs on there).
double default_eff_compute(Precision p, const GpuComputeSpec& gpu);
// [assumption] saturation batch when the model file gives none: 32 samples / 4,096 tokens on a 108-SM GPU.
constexpr double kDefaultSaturationSamples = 32.0;
constexpr double kDefaultSaturationTokens = 4096.0;
// A100 SM count (NVIDIA A100 datasheet): the GPU the saturation batches are stated for.
constexpr int kReferenceSmCount = 108;

struct ComputeParams {
  // Explicit values win over the model file's, which win over the defaults above.
  std::optional<double> eff_compute;
  std::optional<double> eff_memory;
  std::optional<double> saturation;  // work units (samples or tokens) that fill a kReferenceSmCount GPU
  double calibration_scale = 1.0;    // multiplies every time; set by calibrate_to_throughput
};

// The compute model's parameters, declared once here: compute.eff_compute, compute.eff_memory, compute.saturation
// (the fields above) and compute.measured_throughput (calibrate_to_throughput's target), with bounds and sources.
const std::vector<ParamDecl>& compute_params();

struct LayerTime {
  std::string name;
  Time forward;
  Time backward;
  std::int64_t params = 0;
  Bytes grad_bytes = 0;             // dense gradient bytes as communicated (precision and compression applied)
  bool sparse = false;              // sparse gradient under Horovod without sparse_as_dense
  Bytes sparse_bytes_per_rank = 0;  // IndexedSlices size per rank: lookups x (row bytes + 8 B int64 index)
};

struct ComputeResult {
  std::vector<LayerTime> layers;  // BACKWARD order (first entry = first gradient ready)
  Time forward;                   // sum of layer forward times
  Time backward;                  // sum of layer backward times
  Time optimizer;                 // optimizer step (memory bound)
  double work_per_step = 0.0;     // samples or tokens per GPU per micro-step
  double samples_per_step = 0.0;
  double utilisation = 1.0;  // u(work), 1 = saturated
  Time step() const { return forward + backward + optimizer; }
};

// Resolved parameter values (for reports): what compute_iteration actually used. eff_compute depends on the math
// path: pass the precision and GPU; without them it is the tensor-core FP16 default (kDefaultEffTensorFp16).
struct ResolvedComputeParams {
  double eff_compute, eff_memory, saturation, calibration_scale;
};
ResolvedComputeParams resolve(const ComputeParams& p, const Model& m);
ResolvedComputeParams resolve(const ComputeParams& p, const Model& m, Precision prec, const GpuComputeSpec& gpu);

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
