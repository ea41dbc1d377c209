// MoE layers and expert parallelism (moe.hpp): the experts' GEMM FLOPs against Megatron-LM's MoE FLOP formula, tokens
// per expert with a capacity factor, all-to-all bytes, the ep validation rules (Megatron-Core's, as
// data/reference/moe-expert-parallelism.md recalls them), expert weights sharded by ep, and the Mixtral 8x7B shape.
#include <catch2/catch.hpp>
#include <string>

#include "transformer_fixtures.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/moe.hpp"

using namespace vgsim;
using namespace vgsim::models;
using namespace vgsim::models::test;

namespace {
// A small MoE shape for hand arithmetic: L 1, h 1024, 16 heads, f 4096 (GeLU), 8 experts, top-2, s 1024.
TransformerShape small_moe() {
  TransformerShape m;
  m.name = "small-moe";
  m.layers = 1, m.hidden = 1024, m.heads = 16, m.kv_heads = 16, m.ffn_hidden = 4096, m.vocab = 32000, m.seq = 1024;
  m.experts = 8, m.top_k = 2;
  return m;
}
double flops_of(const PassTime& pass, const std::string& prefix) {
  double f = 0.0;
  for (const auto& k : pass.kernels)
    if (k.name.rfind(prefix, 0) == 0) f += k.flops;
  return f;
}
}  // namespace

TEST_CASE("the experts' GEMMs do Megatron-LM's MoE FLOPs (num_experts_routed_to = top_k)") {
  const TransformerShape m = small_moe();
  ParallelPlan p;
  p.dp = 4, p.ep = 4, p.global_batch = 4;
  // Tokens per local expert: T k e / E = 1024 x 2 x 4 / 8 = 1024; local experts E / e = 2.
  CHECK(moe_tokens_per_expert(m, p) == 1024);
  const LayerComputeTime lt = moe_layer_time(m, p, a100(), Precision::BF16);
  // expert_fc1 forward: 2 x 2 experts x 1024 tokens x 4096 x 1024 = 2^34 FLOPs; expert_fc2 the same: 2^35 in all.
  CHECK(flops_of(lt.forward, "expert_fc") == Approx(34359738368.0).epsilon(1e-12));
  // Megatron's MLP term for one micro-batch and layer, forward only (a third of forward + backward):
  // 12 b s h^2 (f/h) k / 3 = 4 x 1024 x 1024^2 x 4 x 2 = 2^35: the same, so model FLOPs stay Megatron's.
  CHECK(flops_of(lt.forward, "expert_fc") == Approx(4.0 * 1024 * 1024.0 * 1024 * 4 * 2).epsilon(1e-12));
  // Backward: dgrad + wgrad of each, twice the forward.
  CHECK(flops_of(lt.backward, "expert_fc") == Approx(2.0 * 34359738368.0).epsilon(1e-12));
  // The router: 2 T h E = 2 x 1024 x 1024 x 8 forward, executed but not in Megatron's count.
  CHECK(flops_of(lt.forward, "router") == Approx(2.0 * 1024 * 1024 * 8).epsilon(1e-12));
  // The dense MLP is gone: no fc1 / fc2 kernel left.
  CHECK(flops_of(lt.forward, "fc") == 0.0);
  CHECK(flops_of(lt.backward, "fc") == 0.0);
}

TEST_CASE("with tp and sequence parallelism a TP group's experts still do T k FLOPs of MLP per token copy") {
  TransformerShape m = small_moe();
  m.swiglu = true;
  ParallelPlan p;
  p.tp = 2, p.sequence_parallel = true, p.dp = 2, p.ep = 2, p.global_batch = 2;
  const LayerComputeTime lt = moe_layer_time(m, p, a100(), Precision::BF16);
  // Per rank: E/e = 4 experts x (T k e / E = 1024 x 2 x 2 / 8 = 512 tokens) x 2 x (3 h f / t) with SwiGLU;
  // x t ranks = T k x 2 x 3 h f = 1024 x 2 x 6 x 1024 x 4096 = Megatron's 12 b s h^2 (f/h) k (3/2) / 3.
  CHECK(flops_of(lt.forward, "expert_fc") * 2.0 == Approx(1024.0 * 2 * 6 * 1024 * 4096).epsilon(1e-12));
  // The fc1 / fc2 TP collectives become one allgather before and one reduce-scatter after the experts of the
  // gathered token copies, T k h x 2 B = 1024 x 2 x 1024 x 2 = 4 MiB, blocking.
  int moe_comm = 0;
  for (const auto& c : lt.forward_comm) {
    CHECK(c.at != "before fc1");  // the dense MLP's (transformer_compute.cpp) are gone
    CHECK(c.at != "after fc2");
    if (c.at.find("expert_fc") != std::string::npos) {
      ++moe_comm;
      CHECK(c.bytes == 4 * 1024 * 1024);
      CHECK(c.overlap == Time{0});
    }
  }
  CHECK(moe_comm == 2);
}

