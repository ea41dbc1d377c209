// Training settings parsing from JSON and key=value pairs (see include/vgsim/workloads/models/training_settings.hpp).
#include "vgsim/workloads/models/training_settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace vgsim::models {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::AMP: return "amp";
  }
  return "?";
}
const char* to_string(Framework f) {
  return f == Framework::Horovod ? "horovod" : f == Framework::DDP ? "ddp" : "none";
}
const char* to_string(Scaling s) { return s == Scaling::Weak ? "weak" : "strong"; }

std::int64_t TrainingSettings::per_gpu_batch(int ranks) const {
  if (scaling == Scaling::Weak || !global_batch) return batch_per_gpu;
  const std::int64_t div = std::max<std::int64_t>(1, ranks) * std::max<std::int64_t>(1, grad_accumulation_steps);
  return std::max<std::int64_t>(1, *global_batch / div);
}

namespace {

// Bytes per parameter moved by the optimizer step (see the header for the derivation).
double optimizer_bytes(const std::string& opt, Precision p) {
  double b = opt == "sgd" ? 12.0 : opt == "sgd_momentum" ? 20.0 : 28.0;  // adam, adamw
  if (p == Precision::AMP) b += 2.0;  // fp16 working copy of the weights written after the update
  return b;
}

void read_horovod(JsonReader& h, HorovodSettings& hv) {
  if (auto era = h.opt_one_of("era", {"2017-2020", "current"})) {
    hv.era = *era;
    if (hv.era == "current") {
      hv.fusion_threshold = 128 * MiB;  // newer operations.cc SetTensorFusionThresholdBytes(128*1024*1024)
      hv.cycle_time = ms(1);            // newer operations.cc SetCycleTimeMs(1)
    } else {
      hv.fusion_threshold = 64 * MiB;   // docs/tensor-fusion.rst 64 MB
      hv.cycle_time = ms(5);            // older operations.cc
    }
  }
  if (auto t = h.opt_bytes("fusion_threshold")) {
    if (*t < 0) h.fail("fusion_threshold", "negative fusion threshold", "a size >= 0 (0 disables fusion)");
    hv.fusion_threshold = *t;
  }
  if (auto c = h.opt_time("cycle_time")) {
    if (c->ps <= 0) h.fail("cycle_time", "non-positive cycle time", "a time > 0, e.g. \"5ms\"");
    hv.cycle_time = *c;
  }
  hv.fp16_compression = h.opt_boolean("fp16_compression").value_or(hv.fp16_compression);
  hv.sparse_as_dense = h.opt_boolean("sparse_as_dense").value_or(hv.sparse_as_dense);
  hv.hierarchical_allreduce = h.opt_boolean("hierarchical_allreduce").value_or(hv.hierarchical_allreduce);
  if (auto q = h.opt_one_of("requests", {"dispatch", "ready"})) hv.requests_at_dispatch = *q == "dispatch";
  h.finish();
}

void read_ddp(JsonReader& d, DdpSettings& dd) {
  if (auto c = d.opt_number("bucket_cap_mb", 1e-6, 1e6)) dd.bucket_cap = static_cast<Bytes>(*c * MiB + 0.5);
  if (auto f = d.opt_number("first_bucket_mb", 0.0, 1e6)) dd.first_bucket = static_cast<Bytes>(*f * MiB + 0.5);
  d.finish();
}

}  // namespace

