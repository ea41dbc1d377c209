// MoE layers and expert parallelism: validation, token counts, all-to-all bytes and the MoE MLP's kernels (see
// include/vgsim/workloads/models/moe.hpp; facts in data/reference/moe-expert-parallelism.md).
#include "vgsim/workloads/models/moe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::models {

bool is_moe(const TransformerShape& m) { return m.experts > 1; }

std::int64_t expert_params_per_layer(const TransformerShape& m) {
  if (!is_moe(m)) return 0;
  // One MLP as parameter_count (transformer_shape.cpp) counts it.
  const std::int64_t h = m.hidden, f = m.ffn_hidden;
  const std::int64_t mlp_one = (m.swiglu ? 3 : 2) * h * f + (m.biases ? (m.swiglu ? 2 * f : f) + h : 0);
  return m.experts * mlp_one;
}

void validate_moe_plan(const TransformerShape& m, const ParallelPlan& p, const std::string& file,
                       const std::string& where) {
  auto fail = [&](const std::string& field, const std::string& value, const std::string& problem,
                  const std::string& expected) {
    throw InputError(file, where + "." + field, problem, value, expected);
  };
  if (p.ep < 1) fail("ep", std::to_string(p.ep), "a parallel size below 1", ">= 1");
  if (m.experts % p.ep != 0)
    fail("ep", std::to_string(p.ep),
         is_moe(m) ? "expert parallelism splits the experts evenly (Megatron-Core: num_experts % "
                     "expert_model_parallel_size == 0)"
                   : m.name + " is dense (experts 1): there are no experts to split",
         is_moe(m) ? "a divisor of the " + std::to_string(m.experts) + " experts of " + m.name : "ep = 1");
  if (p.dp % p.ep != 0)
    fail("ep", std::to_string(p.ep),
         "expert-parallel groups are carved out of the data-parallel ranks of one TP rank (Megatron-Core: "
         "data_parallel_size % expert_model_parallel_size == 0)",
         "a divisor of dp = " + std::to_string(p.dp));
  if (p.moe_capacity_factor != kMoeDropless &&
      !(p.moe_capacity_factor > 0.0 && p.moe_capacity_factor <= kMoeCapacityFactorMax))
    fail("moe_capacity_factor", moe_capacity_factor_text(p.moe_capacity_factor), "bad capacity factor",
         "dropless or a number in (0, 16]");
  if (!is_moe(m)) return;
  if (p.tp > 1 && !p.sequence_parallel)
    fail("sequence_parallel", "false",
         "an MoE model with tensor parallelism needs sequence parallelism (Megatron-LM arguments.py: \"When using "
         "MoE and tensor parallelism, sequence parallelism must be used\")",
         "sequence_parallel=true, or tp=1");
  if (p.zero_stage >= 3)
    fail("zero_stage", std::to_string(p.zero_stage),
         "ZeRO-3 / FSDP of an MoE model is not modelled (Megatron-Core shards experts with ep and its distributed "
         "optimizer)",
         "0, 1 or 2");
}

double parse_moe_capacity_factor(const std::string& text, const std::string& origin) {
  if (text == "dropless") return kMoeDropless;
  char* end = nullptr;
  const double c = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(c > 0.0 && c <= kMoeCapacityFactorMax))
    throw InputError(origin, "llm.moe_capacity_factor", "bad MoE capacity factor", text,
                     "dropless or a number in (0, 16], e.g. 1.25");
  return c;
}

std::string moe_capacity_factor_text(double c) {
  if (c == kMoeDropless) return "dropless";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", c);
  return buf;
}

const ParamDecl& moe_capacity_factor_decl() {
  static const ParamDecl d = [] {
    ParamDecl x;
    x.name = "llm.moe_capacity_factor";
    x.type = ParamType::Text;
    x.unit = "";
    x.help =
        "MoE expert capacity: dropless (every routed token processed, balanced routing assumed) or c in (0, 16]: "
        "every expert's buffer padded to c x tokens x top_k / experts";
    x.source =
        "dropless: Megatron-Core's default (--moe-expert-capacity-factor None); bounds (0, 16] [assumption]; "
        "data/reference/moe-expert-parallelism.md section 4";
    return x;
  }();
  return d;
}

double moe_token_scale(const ParallelPlan& p) {
  return p.moe_capacity_factor == kMoeDropless ? 1.0 : p.moe_capacity_factor;
}

std::int64_t moe_tokens_per_expert(const TransformerShape& m, const ParallelPlan& p) {
  const double routed = static_cast<double>(p.micro_batch * m.seq) * static_cast<double>(m.top_k) *
                        static_cast<double>(p.ep) / static_cast<double>(m.experts);
  return static_cast<std::int64_t>(std::ceil(moe_token_scale(p) * routed));
}