TEST_CASE("all-to-all bytes per layer and the capacity factor") {
  const TransformerShape& mix = shape("mixtral-8x7b");
  ParallelPlan p;
  p.tp = 2, p.sequence_parallel = true, p.dp = 8, p.ep = 8, p.global_batch = 8;
  // One dispatch (or combine) all-to-all per rank: (b s / t) k h x 2 B = (4096 / 2) x 2 x 4096 x 2 = 32 MiB.
  CHECK(moe_alltoall_bytes(mix, p) == 32 * 1024 * 1024);
  // Four per layer and micro-batch: dispatch and combine forward and backward; six with full recomputation.
  const MoeLayerComm c = moe_alltoalls(mix, p);
  CHECK(c.forward.size() + c.backward.size() + c.recompute.size() == 4);
  p.recompute = Recompute::Full;
  CHECK(moe_alltoalls(mix, p).recompute.size() == 2);
  // Capacity factor 1.25: every expert buffer is padded to 1.25 x T k e / E; small shape, tp 1, e 4:
  // ceil(1.25 x 1024 x 2 x 4 / 8) = 1280 tokens, and 1.25 x 1024 x 2 x 1024 x 2 B = 5,242,880 B per all-to-all.
  ParallelPlan q;
  q.dp = 4, q.ep = 4, q.global_batch = 4, q.moe_capacity_factor = 1.25;
  CHECK(moe_tokens_per_expert(small_moe(), q) == 1280);
  CHECK(moe_alltoall_bytes(small_moe(), q) == 5242880);
  CHECK(parse_moe_capacity_factor("dropless") == kMoeDropless);
  CHECK(parse_moe_capacity_factor("1.25") == 1.25);
  CHECK_THROWS_AS(parse_moe_capacity_factor("0"), InputError);
  CHECK_THROWS_AS(parse_moe_capacity_factor("lots"), InputError);
  // A dense shape exchanges nothing.
  CHECK(moe_alltoall_bytes(shape("llama2-7b"), ParallelPlan{}) == 0);
}

TEST_CASE("ep is validated as Megatron-Core does, naming the field") {
  const TransformerShape m = small_moe();
  ParallelPlan p;
  p.dp = 8, p.ep = 8, p.global_batch = 8;
  CHECK(plan_error(m, p).empty());
  // ep must divide the 8 experts: 3 does not (and dp 6 would hold it).
  p.dp = 6, p.ep = 3, p.global_batch = 6;
  CHECK(plan_error(m, p).find("plan.ep") != std::string::npos);
  CHECK(plan_error(m, p).find("8 experts") != std::string::npos);
  // ep must divide dp: 4 does not divide 6.
  p.ep = 2, p.dp = 6;
  CHECK(plan_error(m, p).empty());
  p.dp = 2, p.ep = 4, p.global_batch = 2;
  CHECK(plan_error(m, p).find("dp = 2") != std::string::npos);
  // A dense shape takes ep = 1 only.
  ParallelPlan d;
  d.dp = 2, d.ep = 2, d.global_batch = 2;
  CHECK(plan_error(shape("llama2-7b"), d).find("dense") != std::string::npos);
  // Tensor parallelism on an MoE model needs sequence parallelism (Megatron-LM's rule).
  ParallelPlan t;
  t.tp = 2, t.global_batch = 1;
  CHECK(plan_error(m, t).find("plan.sequence_parallel") != std::string::npos);
  t.sequence_parallel = true;
  CHECK(plan_error(m, t).empty());
  // ZeRO-3 of an MoE model is not modelled; a capacity factor above 16 is refused.
  ParallelPlan z;
  z.dp = 2, z.zero_stage = 3, z.global_batch = 2;
  CHECK(plan_error(m, z).find("plan.zero_stage") != std::string::npos);
  z.zero_stage = 1, z.moe_capacity_factor = 20.0;
  CHECK(plan_error(m, z).find("plan.moe_capacity_factor") != std::string::npos);
}

TEST_CASE("expert weights and their optimizer states are sharded by ep (and the expert-data-parallel group)") {
  const TransformerShape& mix = shape("mixtral-8x7b");
  // Mixtral: one layer's experts 8 x 3 x 4096 x 14336 = 1,409,286,144 parameters (SwiGLU, no biases).
  CHECK(expert_params_per_layer(mix) == 1409286144);
  ParallelPlan p1;
  p1.pp = 4, p1.dp = 8, p1.global_batch = 32, p1.recompute = Recompute::Full;
  ParallelPlan p8 = p1;
  p8.ep = 8;
  const MemoryEstimate a = memory_per_gpu(mix, p1), b = memory_per_gpu(mix, p8);
  // The expert weights of a stage, 32 / 4 layers x 1,409,286,144, drop to 1/8: the difference is 7/8 of them.
  const double experts = 8.0 * 1409286144.0;
  CHECK(a.parameters - b.parameters == Approx(experts * 7.0 / 8.0).epsilon(1e-12));
  CHECK(b.expert_parameters == Approx(experts / 8.0).epsilon(1e-12));
  // 16-bit weights follow: 2 B x the difference.
  CHECK(a.weights - b.weights == Approx(2.0 * experts * 7.0 / 8.0).epsilon(1e-12));
  // ZeRO-1: dense optimizer states over dp = 8, expert states over dp / ep = 1 (already split by ep):
  // 12 B x (dense / 8 + experts / 8).
  p8.zero_stage = 1;
  const MemoryEstimate z = memory_per_gpu(mix, p8);
  CHECK(z.optimizer == Approx(12.0 * ((z.parameters - z.expert_parameters) / 8.0 + z.expert_parameters)));
}

TEST_CASE("Mixtral 8x7B: 46.7B parameters as published, 12.9B active per token") {
  const TransformerShape& mix = shape("mixtral-8x7b");
  const ParameterCount c = parameter_count(mix);
  // Mistral AI: 46.7B total (paper: 47B) [C]. Active: the non-expert parameters plus top-2 of 8 experts per layer.
  CHECK(double(c.total) == Approx(46.7e9).epsilon(0.005));
  const double active = double(c.total) - 32.0 * 1409286144.0 * (1.0 - 2.0 / 8.0);
  CHECK(active == Approx(12.9e9).epsilon(0.005));
}
