// Validation and memory of a large-model parallelism plan (see parallel_plan.hpp).
#include "vgsim/workloads/models/parallel_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/moe.hpp"

namespace vgsim::models {

const char* to_string(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::GPipe:
      return "gpipe";
    case PipelineSchedule::OneFOneB:
      return "1f1b";
    case PipelineSchedule::Interleaved:
      return "interleaved";
  }
  return "?";
}

void validate_plan(const TransformerShape& m, const ParallelPlan& p, const std::string& file,
                   const std::string& where) {
  auto fail = [&](const std::string& field, std::int64_t value, const std::string& problem,
                  const std::string& expected) {
    throw InputError(file, where + "." + field, problem, std::to_string(value), expected);
  };
  for (auto [field, v] : {std::pair{"tp", p.tp},
                          {"pp", p.pp},
                          {"dp", p.dp},
                          {"micro_batch", p.micro_batch},
                          {"global_batch", p.global_batch},
                          {"virtual_stages", p.virtual_stages}})
    if (v < 1) fail(field, v, "a parallel size below 1", ">= 1");
  if (p.zero_stage < 0 || p.zero_stage > 3) fail("zero_stage", p.zero_stage, "no such ZeRO stage", "0, 1, 2 or 3");
  if (m.heads % p.tp != 0 || m.kv_heads % p.tp != 0 || m.ffn_hidden % p.tp != 0)
    fail("tp", p.tp, "tensor parallelism splits attention heads, KV heads and the FFN evenly",
         "a divisor of heads " + std::to_string(m.heads) + ", KV heads " + std::to_string(m.kv_heads) +
             " and FFN width " + std::to_string(m.ffn_hidden) + " of " + m.name);
  if (m.layers % (p.pp * p.virtual_stages) != 0)
    fail("pp", p.pp, "pipeline stages x virtual stages must divide the layers",
         "pp x virtual_stages dividing " + std::to_string(m.layers) + " layers of " + m.name + " (virtual_stages " +
             std::to_string(p.virtual_stages) + ")");
  if (p.global_batch % (p.micro_batch * p.dp) != 0)
    fail("global_batch", p.global_batch, "the global batch is whole micro-batches on every data-parallel replica",
         "a multiple of micro_batch x dp = " + std::to_string(p.micro_batch * p.dp));
  if (p.virtual_stages > 1 && p.schedule != PipelineSchedule::Interleaved)
    fail("virtual_stages", p.virtual_stages, "virtual stages need the interleaved schedule", "1, or interleaved");
  if (p.schedule == PipelineSchedule::Interleaved && p.micro_batches() % p.pp != 0)
    fail("global_batch", p.global_batch,
         "the interleaved schedule needs micro-batches per replica divisible by pp (Megatron-LM's rule)",
         "global_batch / (micro_batch x dp) a multiple of " + std::to_string(p.pp));
  if (p.sequence_parallel && p.tp < 2) fail("tp", p.tp, "sequence parallelism needs tensor parallelism", "tp >= 2");
  if (p.grad_bytes != 2 && p.grad_bytes != 4) fail("grad_bytes", p.grad_bytes, "gradient element size", "2 or 4");
  validate_moe_plan(m, p, file, where);
}

double zero_sharded_bytes(const MemoryEstimate& e, const ParallelPlan& p, double bytes, int stage) {
  if (p.zero_stage < stage) return bytes * e.parameters / 1.0;
  // The dense part over dp, the experts over dp / ep (for a dense shape the second term is + 0).
  const double dp = static_cast<double>(p.dp), expert_dp = static_cast<double>(p.dp / p.ep);
  return bytes * (e.parameters - e.expert_parameters) / dp + bytes * e.expert_parameters / expert_dp;
}

std::pair<double, double> zero3_working_set(const TransformerShape& m, const ParallelPlan& p) {
  if (p.zero_stage < 3 || p.dp < 2) return {0.0, 0.0};
  const ParameterCount c = parameter_count(m);
  const double expert_layer = static_cast<double>(expert_params_per_layer(m));
  const double layer = static_cast<double>(c.per_layer) - expert_layer + expert_layer / static_cast<double>(p.ep);
  // The largest unit gathered at once, per TP rank: a layer, the token embedding or an untied LM head.
  const double unit =
      std::max({layer, static_cast<double>(c.embedding), static_cast<double>(c.lm_head)}) / static_cast<double>(p.tp);
  // Alive while a layer's backward runs: its weights and the prefetched layer's (kZero3PrefetchLayers), its gradients
  // and those of the layer before it, still being reduce-scattered behind this one's compute.
  const double buffers = 1.0 + kZero3PrefetchLayers;
  return {buffers * 2.0 * unit, buffers * static_cast<double>(p.grad_bytes) * unit};
}

