// Megatron-LM training logs -> large-model fit-training rows (see include/vgsim/calibrate/megatron_log_import.hpp).
#include "vgsim/calibrate/megatron_log_import.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"

namespace vgsim::calibrate {

namespace {

const std::regex kArgLine(R"(^\s+(\w+) \.+ (.*?)\s*$)");
// Any token after the label, so that "nan" or "inf" is reported rather than skipped as a non-matching line.
const std::regex kElapsed(R"(elapsed time per iteration \(ms\):\s*([^\s|]+))");
const std::regex kPaddedVocab(R"(padded vocab \(size: \d+\) with \d+ dummy tokens \(new size: (\d+)\))");

// The argument as printed, or nullopt when absent or None.
std::optional<std::string> arg(const MegatronLog& log, const std::string& name) {
  const auto it = log.args.find(name);
  if (it == log.args.end() || it->second == "None") return std::nullopt;
  return it->second;
}

[[noreturn]] void bad_arg(const MegatronLog& log, const std::string& name, const std::string& problem,
                          const std::string& value, const std::string& expected) {
  throw InputError(log.file, "arguments: " + name, problem, value, expected);
}

std::int64_t integer(const MegatronLog& log, const std::string& name, std::optional<std::int64_t> fallback) {
  const auto v = arg(log, name);
  if (!v) {
    if (fallback) return *fallback;
    bad_arg(log, name, "missing from the arguments block", "(absent)", "an integer");
  }
  char* end = nullptr;
  const long long x = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || x < 1) bad_arg(log, name, "not a positive integer", *v, "an integer >= 1");
  return x;
}

bool boolean(const MegatronLog& log, const std::string& name, bool fallback) {
  const auto v = arg(log, name);
  if (!v) return fallback;
  if (*v == "True") return true;
  if (*v == "False") return false;
  bad_arg(log, name, "not a boolean", *v, "True or False");
}

double number(const MegatronLog& log, const std::string& name, double fallback) {
  const auto v = arg(log, name);
  if (!v) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  if (v->empty() || *end != '\0') bad_arg(log, name, "not a number", *v, "a number");
  return x;
}

// recompute=full / selective / none from the 2022+ arguments (recompute_granularity, recompute_method,
// recompute_num_layers) or the 2021 ones (checkpoint_activations: every layer's input kept, the layer recomputed).
std::string recompute(const MegatronLog& log, std::int64_t layers_per_stage) {
  if (const auto g = arg(log, "recompute_granularity")) {
    if (*g == "selective") return "selective";
    if (*g != "full") bad_arg(log, "recompute_granularity", "not a granularity vgsim knows", *g, "full or selective");
    const std::string method = arg(log, "recompute_method").value_or("uniform");
    const std::int64_t n = integer(log, "recompute_num_layers", 1);
    // block: only the first n layers of a stage are recomputed, which vgsim's plan cannot say.
    if (method == "block" && n < layers_per_stage)
      bad_arg(log, "recompute_method",
              "recomputes only some layers (block, recompute_num_layers " + std::to_string(n) + " of " +
                  std::to_string(layers_per_stage) + ")",
              method, "uniform, or block over every layer of a stage (vgsim recomputes all layers or none)");
    return "full";
  }
  return boolean(log, "checkpoint_activations", false) ? "full" : "none";
}

}  // namespace

MegatronLog read_megatron_log(const std::string& path) {
  std::ifstream in = open_input(path);
  if (!in) throw InputError(path, "", "cannot open file", "", "a readable Megatron-LM training log");
  MegatronLog log;
  log.file = path;
  bool in_args = false, saw_args = false;
  std::string line;
  int ln = 0;
  std::smatch m;
  while (std::getline(in, line)) {
    ++ln;
    if (line.find("------------------------ arguments ------------------------") != std::string::npos) {
      in_args = saw_args = true;
      continue;
    }
    if (in_args && line.find("end of arguments") != std::string::npos) {
      in_args = false;
      continue;
    }
    if (in_args) {
      if (std::regex_match(line, m, kArgLine)) log.args[m[1]] = m[2];
      continue;
    }
    if (std::regex_search(line, m, kPaddedVocab)) log.padded_vocab = std::stoll(m[1]);
    if (std::regex_search(line, m, kElapsed)) {
      char* end = nullptr;
      const std::string text = m[1];
      const double ms = std::strtod(text.c_str(), &end);
      if (*end != '\0' || !(ms > 0.0))
        throw InputError(path, "line " + std::to_string(ln), "elapsed time per iteration is not positive",
                         "'" + text + "'", "a time in ms > 0");
      log.iteration_ms.push_back(ms);
    }
  }
  if (!saw_args)
    throw InputError(path, "", "no arguments block", "",
                     "the '------------------------ arguments ------------------------' block Megatron-LM prints");
  if (log.iteration_ms.empty())
    throw InputError(path, "", "no iteration line", "",
                     "lines with 'elapsed time per iteration (ms): X' (training.py's log interval)");
  return log;
}

