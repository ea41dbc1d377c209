// CPU roofline per layer for one MPI rank (see include/vgsim/workloads/models/cpu_compute_model.hpp).
#include "vgsim/workloads/models/cpu_compute_model.hpp"

#include <algorithm>
#include <cmath>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::models {

int rank_threads(const CpuWorkerParams& p, const CpuNodeSpec& node) {
  if (p.threads_per_rank > 0) return p.threads_per_rank;
  return std::max(1, node.cores() / std::max(1, p.ranks_per_node));
}

double effective_cores(const CpuWorkerParams& p, const CpuNodeSpec& node) {
  const int t = rank_threads(p, node);
  const double share = static_cast<double>(node.cores()) / std::max(1, p.ranks_per_node);
  if (static_cast<double>(t) <= share) return t;
  return share * p.oversubscription_efficiency;  // threads time-share the rank's cores
}

double amdahl(double n, double serial) {
  if (!(n > 0.0)) return 0.0;
  return 1.0 / (serial + (1.0 - serial) / n);
}

double comm_compute_share(const CpuWorkerParams& p, const CpuNodeSpec& node) {
  const int busy = rank_threads(p, node) * p.ranks_per_node;
  const double idle = static_cast<double>(node.cores() - busy) / std::max(1, p.ranks_per_node);
  const double taken = std::max(0.0, p.comm_cores_per_rank - std::max(0.0, idle));
  if (taken <= 0.0) return 0.0;
  const double n = effective_cores(p, node);
  const double left = amdahl(std::max(0.0, n - taken), p.serial_fraction);
  return std::clamp(1.0 - left / amdahl(n, p.serial_fraction), 0.0, 0.9);
}

namespace {

void check(const Model& m, const TrainingSettings& s, const CpuNodeSpec& node) {
  const std::string where = "cpu '" + node.name + "'";
  if (s.precision != Precision::FP32)
    throw InputError("", "precision", "CPU workers train in FP32 only (TF 1.x MKL)", to_string(s.precision), "fp32");
  if (!(node.core_peak_flops() > 0.0))
    throw InputError("", where, "no per-core compute figures (catalog CPU entry without \"compute\")", "0",
                     "fp32_flops_per_cycle and avx512_clock_ghz in topologies/catalog/cpus.json");
  if (node.cores() <= 0) throw InputError("", where, "no cores", std::to_string(node.cores()), "cores > 0");
  if (!(node.memory_bandwidth.bytes_per_s > 0.0))
    throw InputError("", where, "no memory bandwidth", "0", "a bandwidth > 0");
  if (m.layers.empty()) throw InputError(m.file, "layers", "model without layers", "[]", "at least one layer");
}

// Work units per rank per micro-step: samples, or tokens for token models (tokens_per_gpu = tokens per rank).
double work_units(const Model& m, const TrainingSettings& s, int ranks, double& samples) {
  samples = static_cast<double>(s.per_gpu_batch(ranks));
  if (m.unit != WorkUnit::Token) return samples;
  if (!s.tokens_per_gpu) return samples * static_cast<double>(m.tokens_per_sample);
  samples = static_cast<double>(*s.tokens_per_gpu) / static_cast<double>(m.tokens_per_sample);
  return static_cast<double>(*s.tokens_per_gpu);
}

}  // namespace

ComputeResult cpu_compute_iteration(const Model& m, const TrainingSettings& s, const CpuNodeSpec& node,
                                    const CpuWorkerParams& p, int ranks) {
  check(m, s, node);
  ComputeResult out;
  const double work = work_units(m, s, ranks, out.samples_per_step);
  out.work_per_step = work;
  const double n = effective_cores(p, node);
  const double compute_rate = node.core_peak_flops() * p.eff_compute * amdahl(n, p.serial_fraction);
  const double node_bw = node.memory_bandwidth.bytes_per_s * node.sockets;
  const double memory_rate = node_bw * p.eff_memory * std::min(1.0, n / node.cores());
  // Additive, not max(): each layer's conv/GEMM arithmetic and its activation + weight traffic do not overlap
  // (layer-by-layer execution, activations of a batch >= 64 stream from DRAM); see the header.
  auto roofline = [&](double flops, double matmul_bytes, double elementwise_bytes) {
    return Time::from_s(flops / compute_rate + (matmul_bytes + elementwise_bytes) / memory_rate);
  };
  const Bytes grad_elem = s.framework == Framework::Horovod && s.horovod.fp16_compression
                              ? std::min<Bytes>(2, m.grad_dtype_bytes)
                              : m.grad_dtype_bytes;
  const bool sparse_wire = s.framework == Framework::Horovod && !s.horovod.sparse_as_dense;
  out.layers.reserve(m.layers.size());
  for (auto it = m.layers.rbegin(); it != m.layers.rend(); ++it) {
    const Layer& l = *it;
    LayerTime t;
    t.name = l.name;
    t.params = l.params;
    const double params = static_cast<double>(l.params);
    const double flops = l.fwd_flops * work;  // MKL-DNN v0.x: direct convolutions (no Winograd by default)
    const double mm_bytes = (l.bytes - l.elementwise_bytes) * work;
    const double ew_bytes = l.unfused_elementwise_bytes * work;  // BN, ReLU, residual add as separate kernels
    t.forward = roofline(flops, mm_bytes + params * 4.0, ew_bytes);
    t.backward = roofline(flops * l.bwd_ratio, mm_bytes * l.bwd_ratio + params * 8.0, ew_bytes * l.bwd_ratio);
    t.grad_bytes = l.params * grad_elem;
    t.sparse = l.sparse && l.embedding_rows > 0 && sparse_wire;
    if (t.sparse) {
      const double lookups = p.lookups_per_unit * work * static_cast<double>(s.grad_accumulation_steps);
      const double rows = lookups + (p.tied_softmax_slices ? static_cast<double>(l.embedding_rows) : 0.0);
      const double row_bytes = static_cast<double>(l.params / l.embedding_rows) * static_cast<double>(grad_elem);
      t.sparse_bytes_per_rank = static_cast<Bytes>(rows * (row_bytes + 8.0));
    }
    out.forward += t.forward;
    out.backward += t.backward;
    out.layers.push_back(std::move(t));
  }
  const double update_rate =
      p.optimizer_bandwidth_GBps > 0.0 ? std::min(memory_rate, p.optimizer_bandwidth_GBps * 1e9) : memory_rate;
  out.optimizer = Time::from_s(static_cast<double>(m.total_params()) * s.optimizer_bytes_per_param / update_rate);
  return out;
}

