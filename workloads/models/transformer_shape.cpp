// Parameter counts, FLOPs and activation memory of a Transformer from its shape (see transformer_shape.hpp).
#include "vgsim/workloads/models/transformer_shape.hpp"

#include <filesystem>
#include <fstream>

#include "vgsim/kernel/data_root.hpp"
#include "vgsim/kernel/input_files.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::models {

namespace {
// Attention width of K and V relative to h: g / a (grouped-query attention).
double kv_fraction(const TransformerShape& m) { return static_cast<double>(m.kv_heads) / static_cast<double>(m.heads); }
}  // namespace

ParameterCount parameter_count(const TransformerShape& m) {
  ParameterCount c;
  const std::int64_t h = m.hidden, f = m.ffn_hidden, kv = m.hidden / m.heads * m.kv_heads;  // K and V widths
  c.embedding = m.vocab * h + (m.learned_positions ? m.seq * h : 0);
  const std::int64_t attention = h * h + 2 * h * kv + h * h + (m.biases ? h + 2 * kv + h : 0);
  const std::int64_t mlp_one = (m.swiglu ? 3 : 2) * h * f + (m.biases ? (m.swiglu ? 2 * f : f) + h : 0);
  const std::int64_t router = m.experts > 1 ? h * m.experts : 0;
  const std::int64_t norms = 2 * (m.biases ? 2 * h : h);
  c.per_layer = attention + m.experts * mlp_one + router + norms;
  c.final_norm = m.biases ? 2 * h : h;
  c.lm_head = m.tied_embeddings ? 0 : m.vocab * h;
  c.total = c.embedding + m.layers * c.per_layer + c.final_norm + c.lm_head;
  return c;
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "?";
}

Recompute parse_recompute(const std::string& s) {
  if (s == "none") return Recompute::None;
  if (s == "selective") return Recompute::Selective;
  if (s == "full") return Recompute::Full;
  throw UnitError("unknown recomputation '" + s + "': expected none, selective or full");
}

namespace {
// 12 B s L h^2 x (the layers' bracket): attention + MLP model FLOPs of every layer (forward + backward).
double layer_model_flops(const TransformerShape& m, double B) {
  const double h = static_cast<double>(m.hidden), s = static_cast<double>(m.seq);
  const double attention = 1.0 + kv_fraction(m) + s / h;  // q / h = 1: the query projection is h wide
  const double mlp = static_cast<double>(m.ffn_hidden) / h * static_cast<double>(m.top_k) * (m.swiglu ? 1.5 : 1.0);
  return 12.0 * B * s * static_cast<double>(m.layers) * h * h * (attention + mlp);
}
}  // namespace

double model_flops(const TransformerShape& m, double B) {
  const double h = static_cast<double>(m.hidden), s = static_cast<double>(m.seq);
  const double logits = 12.0 * B * s * static_cast<double>(m.layers) * h * h * static_cast<double>(m.vocab) /
                        (2.0 * static_cast<double>(m.layers) * h);  // = 6 B s h V
  return layer_model_flops(m, B) + logits;
}

double hardware_flops(const TransformerShape& m, double B, Recompute r) {
  const double base = model_flops(m, B);
  const double h = static_cast<double>(m.hidden), s = static_cast<double>(m.seq);
  switch (r) {
    case Recompute::None:
      return base;
    case Recompute::Selective:
      return base + 12.0 * B * static_cast<double>(m.layers) * s * s * h;  // eq. (8) as published
    case Recompute::Full:
      return base + layer_model_flops(m, B) / 3.0;  // one more forward of every layer (eq. 3)
  }
  return base;
}

double activation_bytes_per_layer(const TransformerShape& m, double b, std::int64_t tp, bool sp, Recompute r,
                                  bool flash) {
  const double h = static_cast<double>(m.hidden), s = static_cast<double>(m.seq), t = static_cast<double>(tp);
  const double sbh = s * b * h;
  if (r == Recompute::Full) return 2.0 * sbh / (sp ? t : 1.0);
  const double whole = 10.0;
  const double mlp = (m.swiglu ? 8.0 : 4.0) * static_cast<double>(m.ffn_hidden) / h;
  const double split = 4.0 + 4.0 * kv_fraction(m) + mlp;
  const double a = static_cast<double>(m.heads);
  const double scores = flash ? 4.0 * a / h : r == Recompute::Selective ? 0.0 : 5.0 * a * s / h;
  return sbh * ((sp ? whole / t : whole) + (split + scores) / t);
}

