// Expert parallelism on the ranks (issue 17 item 1): Megatron-Core's expert-model-parallel and expert-data-parallel
// groups in vgsim's rank layout (llm_placement.hpp: world rank = pp_rank x (tp x dp) + dp_rank x tp + tp_rank), and the
// plan names an MoE job accepts (`ep`, llm.moe_capacity_factor). Megatron-Core's rule [C, core_r0.5-r0.7
// parallel_state.initialize_model_parallel; data/reference/moe-expert-parallelism.md section 2]: inside one pipeline
// stage, an EP group is ep consecutive data-parallel ranks of one TP rank (dp ranks j ep .. j ep + ep - 1), and the
// expert-data-parallel group ("data modulo expert parallel") the dp / ep ranks of one TP rank with the same dp rank
// modulo ep. So with tp x ep GPUs per node an EP group stays in a node, and wider EP groups cross nodes.
#pragma once

#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/sim/llm/llm_placement.hpp"

namespace vgsim::sim::llm {

Groups expert_groups(const models::ParallelPlan& p);       // pp x tp x (dp / ep) groups of ep ranks
Groups expert_data_groups(const models::ParallelPlan& p);  // pp x tp x ep groups of dp / ep ranks

// `ep` (Megatron --expert-model-parallel-size) and llm.moe_capacity_factor (models/moe.hpp).
const std::vector<ParamDecl>& moe_plan_params();

}  // namespace vgsim::sim::llm
