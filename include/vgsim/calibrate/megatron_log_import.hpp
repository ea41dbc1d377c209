// Megatron-LM training logs -> large-model rows of the fit-training CSV (issue 17's calibration from real runs).
// A log holds the run's arguments (the block Megatron-LM's arguments.py prints between
// "------------------------ arguments ------------------------" and "-------------------- end of arguments
// ---------------------", one "  name ....... value" per line), optionally the tokenizer's "> padded vocab (size: N)
// with M dummy tokens (new size: V)" line, and training.py's per-interval lines "iteration N/ T | ... | elapsed time
// per iteration (ms): X | ..." (the formats as Megatron-LM 2021-2024 prints them, recalled, grade C: check one line
// of your log against them; every field this reader needs is named in its errors).
// From the arguments: the shape (num_layers, hidden_size, num_attention_heads, ffn_hidden_size, seq_length,
// num_query_groups with group_query_attention, swiglu, add_bias_linear, position_embedding_type,
// untie_embeddings_and_output_weights, num_experts, moe_router_topk; the vocabulary from padded_vocab_size or the
// tokenizer line) and the plan (tensor/pipeline_model_parallel_size, world_size, micro/global_batch_size, virtual
// stages, sequence_parallel, recompute (2022+ recompute_granularity, 2021 checkpoint_activations), fp16/bf16,
// use_distributed_optimizer -> zero_stage 1, DDP_impl torch or overlap_grad_reduce -> llm.grad_overlap,
// use_flash_attn, expert_model_parallel_size, dropouts 0 -> llm.dropout false). The measured value is the median
// "elapsed time per iteration" over the logged intervals after the first `skip` (start-up, warm-up).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vgsim/calibrate/training_fit.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/workloads/models/transformer_shape.hpp"

namespace vgsim::calibrate {

struct MegatronLog {
  std::string file;
  std::map<std::string, std::string> args;  // name -> value as printed
  std::int64_t padded_vocab = 0;            // from the tokenizer line (0: none)
  std::vector<double> iteration_ms;         // one per logged interval, in log order
};

// Reads one log; InputError naming the file (and line) when it has no arguments block or no iteration line, or an
// elapsed time that is not a positive number.
MegatronLog read_megatron_log(const std::string& path);

// The shape the arguments describe (name = `name`, source = the log file).
models::TransformerShape megatron_shape(const MegatronLog& log, const std::string& name);

// One fit-training row: cluster, hosts and GPUs per host as given (their product must be the log's world_size),
// workload = `workload` (a built-in shape name or a shape file), the plan's settings, metric iteration_s, value =
// the median interval after the first `skip`. InputError naming the file and argument for anything vgsim cannot
// model (fp32 training, recomputation of only some layers) or that is missing.
TrainingCase megatron_case(const MegatronLog& log, const std::string& cluster, std::uint32_t nodes,
                           std::uint32_t gpus_per_node, const std::string& workload, int skip);

// `s` as a shape file ({"shapes": [s]}, the format of workloads/llm/transformer_shapes.json) that `--workload` reads.
Json shape_file_json(const models::TransformerShape& s);

// The rows as a fit-training CSV (header case_id, cluster, workload, nodes, gpus_per_node, settings, metric, value,
// source; values to 17 digits, fields with a comma or quote quoted).
std::string training_cases_csv(const std::vector<TrainingCase>& cases);

// The built-in shape with the same dimensions and options as `s` (name and source aside), or "" when none.
std::string matching_builtin_shape(const models::TransformerShape& s);

}  // namespace vgsim::calibrate