Bytes moe_alltoall_bytes(const TransformerShape& m, const ParallelPlan& p) {
  if (!is_moe(m)) return 0;
  const double copies =
      static_cast<double>(p.micro_batch * m.seq) / static_cast<double>(p.tp) * static_cast<double>(m.top_k);
  return static_cast<Bytes>(std::ceil(copies * moe_token_scale(p))) * m.hidden * 2;
}

double moe_extra_activation_bytes(const TransformerShape& m, const ParallelPlan& p) {
  if (!is_moe(m) || p.recompute == Recompute::Full) return 0.0;
  const double h = static_cast<double>(m.hidden);
  const double sbh = static_cast<double>(m.seq) * static_cast<double>(p.micro_batch) * h;
  const double copies = static_cast<double>(m.top_k) * moe_token_scale(p);
  const double mlp = (m.swiglu ? 8.0 : 4.0) * static_cast<double>(m.ffn_hidden) / h;  // as activation_bytes_per_layer
  return sbh * ((copies - 1.0) * mlp + copies * (2.0 + 2.0)) / static_cast<double>(p.tp);
}

namespace {

// transformer_compute.cpp's memory-bound rate: HBM x memory fraction x llm.eff_memory.
double memory_rate(const GpuComputeSpec& g, const TransformerComputeParams& p) {
  return g.memory_bandwidth.bytes_per_s * g.memory_fraction * p.llm_eff_memory;
}

struct MoeDims {
  std::int64_t tokens_rank;    // T / t: the rank's sequence shard
  std::int64_t copies_rank;    // ceil(c (T/t) k): routed copies the rank permutes and sends
  std::int64_t local_experts;  // E / e
  std::int64_t per_expert;     // tokens per local expert
  std::int64_t ffn_rank;       // f / t
  std::int64_t h, experts;
  bool swiglu;
};

MoeDims moe_dims(const TransformerShape& m, const ParallelPlan& p) {
  MoeDims d{};
  d.tokens_rank = p.micro_batch * m.seq / p.tp;
  d.copies_rank = moe_alltoall_bytes(m, p) / (2 * m.hidden);
  d.local_experts = m.experts / p.ep;
  d.per_expert = moe_tokens_per_expert(m, p);
  d.ffn_rank = m.ffn_hidden / p.tp;
  d.h = m.hidden, d.experts = m.experts, d.swiglu = m.swiglu;
  return d;
}

class Kernels {
 public:
  Kernels(const GpuComputeSpec& gpu, Precision prec, const TransformerComputeParams& p)
      : gpu_(gpu), prec_(prec), p_(p) {}
  void gemm(const std::string& name, const Gemm& g, GemmPass pass = GemmPass::Forward) {
    out.push_back(KernelTime{name, true, g.flops(), g.bytes(), gemm_time(g, gpu_, prec_, p_, pass)});
  }
  void backward(const std::string& name, const Gemm& g) {  // dgrad then wgrad, as transformer_compute.cpp
    gemm(name + ".dgrad", Gemm{g.batch, g.m, g.k, g.n}, GemmPass::Backward);
    gemm(name + ".wgrad", Gemm{g.batch, g.k, g.n, g.m}, GemmPass::Backward);
  }
  void memory(const std::string& name, double bytes_per_element, double elements) {
    const double bytes = bytes_per_element * elements;
    out.push_back(KernelTime{name, false, 0.0, bytes, Time::from_s(bytes / memory_rate(gpu_, p_))});
  }
  std::vector<KernelTime> out;