double recompute_layer_bytes(const TransformerShape& m, const ParallelPlan& p, bool flash) {
  if (p.recompute == Recompute::None) return 0.0;
  ParallelPlan whole = p;  // the same layer kept without recomputation
  whole.recompute = Recompute::None;
  const double b = static_cast<double>(p.micro_batch);
  const double kept = activation_bytes_per_layer(m, b, p.tp, p.sequence_parallel, Recompute::None, flash) +
                      moe_extra_activation_bytes(m, whole);
  const double stored = activation_bytes_per_layer(m, b, p.tp, p.sequence_parallel, p.recompute, flash) +
                        moe_extra_activation_bytes(m, p);
  return kept - stored;
}

MemoryEstimate memory_per_gpu(const TransformerShape& m, const ParallelPlan& p, bool flash) {
  const ParameterCount c = parameter_count(m);
  const double tp = static_cast<double>(p.tp), layers_per_stage = static_cast<double>(m.layers / p.pp);
  const double embedding = static_cast<double>(c.embedding) / tp;
  const double head = static_cast<double>(c.lm_head > 0 ? c.lm_head : m.vocab * m.hidden) / tp;
  // Expert weights (MoE) split over tp x ep; for a dense shape `experts` is 0 and `layers` the dense expression.
  const double expert_layer = static_cast<double>(expert_params_per_layer(m));
  const double experts = layers_per_stage * expert_layer / (tp * static_cast<double>(p.ep));
  const double layers = layers_per_stage * (static_cast<double>(c.per_layer) - expert_layer) / tp + experts;
  // The largest stage: with one stage it holds both ends; else the first (embedding) or the last (head + norm).
  const double first = layers + embedding, last = layers + head + static_cast<double>(c.final_norm) / tp;
  MemoryEstimate e;
  e.parameters =
      p.pp == 1 ? layers + (c.lm_head > 0 ? embedding + head : embedding) + c.final_norm / tp : std::max(first, last);
  e.expert_parameters = experts;
  std::tie(e.zero3_gathered, e.zero3_unsharded_gradients) = zero3_working_set(m, p);
  e.weights = zero_sharded_bytes(e, p, 2.0, 3) + e.zero3_gathered;
  e.gradients = zero_sharded_bytes(e, p, p.grad_bytes, 2) + e.zero3_unsharded_gradients;
  e.optimizer = zero_sharded_bytes(e, p, 12.0, 1);
  const double m_count = static_cast<double>(p.micro_batches());
  double in_flight = p.schedule == PipelineSchedule::GPipe ? m_count : std::min(m_count, static_cast<double>(p.pp));
  if (p.schedule == PipelineSchedule::Interleaved)
    in_flight *= 1.0 + (static_cast<double>(p.pp) - 1.0) / (static_cast<double>(p.pp * p.virtual_stages));
  e.recompute_layer = recompute_layer_bytes(m, p, flash);
  e.activations = in_flight * layers_per_stage *
                      (activation_bytes_per_layer(m, static_cast<double>(p.micro_batch), p.tp, p.sequence_parallel,
                                                  p.recompute, flash) +
                       moe_extra_activation_bytes(m, p)) +
                  e.recompute_layer;
  return e;
}

void require_fits(const MemoryEstimate& e, double capacity, const std::string& device, const std::string& file,
                  const std::string& where) {
  if (e.total() <= capacity) return;
  auto gib = [](double b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f GiB", b / (1024.0 * 1024.0 * 1024.0));
    return std::string(s);
  };
  std::string working;  // the transients, when there are any
  if (e.zero3_gathered > 0.0)
    working += "; included: ZeRO-3 gathered weights " + gib(e.zero3_gathered) + " and unsharded gradients " +
               gib(e.zero3_unsharded_gradients);
  if (e.recompute_layer > 0.0)
    working += std::string(working.empty() ? "; included: " : ", ") + "the recomputed layer " + gib(e.recompute_layer);
  throw InputError(
      file, where,
      "the plan does not fit " + device + ": it needs " + gib(e.total()) + " per GPU (weights " + gib(e.weights) +
          ", gradients " + gib(e.gradients) + ", optimizer " + gib(e.optimizer) + ", activations " +
          gib(e.activations) + working + "), short by " + gib(e.total() - capacity),
      gib(e.total()),
      "at most " + gib(capacity) + " (more tp or pp, a ZeRO stage, recomputation or a smaller micro-batch)");
}

}  // namespace vgsim::models
