// Per-layer compute time of one training step of one MPI rank on a multi-core CPU node (TensorFlow + MKL-DNN style:
// each rank runs OMP_NUM_THREADS threads on its share of the node's cores), a two-term model per layer:
//   t = FLOPs / compute_rate + (activation bytes + weight bytes + unfused elementwise bytes) / mem_rate,
//   compute_rate = core_peak x eff_compute x amdahl(n),  amdahl(n) = 1 / (serial + (1 - serial) / n),
//   core_peak = fp32 FLOP/cycle x AVX-512 clock,  mem_rate = node memory bandwidth x eff_memory x n / node cores,
//   n = cores the rank's threads run on: threads_per_rank, or (node cores / ranks_per_node) x
//       oversubscription_efficiency when threads x ranks > cores (threads time-share cores);
// plus, once per step, the parameter update: params x optimizer bytes/param / min(mem_rate, optimizer_bandwidth).
// Out-of-sample check (tests/workloads/models/test_cpu_compute_model.cpp prints the table): on 2 x Xeon Gold 6148
// with MKL-DNN (PaddlePaddle IntelOptimizedPaddle.md @ ea46de65), fitting eff_compute and optimizer_bandwidth to
// ResNet-50 + VGG-19 training (bs 64/128/256) predicts the held-out GoogLeNet within 3 % and AlexNet within 6 %
// (the earlier one-efficiency max() roofline fitted to ResNet-50 bs 256 alone: VGG-19 -27..-31 %, GoogLeNet
// -14..-20 %, AlexNet +28..-15 %). Three mechanisms, each forced by the data: (1) one efficiency fits every model
// only once the activation traffic adds to the arithmetic instead of hiding under it; (2) ResNet-50 needs its BN,
// ReLU and residual add as separate passes (Layer::unfused_elementwise_bytes: MKL-DNN v0.x does not fuse them); (3)
// all four models show a batch-independent step part of 1.3-1.7 ns per parameter, which the update bandwidth is.
// NOT explained: ResNet-50 inference at batch 1 (predicted 2.1x the measured 107.83 img/s: no small-batch or
// per-layer overhead term) and bs 16 (+17 %); PaddlePaddle Fluid + MKLML thread scaling (a different library).
// FP32 only (TF 1.x MKL trains in FP32). Also the sparse (embedding) gradient sizes that TF sends under Horovod.
// Pure arithmetic, no engine. Units: FLOP/s, Bandwidth (bytes/s), Time (ps); work = samples or tokens per rank.
#pragma once

#include <string>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/models/compute_model.hpp"
#include "vgsim/workloads/models/model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::models {

// What the CPU compute model needs to know about a node; sim/ fills it from the catalog CPU entry ("compute" object)
// and the host template (sockets).
struct CpuNodeSpec {
  std::string name;  // catalog key
  int sockets = 1;
  int cores_per_socket = 0;
  double fp32_flops_per_cycle = 0.0;  // per core
  double clock_hz = 0.0;              // all-core clock under AVX-512 load
  Bandwidth memory_bandwidth;         // per socket (theoretical DRAM peak)
  int cores() const { return sockets * cores_per_socket; }
  double core_peak_flops() const { return fp32_flops_per_cycle * clock_hz; }
};