namespace {

ParamDecl number(const char* name, const char* unit, double min, bool min_open, double max, const char* help,
                 const char* source) {
  ParamDecl d;
  d.name = name;
  d.unit = unit;
  d.min = min, d.min_open = min_open, d.max = max;
  d.help = help;
  d.source = source;
  return d;
}

}  // namespace

const std::vector<ParamDecl>& cpu_worker_params() {
  static const std::vector<ParamDecl> decls = [] {
    ParamDecl ranks = number("cpu.ranks_per_node", "", 1, false, 256, "MPI processes (ranks) per node",
                             "default 2: one rank per socket (intel/ai-reference-models launch scripts, "
                             "docs/SOURCES.md#cpu-training, grade A/B)");
    ranks.type = ParamType::Integer;
    ParamDecl threads =
        number("cpu.threads_per_rank", "threads", 0, false, 4096,
               "OMP_NUM_THREADS (intra-op threads) per rank; 0 = node cores / ranks per node",
               "default 0: threads x ranks = cores (the seed setup, docs/SOURCES.md#seed-systems; TF r1 performance "
               "guide: OMP_NUM_THREADS = physical cores, docs/SOURCES.md#cpu-training)");
    threads.type = ParamType::Integer;
    ParamDecl tied;
    tied.name = "tf.tied_softmax_slices";
    tied.type = ParamType::Boolean;
    tied.help = "a shared embedding + softmax table's gradient travels as IndexedSlices holding every table row";
    tied.source =
        "default true [recalled, grade D]: TF 1.x gradients_impl _AggregateIndexedSlicesGradients converts the dense "
        "softmax gradient with _AsIndexedSlices when another gradient of the variable is IndexedSlices";
    return std::vector<ParamDecl>{
        ranks,
        threads,
        number("cpu.eff_compute", "fraction", 0.0, true, 1.0, "achieved fraction of the AVX-512 FP32 peak (GEMM/conv)",
               "default 0.73 [fitted with cpu.optimizer_bandwidth to 6 figures]: ResNet-50 and VGG-19 training at "
               "bs 64/128/256, 2 x Xeon Gold 6148, MKL-DNN (PaddlePaddle IntelOptimizedPaddle.md @ ea46de65; "
               "docs/SOURCES.md#cpu-training, grade A); held out: GoogLeNet, AlexNet within 6 %"),
        number("cpu.eff_memory", "fraction", 0.0, true, 1.0, "achieved fraction of the DRAM theoretical peak",
               "default 0.75 [ASSUMPTION]: STREAM-triad fraction of DDR4 servers, bounded 0.6-0.85"),
        number("cpu.optimizer_bandwidth", "GB/s", 0.0, false, 1e4,
               "memory bandwidth of a rank's per-step parameter update (optimizer); 0 = the rank's memory rate",
               "default 17 [fitted with cpu.eff_compute]: the batch-independent part of the PaddlePaddle MKL-DNN "
               "step, 1.3-1.7 ns per parameter on ResNet-50, VGG-19, GoogLeNet, AlexNet (20 B/param momentum SGD "
               "at ~13-17 GB/s: about one Skylake-SP core's DRAM bandwidth, ASSUMPTION: a single-threaded update)"),
        number("cpu.serial_fraction", "fraction", 0.0, false, 0.99, "Amdahl serial fraction of a rank's compute",
               "default 0 [ASSUMPTION]; bounded by 0.048, PaddlePaddle Fluid + MKLML thread scaling (issue #11620, "
               "docs/SOURCES.md#cpu-training)"),
        number("cpu.oversubscription_efficiency", "fraction", 0.0, true, 1.0,
               "fraction of the cores' work done when threads x ranks > cores (time sharing, spinning barriers)",
               "default 0.5 [ASSUMPTION]: no published figure; bounded (0, 1]"),
        number("cpu.comm_cores_per_rank", "cores", 0.0, false, 64.0,
               "cores a rank's Horovod background thread and MPI progress keep busy while a collective runs",
               "default 1 [ASSUMPTION]: the background thread polls its blocking MPI call, which also reduces "
               "(docs/SOURCES.md#open-mpi)"),
        number("tf.lookups_per_unit", "rows", 0.0, false, 1e6, "embedding rows looked up per work unit",
               "default 2 [derived]: a token model's unit is a target token with its source token"),
        tied};
  }();
  return decls;
}

}  // namespace vgsim::models
