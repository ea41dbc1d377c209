// Plan search (issue 17 item 5): every parallelism plan for a job's ranks and global batch -- tp a divisor of the
// GPUs per node (tensor parallelism stays inside the NVLink domain), pp a divisor of the layers, dp the rest,
// micro-batch 1, 2, 4 or 8, 1F1B or interleaved (2 chunks), ZeRO 0 or 1 (3 when nothing else fits), recomputation
// none, else selective, else full (the least that fits); for an MoE shape every ep dividing the experts and dp, with
// sequence parallelism when tp > 1 -- validated, memory-checked and simulated; ranked by
// throughput (ties: fewer GPUs per model replica first, then the plan's fields, so the order is deterministic).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/llm/llm_run.hpp"

namespace vgsim::sim::llm {

struct PlanOutcome {
  models::ParallelPlan plan;
  bool fits = false;
  std::string why_not;  // the validation or memory error's text when it does not fit
  LlmResult result;     // when it fits
};

// All plans tried, the ones that fit first (fastest first), then the others (in enumeration order).
std::vector<PlanOutcome> search_plans(const LlmJob& job);
void write_plan_search(std::ostream& os, const LlmJob& job, const std::vector<PlanOutcome>& outcomes);
Json plan_search_json(const LlmJob& job, const std::vector<PlanOutcome>& outcomes);

}  // namespace vgsim::sim::llm