TrainingSettings parse_training_settings(JsonReader& r) {
  TrainingSettings s;
  s.precision = [&] {
    const auto p = r.opt_one_of("precision", {"fp32", "tf32", "fp16", "bf16", "amp"}).value_or("fp32");
    if (p == "tf32") return Precision::TF32;
    if (p == "fp16") return Precision::FP16;
    if (p == "bf16") return Precision::BF16;
    if (p == "amp") return Precision::AMP;
    return Precision::FP32;
  }();
  const auto fw = r.opt_one_of("framework", {"horovod", "ddp", "none"}).value_or("ddp");
  s.framework = fw == "horovod" ? Framework::Horovod : fw == "ddp" ? Framework::DDP : Framework::None;
  if (auto h = r.opt_object("horovod")) {
    if (s.framework != Framework::Horovod)
      r.fail("horovod", "horovod settings given with framework '" + fw + "'", "\"framework\": \"horovod\"");
    read_horovod(*h, s.horovod);
  }
  if (auto d = r.opt_object("ddp")) {
    if (s.framework != Framework::DDP)
      r.fail("ddp", "ddp settings given with framework '" + fw + "'", "\"framework\": \"ddp\"");
    read_ddp(*d, s.ddp);
  }
  s.grad_accumulation_steps = r.opt_integer("grad_accumulation_steps", 1, 1 << 20).value_or(1);
  s.scaling = r.opt_one_of("scaling", {"weak", "strong"}).value_or("weak") == "weak" ? Scaling::Weak : Scaling::Strong;
  s.global_batch = r.opt_integer("global_batch", 1);
  if (auto b = r.opt_integer("batch_per_gpu", 1)) s.batch_per_gpu = *b;
  s.tokens_per_gpu = r.opt_integer("tokens_per_gpu", 1);
  if (s.scaling == Scaling::Strong && !s.global_batch)
    r.fail("global_batch", "strong scaling needs the global batch", "an integer >= 1 (samples per optimizer step)");
  if (s.scaling == Scaling::Weak && s.global_batch)
    r.fail("global_batch", "global_batch given with weak scaling", "\"scaling\": \"strong\", or batch_per_gpu only");
  if (s.scaling == Scaling::Weak && s.batch_per_gpu == 0)
    r.fail("batch_per_gpu", "missing per-GPU batch", "an integer >= 1 (samples per GPU per micro-step)");
  if (s.scaling == Scaling::Strong && s.batch_per_gpu == 0) s.batch_per_gpu = *s.global_batch;
  s.steps_to_converge = r.opt_integer("steps_to_converge", 1);
  s.optimizer = r.opt_one_of("optimizer", {"sgd", "sgd_momentum", "adam", "adamw"}).value_or("sgd_momentum");
  s.optimizer_bytes_per_param =
      r.opt_number("optimizer_bytes_per_param", 0.0, 1000.0).value_or(optimizer_bytes(s.optimizer, s.precision));
  r.finish();
  return s;
}

TrainingSettings parse_training_settings(const Json& j, const std::string& file) {
  JsonReader r(j, file);
  return parse_training_settings(r);
}

namespace {

Json typed_value(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  std::int64_t i = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (ec == std::errc() && p == v.data() + v.size()) return i;
  double d = 0.0;
  auto [p2, ec2] = std::from_chars(v.data(), v.data() + v.size(), d);
  // NaN and infinities stay strings: a JSON number cannot hold them (it would print as null in a message).
  if (ec2 == std::errc() && p2 == v.data() + v.size() && std::isfinite(d)) return d;
  return v;
}

void apply_pairs(Json& j, const std::vector<std::string>& pairs, const std::string& origin) {
  for (const auto& kv : pairs) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(origin, "", "not a key=value pair", "'" + kv + "'",
                       "key=value, e.g. precision=amp or horovod.cycle_time=1ms");
    const std::string key = kv.substr(0, eq);
    Json* node = &j;
    std::size_t start = 0;
    for (;;) {
      const auto dot = key.find('.', start);
      const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (part.empty()) throw InputError(origin, key, "empty key segment", "'" + kv + "'", "dotted key like ddp.bucket_cap_mb");
      if (dot == std::string::npos) {
        (*node)[part] = typed_value(kv.substr(eq + 1));
        break;
      }
      Json& child = (*node)[part];
      if (!child.is_object()) child = Json::object();
      node = &child;
      start = dot + 1;
    }
  }
}

}  // namespace

TrainingSettings parse_training_settings_kv(const std::vector<std::string>& pairs, const std::string& origin) {
  Json j = Json::object();
  apply_pairs(j, pairs, origin);
  JsonReader r(j, origin);
  return parse_training_settings(r);
}

TrainingSettings parse_training_settings(const Json& j, const std::string& file,
                                         const std::vector<std::string>& pairs) {
  Json merged = j;
  if (!merged.is_object()) throw InputError(file, "$", "wrong type", json_snippet(j), "an object");
  apply_pairs(merged, pairs, file + " (with --set)");
  JsonReader r(merged, file);
  return parse_training_settings(r);
}

}  // namespace vgsim::models
