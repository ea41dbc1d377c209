// Model document parsing and totals (see include/vgsim/workloads/models/model.hpp).
#include "vgsim/workloads/models/model.hpp"

namespace vgsim::models {

const char* to_string(WorkUnit u) { return u == WorkUnit::Sample ? "sample" : "token"; }

std::int64_t Model::total_params() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.params;
  return n;
}

double Model::fwd_flops_per_unit() const {
  double f = 0.0;
  for (const auto& l : layers) f += l.fwd_flops;
  return f;
}

namespace {

int dtype_bytes(JsonReader& r, const std::string& key) {
  const std::string d = r.one_of(key, {"fp32", "fp16", "bf16"});
  return d == "fp32" ? 4 : 2;
}

std::string expand_name(const std::string& pattern, std::int64_t i) {
  const auto pos = pattern.find("{i}");
  if (pos == std::string::npos) return pattern + "." + std::to_string(i);
  return pattern.substr(0, pos) + std::to_string(i) + pattern.substr(pos + 3);
}

// Reads one entry of a "layers" array (a leaf layer or a group with its own "layers") and appends the expanded
// layers, prefixed with `prefix`.
void read_entry(JsonReader& r, const std::string& prefix, std::vector<Layer>& out) {
  const std::string name = r.string("name");
  if (name.empty()) r.fail("name", "empty layer name", "a non-empty string");
  const std::int64_t repeat = r.opt_integer("repeat", 1, 100000).value_or(1);
  const std::int64_t index_from = r.opt_integer("index_from", 0, 100000).value_or(0);
  if (r.has("layers")) {
    auto children = r.objects("layers");
    if (children.empty()) r.fail("layers", "empty group", "at least one layer");
    std::vector<Layer> one;
    // Read children once (validation), then replicate with expanded names.
    for (auto& c : children) {
      std::vector<Layer> tmp;
      read_entry(c, "", tmp);
      for (auto& l : tmp) one.push_back(l);
    }
    r.finish();
    for (std::int64_t k = 0; k < repeat; ++k) {
      const std::string g =
          prefix + (repeat > 1 || name.find("{i}") != std::string::npos ? expand_name(name, index_from + k) : name);
      for (const auto& l : one) {
        Layer x = l;
        x.name = g + "." + l.name;
        out.push_back(std::move(x));
      }
    }
    return;
  }
  Layer l;
  l.params = r.integer("params", 0);
  l.fwd_flops = r.number("fwd_flops", 0.0);
  l.bytes = r.number("bytes", 0.0);
  l.elementwise_bytes = r.opt_number("elementwise_bytes", 0.0).value_or(0.0);
  if (l.elementwise_bytes > l.bytes)
    r.fail("elementwise_bytes", "elementwise bytes exceed the layer's bytes",
           "a part of \"bytes\" (<= " + std::to_string(l.bytes) + ")");
  l.unfused_elementwise_bytes = r.opt_number("unfused_elementwise_bytes", 0.0).value_or(l.elementwise_bytes);
  if (l.unfused_elementwise_bytes < l.elementwise_bytes)
    r.fail("unfused_elementwise_bytes", "fewer unfused than fused elementwise bytes",
           ">= \"elementwise_bytes\" (" + std::to_string(l.elementwise_bytes) + ")");
  l.winograd_flops = r.opt_number("winograd_flops", 0.0).value_or(0.0);
  if (l.winograd_flops > l.fwd_flops)
    r.fail("winograd_flops", "Winograd-eligible FLOPs exceed the layer's FLOPs",
           "a part of \"fwd_flops\" (<= " + std::to_string(l.fwd_flops) + ")");
  l.bwd_ratio = r.opt_number("bwd_ratio", 0.0, 100.0).value_or(2.0);
  if (l.bwd_ratio <= 0.0) r.fail("bwd_ratio", "non-positive backward/forward ratio", "a number > 0");
  l.sparse = r.opt_boolean("sparse").value_or(false);
  if (l.sparse) {
    l.embedding_rows = r.integer("embedding_rows", 1);
    if (l.params % l.embedding_rows != 0)
      r.fail("embedding_rows", "params is not a multiple of embedding_rows",
             "the number of rows of the embedding table (params = rows x width)");
  } else if (r.has("embedding_rows")) {
    r.fail("embedding_rows", "embedding_rows given for a dense layer", "\"sparse\": true alongside it");
  }
  r.finish();
  for (std::int64_t k = 0; k < repeat; ++k) {
    Layer x = l;
    x.name = prefix + (repeat > 1 || name.find("{i}") != std::string::npos ? expand_name(name, index_from + k) : name);
    out.push_back(std::move(x));
  }
}

}  // namespace

Model parse_model(const Json& j, const std::string& file) {
  JsonReader r(j, file);
  Model m;
  m.file = file;
  m.name = r.string("name");
  m.source = r.string("source");
  m.input = r.string("input");
  m.unit = r.one_of("unit", {"sample", "token"}) == "sample" ? WorkUnit::Sample : WorkUnit::Token;
  if (m.unit == WorkUnit::Token) {
    m.tokens_per_sample = r.integer("tokens_per_sample", 1, 1 << 24);
  } else if (r.has("tokens_per_sample")) {
    r.fail("tokens_per_sample", "tokens_per_sample given for a per-sample model", "\"unit\": \"token\"");
  }
  m.param_dtype_bytes = dtype_bytes(r, "param_dtype");
  m.grad_dtype_bytes = dtype_bytes(r, "grad_dtype");
  if (auto sb = r.opt_object("saturation_batch")) {
    m.saturation_batch = sb->number("value", 1e-9);
    sb->string("source");
    sb->finish();
  }
  if (auto e = r.opt_object("efficiency")) {
    m.eff_compute = e->opt_number("compute", 1e-6, 1.0);
    m.eff_memory = e->opt_number("memory", 1e-6, 1.0);
    e->string("source");
    e->finish();
  }
  if (auto p = r.opt_object("published")) {
    m.published.params = p->opt_integer("params", 1);
    m.published.fwd_gmacs = p->opt_number("fwd_gmacs", 0.0);
    m.published.approximate = p->opt_boolean("approximate").value_or(false);
    m.published.source = p->string("source");
    p->finish();
  }
  auto entries = r.objects("layers");
  if (entries.empty()) r.fail("layers", "no layers", "at least one layer");
  for (auto& e : entries) read_entry(e, "", m.layers);
  r.finish();
  return m;
}

}  // namespace vgsim::models