models::TransformerShape megatron_shape(const MegatronLog& log, const std::string& name) {
  models::TransformerShape s;
  s.name = name;
  s.source = "Megatron-LM arguments in " + log.file;
  s.layers = integer(log, "num_layers", std::nullopt);
  s.hidden = integer(log, "hidden_size", std::nullopt);
  s.heads = integer(log, "num_attention_heads", std::nullopt);
  if (s.hidden % s.heads != 0)
    bad_arg(log, "num_attention_heads", "does not divide hidden_size " + std::to_string(s.hidden),
            std::to_string(s.heads), "a divisor");
  s.kv_heads = boolean(log, "group_query_attention", false) ? integer(log, "num_query_groups", std::nullopt) : s.heads;
  if (s.heads % s.kv_heads != 0)
    bad_arg(log, "num_query_groups", "does not divide num_attention_heads", std::to_string(s.kv_heads), "a divisor");
  s.ffn_hidden = integer(log, "ffn_hidden_size", 4 * s.hidden);
  s.seq = integer(log, "seq_length", std::nullopt);
  s.vocab = log.padded_vocab > 0 ? log.padded_vocab : integer(log, "padded_vocab_size", std::nullopt);
  s.swiglu = boolean(log, "swiglu", false);
  s.biases = boolean(log, "add_bias_linear", true);
  s.learned_positions = arg(log, "position_embedding_type").value_or("learned_absolute") == "learned_absolute";
  s.tied_embeddings = !boolean(log, "untie_embeddings_and_output_weights", false);
  s.experts = integer(log, "num_experts", 1);
  // moe_router_topk: Megatron-Core's default is 2 (recalled, grade C); a dense model routes to 1.
  s.top_k = s.experts > 1 ? integer(log, "moe_router_topk", 2) : 1;
  return s;
}

