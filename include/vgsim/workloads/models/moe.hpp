// Mixture-of-Experts (MoE) layers and expert parallelism in Megatron-Core's terms (issue 17 item 1): the plan's `ep`
// (expert_model_parallel_size) and llm.moe_capacity_factor, their validation, what a rank holds (expert weights split
// over ep x tp), and the MoE MLP's kernels and communication per layer and micro-batch. Pure functions; the engine
// side (EP groups, the all-to-alls on the fabric) is include/vgsim/sim/llm/moe_groups.hpp.
// Facts and grades: data/reference/moe-expert-parallelism.md ([C] = recalled from the source named there).
//
// Megatron-Core's behaviour modelled [C]: every layer is an MoE layer when experts > 1 (Mixtral); ep divides dp and
// experts (EP groups are carved out of the data-parallel ranks of one TP rank); with tp > 1 sequence parallelism is
// required; the all-to-all token dispatcher (moe_token_dispatcher_type=alltoall); expert weights TP-sharded like the
// dense MLP (f / tp columns), their gradients reduced over the expert-data-parallel group (dp / ep ranks).
//
// Per MoE layer, per micro-batch of b sequences (T = b s tokens per TP group), on one rank, with t = tp, e = ep, E
// experts, k = top_k, c the capacity factor (1 when dropless; balanced routing assumed [assumption]):
//   router      GEMM (T/t) x E x h, then softmax + top-k over (T/t) x E fp32 logits
//   permute     (T/t) k c token copies of h (read + write 2 B each); dispatch all-to-all over EP: (T/t) k c h x 2 B
//               sent per rank; TP allgather of the received tokens (T k c h x 2 B gathered)
//   experts     E/e local experts, each a batched GEMM of M = ceil(c T k e / E) tokens (Megatron's capacity
//               rounding): fc1 M x (f/t, 2f/t with SwiGLU) x h, activation, fc2 M x h x f/t
//   combine     TP reduce-scatter, combine all-to-all (same bytes as dispatch), un-permute + probability-weighted
//               sum: (T/t) k c copies of h
// Backward: the same GEMMs' dgrad and wgrad, each memory kernel's backward, the two all-to-alls in reverse and the TP
// allgather / reduce-scatter swapped; none of them overlapped with compute (Megatron-Core of that era [C]).
// Forward FLOPs of the experts per TP group and micro-batch: T k c x 2 (2 or 3) h f, so with c = 1 the model FLOPs are
// Megatron's MLP term (f/h) k (3/2 with SwiGLU) exactly; the router's 2 T h E is executed, not counted (like Megatron).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/models/parallel_plan.hpp"
#include "vgsim/workloads/models/transformer_compute.hpp"
#include "vgsim/workloads/models/transformer_shape.hpp"

namespace vgsim::models {

// llm.moe_capacity_factor "dropless" (Megatron-Core's default: every routed token is processed).
constexpr double kMoeDropless = 0.0;
// llm.moe_capacity_factor bounds (0, 16] [assumption: Switch Transformer used 1.0-2.0; 16 bounds typos].
constexpr double kMoeCapacityFactorMax = 16.0;

bool is_moe(const TransformerShape& m);  // experts > 1
// Parameters of all experts of one layer (experts x one MLP, biases included); 0 for a dense shape. The router
// (h x experts) is not an expert parameter: every rank holds it.
std::int64_t expert_params_per_layer(const TransformerShape& m);

// The MoE rules of validate_plan (parallel_plan.hpp calls it): InputError naming `where`.field for ep < 1, ep not
// dividing the experts (a dense shape has 1) or dp, tp > 1 without sequence parallelism on an MoE shape, a capacity
// factor outside {dropless} U (0, 16], ZeRO-3 on an MoE shape (not modelled).
void validate_moe_plan(const TransformerShape& m, const ParallelPlan& p, const std::string& file,
                       const std::string& where);

// "dropless" -> kMoeDropless; a number in (0, 16] -> itself; else InputError(origin, "llm.moe_capacity_factor").
double parse_moe_capacity_factor(const std::string& text, const std::string& origin = "");
std::string moe_capacity_factor_text(double c);  // "dropless" or "%g"
// llm.moe_capacity_factor's declaration (Text: "dropless" or a number).
const ParamDecl& moe_capacity_factor_decl();

// c of the file comment: the capacity factor, or 1 when dropless.
double moe_token_scale(const ParallelPlan& p);
// Tokens one local expert processes per micro-batch on one rank: ceil(c T k e / E) (T = micro_batch x seq).
std::int64_t moe_tokens_per_expert(const TransformerShape& m, const ParallelPlan& p);
// Bytes one rank sends in one dispatch (or combine) all-to-all: (T/t) k c h x 2 B (bf16), nccl-tests' size.
Bytes moe_alltoall_bytes(const TransformerShape& m, const ParallelPlan& p);

// Activation bytes an MoE layer keeps beyond activation_bytes_per_layer's dense MLP, per micro-batch on one rank:
// the MLP's wide tensors for k c token copies instead of one ((k c - 1) x the dense MLP term), plus the dispatched
// fc1 input and the fc2 output copies, 2 B x h each per copy [assumption: the tensors Megatron-Core's MoE layer saves,
// recalled], all over t (sequence parallel). 0 for a dense shape and under full recomputation.
double moe_extra_activation_bytes(const TransformerShape& m, const ParallelPlan& p);

// One layer of an MoE shape: transformer_layer_time with its dense MLP (fc1, activation, fc2 and their backward and
// recomputed kernels, the fc1 / fc2 TP collectives) replaced by the MoE MLP of the file comment. The expert-parallel
// all-to-alls are not in it (moe_alltoalls gives them). A dense shape gives transformer_layer_time unchanged.
LayerComputeTime moe_layer_time(const TransformerShape& m, const ParallelPlan& plan, const GpuComputeSpec& gpu,
                                Precision prec, const TransformerComputeParams& p = {});

// The expert-parallel all-to-alls of one layer and micro-batch: `at` names them ("dispatch", "combine", ...).
struct EpAllToAll {
  std::string at;
  Bytes bytes = 0;  // per rank (moe_alltoall_bytes)
};
struct MoeLayerComm {
  std::vector<EpAllToAll> forward, backward, recompute;  // 2, 2, and 2 under full recomputation (else 0)
};
MoeLayerComm moe_alltoalls(const TransformerShape& m, const ParallelPlan& plan);

}  // namespace vgsim::models
