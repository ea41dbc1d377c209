// Roofline compute model per layer (see include/vgsim/workloads/models/compute_model.hpp).
#include "vgsim/workloads/models/compute_model.hpp"

#include <algorithm>
#include <cmath>

namespace vgsim::models {

namespace {

// Whether `p` runs on the FP32 CUDA cores of `g` (no tensor-core unit for it there).
bool fma_path(const GpuComputeSpec& g, Precision p) {
  switch (p) {
    case Precision::FP32:
      return true;
    case Precision::TF32:
      return !(g.peak_tf32_flops > 0);
    default:
      return false;
  }
}

}  // namespace

double default_eff_compute(Precision p, const GpuComputeSpec& gpu) {
  if (fma_path(gpu, p)) return kDefaultEffFma;
  return p == Precision::TF32 ? kDefaultEffTensorTf32 : kDefaultEffTensorFp16;
}

ResolvedComputeParams resolve(const ComputeParams& p, const Model& m, Precision prec, const GpuComputeSpec& gpu) {
  ResolvedComputeParams r{};
  r.eff_compute = p.eff_compute ? *p.eff_compute : m.eff_compute ? *m.eff_compute : default_eff_compute(prec, gpu);
  r.eff_memory = p.eff_memory ? *p.eff_memory : m.eff_memory ? *m.eff_memory : kDefaultEffMemory;
  r.saturation = p.saturation ? *p.saturation
                 : m.saturation_batch
                     ? *m.saturation_batch
                     : (m.unit == WorkUnit::Sample ? kDefaultSaturationSamples : kDefaultSaturationTokens);
  r.calibration_scale = p.calibration_scale;
  return r;
}

ResolvedComputeParams resolve(const ComputeParams& p, const Model& m) {
  ResolvedComputeParams r = resolve(p, m, Precision::AMP, GpuComputeSpec{});
  if (!p.eff_compute && !m.eff_compute) r.eff_compute = kDefaultEffTensorFp16;
  return r;
}

namespace {

double peak_flops(const GpuComputeSpec& g, Precision p) {
  switch (p) {
    case Precision::FP32:
      return g.peak_fp32_flops;
    case Precision::TF32:
      return g.peak_tf32_flops > 0 ? g.peak_tf32_flops : g.peak_fp32_flops;
    case Precision::FP16:
    case Precision::AMP:
      return g.peak_fp16_flops;
    case Precision::BF16:
      return g.peak_bf16_flops > 0 ? g.peak_bf16_flops : g.peak_fp16_flops;
  }
  return 0.0;
}

void check_gpu(const GpuComputeSpec& g, Precision p) {
  const std::string where = "gpu '" + g.name + "'";
  if (!(peak_flops(g, p) > 0.0))
    throw InputError("", where, std::string("no peak FLOP/s for precision ") + to_string(p), "0", "a peak > 0");
  if (!(g.memory_bandwidth.bytes_per_s > 0.0))
    throw InputError("", where, "no memory bandwidth", "0", "a bandwidth > 0");
  if (g.sm_count <= 0) throw InputError("", where, "no SM count", std::to_string(g.sm_count), "an integer > 0");
  if (!(g.sm_fraction > 0.0 && g.sm_fraction <= 1.0))
    throw InputError("", where, "bad SM fraction", std::to_string(g.sm_fraction), "a fraction in (0, 1]");
  if (!(g.memory_fraction > 0.0 && g.memory_fraction <= 1.0))
    throw InputError("", where, "bad memory fraction", std::to_string(g.memory_fraction), "a fraction in (0, 1]");
}

bool low_precision(Precision p) { return p == Precision::FP16 || p == Precision::BF16 || p == Precision::AMP; }

}  // namespace

ComputeResult compute_iteration(const Model& m, const TrainingSettings& s, const GpuComputeSpec& gpu,
                                const ComputeParams& p, int ranks) {
  check_gpu(gpu, s.precision);
  const ResolvedComputeParams rp = resolve(p, m, s.precision, gpu);
  ComputeResult out;
  const double samples = static_cast<double>(s.per_gpu_batch(ranks));
  double work = samples;
  out.samples_per_step = samples;
  if (m.unit == WorkUnit::Token) {
    if (s.tokens_per_gpu) {
      work = static_cast<double>(*s.tokens_per_gpu);
      out.samples_per_step = work / static_cast<double>(m.tokens_per_sample);
    } else {
      work = samples * static_cast<double>(m.tokens_per_sample);
    }
  }
  out.work_per_step = work;

  // Activations are fp32 (4 B) under fp32/tf32 and 2 B under fp16/bf16/amp; the model's bytes are at 4 B.
  const double act_scale = low_precision(s.precision) ? 0.5 : 1.0;
  // Weights read and local gradients written: fp32 masters under fp32/tf32/amp, 2 B under pure fp16/bf16.
  const bool pure_low = s.precision == Precision::FP16 || s.precision == Precision::BF16;
  const double weight_bytes = pure_low ? 2.0 : 4.0;
  Bytes grad_elem = pure_low ? 2 : m.grad_dtype_bytes;
  if (s.framework == Framework::Horovod && s.horovod.fp16_compression) grad_elem = std::min<Bytes>(grad_elem, 2);

  // Below saturation a kernel takes as long as at the saturation work. Compute fills with SMs (waves over the SMs
  // used); memory traffic fills the memory system, which by Little's law needs bytes in flight in proportion to its
  // bandwidth, so a slice with a share of the bandwidth fills at that share of the work [assumption]. The two
  // utilisations are equal on a whole GPU; on a slice the memory-bound time then never falls below the whole GPU's.
  const double sms_used = gpu.sm_count * gpu.sm_fraction;
  const double saturation_units = rp.saturation * sms_used / kReferenceSmCount;
  out.utilisation = std::min(1.0, work / saturation_units);
  const double memory_utilisation = std::min(1.0, work / (rp.saturation * gpu.memory_fraction));
  const double compute_rate = peak_flops(gpu, s.precision) * gpu.sm_fraction * rp.eff_compute;
  const double memory_rate = gpu.memory_bandwidth.bytes_per_s * gpu.memory_fraction * rp.eff_memory;
  const double compute_scale = rp.calibration_scale / out.utilisation;
  const double memory_scale = rp.calibration_scale / memory_utilisation;

  // Matmul kernel as a roofline, then the memory-bound kernels that follow it (their time adds).
  auto roofline = [&](double flops, double matmul_bytes, double elementwise_bytes) {
    return Time::from_s(std::max(flops / compute_rate * compute_scale, matmul_bytes / memory_rate * memory_scale) +
                        elementwise_bytes / memory_rate * memory_scale);
  };
  const double winograd_keep = fma_path(gpu, s.precision) ? 1.0 / kWinogradFactor : 1.0;

  out.layers.reserve(m.layers.size());
  for (auto it = m.layers.rbegin(); it != m.layers.rend(); ++it) {
    const Layer& l = *it;
    LayerTime t;
    t.name = l.name;
    t.params = l.params;
    const double params = static_cast<double>(l.params);
    const double flops = (l.fwd_flops - l.winograd_flops + l.winograd_flops * winograd_keep) * work;
    const double mm_bytes = (l.bytes - l.elementwise_bytes) * act_scale * work;
    const double ew_bytes = l.elementwise_bytes * act_scale * work;
    t.forward = roofline(flops, mm_bytes + params * weight_bytes, ew_bytes);
    t.backward = roofline(flops * l.bwd_ratio, mm_bytes * l.bwd_ratio + params * (weight_bytes + weight_bytes),
                          ew_bytes * l.bwd_ratio);
    t.grad_bytes = l.params * grad_elem;
    t.sparse = l.sparse && s.framework == Framework::Horovod && !s.horovod.sparse_as_dense;
    if (t.sparse) {
      // TF IndexedSlices: one row per lookup (duplicates kept) plus an int64 index, accumulated over micro-steps.
      const double lookups = work * static_cast<double>(s.grad_accumulation_steps);
      const double row_bytes = static_cast<double>(l.params / l.embedding_rows) * static_cast<double>(grad_elem);
      t.sparse_bytes_per_rank = static_cast<Bytes>(lookups * (row_bytes + 8.0));
    }
    out.forward += t.forward;
    out.backward += t.backward;
    out.layers.push_back(std::move(t));
  }
  out.optimizer = Time::from_s(static_cast<double>(m.total_params()) * s.optimizer_bytes_per_param / memory_rate *
                               rp.calibration_scale);
  return out;
}

ComputeParams calibrate_to_throughput(const Model& m, const TrainingSettings& s, const GpuComputeSpec& gpu,
                                      ComputeParams p, double measured_samples_per_s) {
  if (!(measured_samples_per_s > 0.0) || !std::isfinite(measured_samples_per_s))
    throw InputError("", "calibration of '" + m.name + "'", "non-positive measured throughput",
                     std::to_string(measured_samples_per_s), "samples per second > 0");
  p.calibration_scale = 1.0;
  const ComputeResult base = compute_iteration(m, s, gpu, p, 1);
  const double target_s = base.samples_per_step / measured_samples_per_s;
  p.calibration_scale = target_s / base.step().s();
  return p;
}

ComputeResult scale_compute(ComputeResult cr, double speed) {
  if (speed == 1.0) return cr;
  auto sc = [&](Time t) { return Time{static_cast<std::int64_t>(static_cast<double>(t.ps) / speed + 0.5)}; };
  cr.forward = cr.backward = Time{0};
  for (auto& l : cr.layers) {
    l.forward = sc(l.forward);
    l.backward = sc(l.backward);
    cr.forward += l.forward;
    cr.backward += l.backward;
  }
  cr.optimizer = sc(cr.optimizer);
  return cr;
}

const std::vector<ParamDecl>& compute_params() {
  static const std::vector<ParamDecl> decls = [] {
    auto fraction = [](const char* name, const char* help) {
      ParamDecl d;
      d.name = name;
      d.unit = "fraction";
      d.min = 0.0, d.min_open = true, d.max = 1.0;
      d.help = help;
      d.source =
          "per-math-path default (compute_model.hpp: default_eff_compute, sources in workloads/models/README.md)";
      return d;
    };
    ParamDecl sat;
    sat.name = "compute.saturation";
    sat.unit = "samples or tokens";
    sat.min = 0.0, sat.min_open = true;
    sat.help = "work units that fill a 108-SM GPU (below it a layer takes as long as at it)";
    sat.source = "default [assumption] (compute_model.hpp kDefaultSaturationSamples / Tokens)";
    ParamDecl meas;
    meas.name = "compute.measured_throughput";
    meas.unit = "samples/s";
    meas.min = 0.0, meas.min_open = true;
    meas.help = "measured single-GPU throughput: scales the roofline to it (calibrated mode)";
    meas.source = "default: unset (uncalibrated roofline)";
    return std::vector<ParamDecl>{fraction("compute.eff_compute", "achieved fraction of peak FLOP/s"),
                                  fraction("compute.eff_memory", "achieved fraction of memory bandwidth"), sat, meas};
  }();
  return decls;
}

}  // namespace vgsim::models