 private:
  const GpuComputeSpec& gpu_;
  Precision prec_;
  const TransformerComputeParams& p_;
};

struct MoeGemms {
  Gemm router, fc1, fc2;
};
MoeGemms moe_gemms(const MoeDims& d) {
  return {Gemm{1, d.tokens_rank, d.experts, d.h},
          Gemm{d.local_experts, d.per_expert, (d.swiglu ? 2 : 1) * d.ffn_rank, d.h},
          Gemm{d.local_experts, d.per_expert, d.h, d.ffn_rank}};
}

// Bytes per element [assumption, recalled from Megatron-Core's router and permutation kernels]: router softmax +
// top-k over fp32 logits: read 4, write the probabilities 4 (backward: read dy and y 8, write dx 4); permute and
// un-permute copy a token's h 16-bit values (read + write 4; backward the same); the weighted sum of the combine reads
// the copies and writes the token (counted in the un-permute's 4 per copy element). The expert activation kernels
// are the dense MLP's (transformer_compute.hpp): bias+GeLU 4 / 8, SwiGLU 6 / 10.
std::vector<KernelTime> moe_forward(const MoeDims& d, Kernels k) {
  const MoeGemms g = moe_gemms(d);
  const double copies = static_cast<double>(d.copies_rank) * static_cast<double>(d.h);
  const double expert_elements = static_cast<double>(d.local_experts * d.per_expert) * static_cast<double>(d.ffn_rank);
  k.gemm("router", g.router);
  k.memory("router_softmax_topk", 8.0, static_cast<double>(d.tokens_rank * d.experts));
  k.memory("moe_permute", 4.0, copies);
  k.gemm("expert_fc1", g.fc1);
  k.memory(d.swiglu ? "expert_swiglu" : "expert_bias_gelu", d.swiglu ? 6.0 : 4.0, expert_elements);
  k.gemm("expert_fc2", g.fc2);
  k.memory("moe_unpermute", 4.0, copies);
  return std::move(k.out);
}

std::vector<KernelTime> moe_backward(const MoeDims& d, Kernels k) {
  const MoeGemms g = moe_gemms(d);
  const double copies = static_cast<double>(d.copies_rank) * static_cast<double>(d.h);
  const double expert_elements = static_cast<double>(d.local_experts * d.per_expert) * static_cast<double>(d.ffn_rank);
  k.memory("moe_unpermute.bwd", 4.0, copies);
  k.backward("expert_fc2", g.fc2);
  k.memory(d.swiglu ? "expert_swiglu.bwd" : "expert_bias_gelu.bwd", d.swiglu ? 10.0 : 8.0, expert_elements);
  k.backward("expert_fc1", g.fc1);
  k.memory("moe_permute.bwd", 4.0, copies);
  k.memory("router_softmax_topk.bwd", 12.0, static_cast<double>(d.tokens_rank * d.experts));
  k.backward("router", g.router);
  return std::move(k.out);
}

bool dense_mlp_kernel(const std::string& name) {
  for (const char* n : {"fc1", "fc2", "bias_gelu", "swiglu"})
    if (name == n || name.rfind(std::string(n) + ".", 0) == 0) return true;
  return false;
}

// `pass` with its dense MLP kernels replaced by `moe` where the first of them stood.
PassTime replace_mlp(const PassTime& pass, const std::vector<KernelTime>& moe) {
  PassTime out;
  bool inserted = false;
  for (const KernelTime& k : pass.kernels) {
    if (!dense_mlp_kernel(k.name)) {
      out.add(k);
      continue;
    }
    if (!inserted)
      for (const KernelTime& x : moe) out.add(x);
    inserted = true;
  }
  return out;
}

// The TP collectives of `list` around the attention, then the MoE ones (blocking): the dispatched tokens gathered
// over TP before the experts and reduce-scattered after them (swapped in the backward pass).
std::vector<TpCollective> replace_mlp_comm(const std::vector<TpCollective>& list, Bytes gathered, bool backward) {
  std::vector<TpCollective> out;
  for (const TpCollective& c : list)
    if (c.at.find("fc1") == std::string::npos && c.at.find("fc2") == std::string::npos) out.push_back(c);
  if (list.empty()) return out;
  out.push_back({TpOp::AllGather, backward ? "before expert_fc2.dgrad" : "before expert_fc1", gathered, Time{0}});
  out.push_back({TpOp::ReduceScatter, backward ? "after expert_fc1.dgrad" : "after expert_fc2", gathered, Time{0}});
  return out;
}

}  // namespace

LayerComputeTime moe_layer_time(const TransformerShape& m, const ParallelPlan& plan, const GpuComputeSpec& gpu,
                                Precision prec, const TransformerComputeParams& p) {
  LayerComputeTime r = transformer_layer_time(m, plan, gpu, prec, p);
  if (!is_moe(m)) return r;
  const MoeDims d = moe_dims(m, plan);
  const Kernels k(gpu, prec, p);
  r.forward = replace_mlp(r.forward, moe_forward(d, k));
  r.backward = replace_mlp(r.backward, moe_backward(d, k));
  if (plan.recompute == Recompute::Full) r.recompute = replace_mlp(r.recompute, moe_forward(d, k));
  const Bytes gathered = d.copies_rank * plan.tp * m.hidden * 2;  // T k c h x 2 B
  r.forward_comm = replace_mlp_comm(r.forward_comm, gathered, false);
  r.backward_comm = replace_mlp_comm(r.backward_comm, gathered, true);
  r.recompute_comm = replace_mlp_comm(r.recompute_comm, gathered, false);
  return r;
}

MoeLayerComm moe_alltoalls(const TransformerShape& m, const ParallelPlan& plan) {
  MoeLayerComm c;
  if (!is_moe(m)) return c;
  const Bytes n = moe_alltoall_bytes(m, plan);
  c.forward = {{"dispatch", n}, {"combine", n}};
  c.backward = {{"combine.bwd", n}, {"dispatch.bwd", n}};
  if (plan.recompute == Recompute::Full) c.recompute = {{"dispatch (recomputed)", n}, {"combine (recomputed)", n}};
  return c;
}

}  // namespace vgsim::models