TrainingCase megatron_case(const MegatronLog& log, const std::string& cluster, std::uint32_t nodes,
                           std::uint32_t gpus_per_node, const std::string& workload, int skip) {
  TrainingCase c;
  c.case_id = log.file.substr(log.file.find_last_of('/') + 1);
  c.cluster = cluster;
  c.workload = workload;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.metric = "iteration_s";
  c.source = "Megatron-LM log " + log.file;
  const std::int64_t world = integer(log, "world_size", std::nullopt);
  if (world != static_cast<std::int64_t>(nodes) * gpus_per_node)
    bad_arg(log, "world_size",
            "is not --nodes x --gpus-per-node (" + std::to_string(nodes) + " x " + std::to_string(gpus_per_node) + ")",
            std::to_string(world), "the ranks the log ran on");
  const std::int64_t tp = integer(log, "tensor_model_parallel_size", 1),
                     pp = integer(log, "pipeline_model_parallel_size", 1);
  const std::int64_t layers = integer(log, "num_layers", std::nullopt);
  // Megatron-LM's own asserts (arguments.py, megatron/core/parallel_state.py): tp x pp divides the world size and tp
  // divides the attention heads.
  if (tp < 1 || pp < 1 || world % (tp * pp) != 0)
    bad_arg(log, "tensor_model_parallel_size",
            "tp x pp (" + std::to_string(tp) + " x " + std::to_string(pp) + ") does not divide world_size " +
                std::to_string(world),
            std::to_string(tp), "a tp with tp x pp dividing world_size (Megatron-LM refuses the run otherwise)");
  const std::int64_t heads = integer(log, "num_attention_heads", std::nullopt);
  if (heads % tp != 0)
    bad_arg(log, "tensor_model_parallel_size", "does not divide num_attention_heads " + std::to_string(heads),
            std::to_string(tp), "a tp that divides the attention heads");
  auto set = [&](const std::string& k, const std::string& v) { c.sets.push_back(k + "=" + v); };
  set("tp", std::to_string(tp));
  set("pp", std::to_string(pp));
  set("micro_batch", std::to_string(integer(log, "micro_batch_size", std::nullopt)));
  set("global_batch", std::to_string(integer(log, "global_batch_size", std::nullopt)));
  std::int64_t v = integer(log, "virtual_pipeline_model_parallel_size", 1);
  if (arg(log, "num_layers_per_virtual_pipeline_stage"))
    v = layers / (pp * integer(log, "num_layers_per_virtual_pipeline_stage", std::nullopt));
  if (v > 1) set("schedule", "interleaved"), set("virtual_stages", std::to_string(v));
  if (boolean(log, "sequence_parallel", false)) set("sequence_parallel", "true");
  set("recompute", recompute(log, layers / pp));
  if (boolean(log, "bf16", false))
    set("precision", "bf16");
  else if (boolean(log, "fp16", false))
    set("precision", "fp16");
  else
    bad_arg(log, "fp16", "neither fp16 nor bf16 is True (fp32 training)", arg(log, "fp16").value_or("(absent)"),
            "16-bit training (vgsim's layer model covers fp16 and bf16)");
  if (boolean(log, "use_distributed_optimizer", false)) set("zero_stage", "1");
  const bool overlap = arg(log, "DDP_impl").value_or("") == "torch" || boolean(log, "overlap_grad_reduce", false);
  set("llm.grad_overlap", overlap ? "true" : "false");
  if (boolean(log, "use_flash_attn", false)) set("llm.attention", "flash");
  if (number(log, "hidden_dropout", 0.1) == 0.0 && number(log, "attention_dropout", 0.1) == 0.0)
    set("llm.dropout", "false");
  if (const std::int64_t ep = integer(log, "expert_model_parallel_size", 1); ep > 1) set("ep", std::to_string(ep));
  if (skip < 0 || static_cast<std::size_t>(skip) >= log.iteration_ms.size())
    throw InputError(log.file, "", "too few iteration lines for --skip " + std::to_string(skip),
                     std::to_string(log.iteration_ms.size()) + " line(s)", "more lines than --skip");
  c.value = median({log.iteration_ms.begin() + skip, log.iteration_ms.end()}) / 1000.0;
  return c;
}

Json shape_file_json(const models::TransformerShape& s) {
  Json shape = {{"name", s.name},
                {"source", s.source},
                {"layers", s.layers},
                {"hidden", s.hidden},
                {"heads", s.heads},
                {"kv_heads", s.kv_heads},
                {"ffn_hidden", s.ffn_hidden},
                {"vocab", s.vocab},
                {"seq", s.seq},
                {"swiglu", s.swiglu},
                {"biases", s.biases},
                {"learned_positions", s.learned_positions},
                {"tied_embeddings", s.tied_embeddings}};
  if (s.experts > 1) shape["experts"] = s.experts, shape["top_k"] = s.top_k;
  return Json{{"shapes", Json::array({shape})}};
}

std::string training_cases_csv(const std::vector<TrainingCase>& cases) {
  auto field = [](const std::string& v) {
    if (v.find_first_of(",\"\n") == std::string::npos) return v;
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::ostringstream out;
  out.precision(17);
  out << "case_id,cluster,workload,nodes,gpus_per_node,settings,metric,value,source\n";
  for (const TrainingCase& c : cases) {
    std::string settings;
    for (const std::string& kv : c.sets) settings += (settings.empty() ? "" : ";") + kv;
    out << field(c.case_id) << ',' << field(c.cluster) << ',' << field(c.workload) << ',' << c.nodes << ','
        << c.gpus_per_node << ',' << field(settings) << ',' << c.metric << ',' << c.value << ',' << field(c.source)
        << '\n';
  }
  return out.str();
}

std::string matching_builtin_shape(const models::TransformerShape& s) {
  for (const models::TransformerShape& b : models::load_transformer_shapes())
    if (b.layers == s.layers && b.hidden == s.hidden && b.heads == s.heads && b.kv_heads == s.kv_heads &&
        b.ffn_hidden == s.ffn_hidden && b.vocab == s.vocab && b.seq == s.seq && b.swiglu == s.swiglu &&
        b.biases == s.biases && b.learned_positions == s.learned_positions && b.tied_embeddings == s.tied_embeddings &&
        b.experts == s.experts && b.top_k == s.top_k)
      return b.name;
  return "";
}

}  // namespace vgsim::calibrate