std::string default_transformer_shapes_file() {
  return (std::filesystem::path(data_root(VGSIM_LLM_DEFAULT_DATA_DIR)) / "workloads" / "llm" /
          "transformer_shapes.json")
      .string();
}

namespace {
TransformerShape read_shape(JsonReader& r) {
  TransformerShape m;
  m.name = r.string("name");
  m.source = r.string("source");
  m.layers = r.integer("layers", 1, 100000);
  m.hidden = r.integer("hidden", 1, 1 << 20);
  m.heads = r.integer("heads", 1, 1 << 16);
  if (m.hidden % m.heads != 0) r.fail("heads", "heads must divide hidden " + std::to_string(m.hidden), "a divisor");
  m.kv_heads = r.opt_integer("kv_heads", 1, m.heads).value_or(m.heads);
  if (m.heads % m.kv_heads != 0) r.fail("kv_heads", "KV heads must divide heads", "a divisor of heads");
  m.ffn_hidden = r.opt_integer("ffn_hidden", 1, std::int64_t{1} << 24).value_or(4 * m.hidden);
  m.vocab = r.integer("vocab", 1, std::int64_t{1} << 24);
  m.seq = r.integer("seq", 1, std::int64_t{1} << 24);
  m.swiglu = r.opt_boolean("swiglu").value_or(false);
  m.biases = r.opt_boolean("biases").value_or(true);
  m.learned_positions = r.opt_boolean("learned_positions").value_or(true);
  m.tied_embeddings = r.opt_boolean("tied_embeddings").value_or(true);
  m.experts = r.opt_integer("experts", 1, 4096).value_or(1);
  m.top_k = r.opt_integer("top_k", 1, m.experts).value_or(1);
  if (auto p = r.opt_object("published")) {
    m.published_params = p->number("params", 1.0, 1e15);
    m.published_nominal = p->opt_boolean("nominal").value_or(false);
    p->finish();
  }
  r.finish();
  return m;
}
}  // namespace

std::vector<TransformerShape> load_transformer_shapes(const std::string& file) {
  const std::string path = file.empty() ? default_transformer_shapes_file() : file;
  const Json j = load_json_file(path);
  JsonReader root(j, path);
  std::vector<TransformerShape> out;
  for (JsonReader& r : root.objects("shapes")) {
    out.push_back(read_shape(r));
    for (std::size_t i = 0; i + 1 < out.size(); ++i)
      if (out[i].name == out.back().name) r.fail("name", "a shape named twice", "a unique name");
  }
  root.finish();
  return out;
}

namespace {
// "path.json#name" -> {"path.json", "name"}; no '#' -> {workload, ""}.
std::pair<std::string, std::string> split_shape_file(const std::string& workload) {
  const std::size_t hash = workload.rfind('#');
  if (hash == std::string::npos) return {workload, ""};
  return {workload.substr(0, hash), workload.substr(hash + 1)};
}
}  // namespace

bool is_transformer_shape_file(const std::string& workload) {
  const std::string path = split_shape_file(workload).first;
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return false;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in = open_input(path);
  const Json j = Json::parse(in, nullptr, false);
  return j.is_object() && j.contains("shapes");
}

TransformerShape load_transformer_shape_file(const std::string& workload) {
  const auto [path, name] = split_shape_file(workload);
  const std::vector<TransformerShape> all = load_transformer_shapes(path);
  if (!name.empty()) {
    for (const TransformerShape& s : all)
      if (s.name == name) return s;
    std::string list;
    for (const TransformerShape& s : all) list += (list.empty() ? "" : ", ") + s.name;
    throw InputError(path, "$.shapes", "no transformer shape named '" + name + "'", name, "one of " + list);
  }
  if (all.empty()) throw InputError(path, "$.shapes", "no shape", "[]", "one shape object");
  if (all.size() != 1)
    throw InputError(path, "$.shapes", "a file of several shapes needs #name after the path",
                     std::to_string(all.size()) + " shapes", "'" + path + "#<name>' or a file of one shape");
  return all.front();
}

const TransformerShape& find_transformer_shape(const std::vector<TransformerShape>& shapes, const std::string& name) {
  std::string list;
  for (const auto& s : shapes) {
    if (s.name == name) return s;
    list += (list.empty() ? "" : ", ") + s.name;
  }
  throw InputError(default_transformer_shapes_file(), "$.shapes", "no transformer shape named '" + name + "'", name,
                   "one of " + list);
}

}  // namespace vgsim::models