// cpu.eff_compute 0.73 and cpu.optimizer_bandwidth 17 GB/s [fitted together to SIX figures]: ResNet-50 and VGG-19
// training on 2 x Xeon Gold 6148 with MKL-DNN v0.11 at batch 64 / 128 / 256 (81.69 / 82.35 / 84.08 and 28.46 / 29.83
// / 30.44 img/s, PaddlePaddle benchmark/IntelOptimizedPaddle.md @ ea46de65;
// docs/SOURCES.md#cpu-training, grade A), one process on all 40 cores at the catalog's AVX-512 clock (2.2 GHz, grade
// D); least squares on the relative errors gives 0.734 and 17.0 GB/s (rms 0.9 %); rounded to 0.73
// (fitted rows +0.2..+1.5 / -0.6..-1.3 %). Held out, same file: GoogLeNet -0.7 / -3.0 / -3.0 %, AlexNet +0.7 / +5.6 /
// -0.4 %. Fitting on GoogLeNet + AlexNet instead gives 0.752 and 15.5 GB/s and predicts ResNet-50 + VGG-19 within 3 %.
// 0.73 of the 2.2 GHz peak is 4.1 TFLOP/s per node, 67 % of the 2.4 GHz nominal peak: plausible for MKL-DNN direct
// convolutions on large shapes [not sourced]. Bounded (0, 1].
constexpr double kDefaultCpuEffCompute = 0.73;
// cpu.optimizer_bandwidth (GB/s): the step time of every model above falls linearly with 1 / batch towards a
// batch-independent part of 22 ms (GoogLeNet, 13.4 M params with its auxiliary heads), 38 ms (ResNet-50, 25.6 M),
// 84 ms (AlexNet, 61.0 M), 189 ms (VGG-19, 143.7 M): 1.3-1.7 ns per parameter, i.e. the 20 B/param momentum update at
// 12-15 GB/s, about what ONE Skylake-SP core draws from DRAM [ASSUMPTION: a single-threaded update loop, as in
// PaddlePaddle v1's parameter updater; TF 1.x's Eigen ApplyMomentum/ApplyAdam are multi-threaded, so a TF rank may
// update faster: 0 = the rank's full memory rate]. Bounded [0, 1e4]; 0 disables the limit.
constexpr double kDefaultCpuOptimizerBandwidthGBps = 17.0;
// cpu.eff_memory 0.75 [ASSUMPTION]: STREAM-triad fraction of the DDR4 theoretical peak on a Skylake-SP node,
// bounded by 0.6-0.85 (the usual STREAM fractions of DDR4 servers; not measured here).
constexpr double kDefaultCpuEffMemory = 0.75;
// cpu.serial_fraction 0 [ASSUMPTION]: MKL-DNN's kernels parallel over all threads (Amdahl serial part none). Bounded
// by 0.048, what PaddlePaddle Fluid + MKLML's thread scaling implies (2.64 img/s on 1 core, 33.99 on 32: issue
// #11620, docs/SOURCES.md#cpu-training), a stack 2.5x slower than MKL-DNN on the same node.
constexpr double kDefaultCpuSerialFraction = 0.0;
// cpu.oversubscription_efficiency 0.5 [ASSUMPTION]: when threads x ranks > cores, OpenMP threads time-share cores and
// their barriers spin (KMP_BLOCKTIME 200 ms default, TF r1 performance guide): half the cores' work gets done. No
// published figure; bounded (0, 1] (1 = free time sharing).
constexpr double kDefaultCpuOversubscriptionEfficiency = 0.5;
// cpu.comm_cores_per_rank 1 [ASSUMPTION]: while a collective runs, Horovod's background thread and Open MPI's
// progress (blocking collectives poll; the reduction runs on the calling thread, docs/SOURCES.md#open-mpi) keep one
// core busy per rank; compute loses it when threads x ranks leave no idle core.
constexpr double kDefaultCpuCommCores = 1.0;
// tf.lookups_per_unit 2 [derived]: embedding rows looked up per work unit of a token model whose unit is one target
// token with its matching source token (transformer_big.json "input"): one source and one target lookup.
constexpr double kDefaultLookupsPerUnit = 2.0;

struct CpuWorkerParams {
  int ranks_per_node = 2;    // cpu.ranks_per_node (MPI processes per node)
  int threads_per_rank = 0;  // cpu.threads_per_rank (OMP_NUM_THREADS); 0 = node cores / ranks_per_node
  double eff_compute = kDefaultCpuEffCompute;
  double eff_memory = kDefaultCpuEffMemory;
  double serial_fraction = kDefaultCpuSerialFraction;
  double oversubscription_efficiency = kDefaultCpuOversubscriptionEfficiency;
  double comm_cores_per_rank = kDefaultCpuCommCores;
  double optimizer_bandwidth_GBps = kDefaultCpuOptimizerBandwidthGBps;  // cpu.optimizer_bandwidth; 0 = memory rate
  double lookups_per_unit = kDefaultLookupsPerUnit;                     // tf.lookups_per_unit
  // tf.tied_softmax_slices: an embedding table that is also the softmax weight (shared embedding) gets a dense
  // gradient from the output projection and IndexedSlices from the lookups; TF 1.x aggregates a mix as IndexedSlices
  // with every row of the dense part (gradients_impl _AggregateIndexedSlicesGradients / _AsIndexedSlices, recalled,
  // grade D), so each rank's slices carry all embedding_rows rows plus the lookups.
  bool tied_softmax_slices = true;
};

// The cpu.* and tf.* parameters above, declared once: names, bounds, help and sources.
const std::vector<ParamDecl>& cpu_worker_params();

// Threads the rank runs (threads_per_rank, or node cores / ranks_per_node when 0), and cores their work gets done on.
int rank_threads(const CpuWorkerParams& p, const CpuNodeSpec& node);
double effective_cores(const CpuWorkerParams& p, const CpuNodeSpec& node);
// Amdahl speedup over one core with n cores and serial fraction s: 1 / (s + (1 - s) / n); n <= 0 gives 0.
double amdahl(double n, double serial);
// Share of the rank's compute rate lost while a collective runs (its communication cores taken from the compute
// threads when no core is idle), in [0, 0.9]: 1 - amdahl(n - k) / amdahl(n).
double comm_compute_share(const CpuWorkerParams& p, const CpuNodeSpec& node);

// Forward and backward per layer, optimizer step, for one rank's micro-step of settings.per_gpu_batch(ranks) samples
// (tokens_per_gpu tokens for token models: tokens per rank). Sparse layers under Horovod without sparse_as_dense get
// sparse_bytes_per_rank = rows x (row bytes + 8 B int64 index), rows = lookups_per_unit x work x accumulation steps
// (+ embedding_rows with tied_softmax_slices). Throws InputError for a non-FP32 precision or a node without compute
// figures.
ComputeResult cpu_compute_iteration(const Model& m, const TrainingSettings& s, const CpuNodeSpec& node,
                                    const CpuWorkerParams& p, int ranks = 1);

}  // namespace vgsim::models
