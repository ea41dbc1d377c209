// Training settings parsing from JSON and key=value pairs (see include/vgsim/workloads/models/training_settings.hpp).
#include "vgsim/workloads/models/training_settings.hpp"

#include <algorithm>

namespace vgsim::models {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::FP32:
      return "fp32";
    case Precision::TF32:
      return "tf32";
    case Precision::FP16:
      return "fp16";
    case Precision::BF16:
      return "bf16";
    case Precision::AMP:
      return "amp";
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
      hv.fusion_threshold = 64 * MiB;  // docs/tensor-fusion.rst 64 MB
      hv.cycle_time = ms(5);           // older operations.cc
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

ParamDecl decl(const char* name, ParamType type, const char* unit, const char* help, const char* source) {
  ParamDecl d;
  d.name = name;
  d.type = type;
  d.unit = unit;
  d.help = help;
  d.source = source;
  return d;
}
ParamDecl choice(const char* name, std::vector<std::string> choices, const char* help, const char* source) {
  ParamDecl d = decl(name, ParamType::Choice, "", help, source);
  d.choices = std::move(choices);
  return d;
}
ParamDecl ranged(ParamDecl d, double min, double max) {
  d.min = min;
  d.max = max;
  return d;
}

// Places a checked value under its dotted name ("horovod.cycle_time" -> {"horovod": {"cycle_time": v}}).
void place(Json& j, const std::string& name, const Json& value) {
  Json* node = &j;
  std::size_t start = 0;
  for (auto dot = name.find('.'); dot != std::string::npos; start = dot + 1, dot = name.find('.', start)) {
    Json& child = (*node)[name.substr(start, dot - start)];
    if (!child.is_object()) child = Json::object();
    node = &child;
  }
  (*node)[name.substr(start)] = value;
}

}  // namespace

const std::vector<ParamDecl>& training_setting_params() {
  static const std::vector<ParamDecl> decls = [] {
    const char* hv = "workloads.md B8; horovod docs/tensor-fusion.rst, operations.cc (training_settings.hpp)";
    return std::vector<ParamDecl>{
        ranged(decl("batch_per_gpu", ParamType::Integer, "samples",
                    "samples per GPU per micro-step (weak scaling; derived from global_batch under strong scaling)",
                    "default [assumption]: 64, tf_cnn_benchmarks batch (workloads.md table 2)"),
               1, 1e12),
        ranged(decl("tokens_per_gpu", ParamType::Integer, "tokens",
                    "token models: tokens per GPU per micro-step (overrides batch x sequence length)",
                    "default: unset (batch x the model's sequence length)"),
               1, 1e15),
        choice("precision", {"fp32", "tf32", "fp16", "bf16", "amp"}, "math precision of the training step",
               "default: fp32 (training_settings.hpp)"),
        choice("framework", {"horovod", "ddp", "none"},
               "gradient exchange: Horovod tensor fusion, PyTorch DDP buckets, none",
               "default: ddp (training_settings.hpp)"),
        choice("horovod.era", {"2017-2020", "current"},
               "Horovod defaults: 2017-2020 = 64 MiB / 5 ms, current = 128 MiB / 1 ms", hv),
        decl("horovod.fusion_threshold", ParamType::Bytes, "B", "Horovod tensor-fusion buffer (0 disables fusion)", hv),
        decl("horovod.cycle_time", ParamType::Time, "s", "Horovod background-thread cycle", hv),
        decl("horovod.fp16_compression", ParamType::Boolean, "",
             "hvd.Compression.fp16: gradients travel as 2-byte elements", "default: false (Horovod)"),
        decl("horovod.sparse_as_dense", ParamType::Boolean, "",
             "sparse (embedding) gradients allreduced densely instead of allgathered", "default: false (Horovod)"),
        decl("horovod.hierarchical_allreduce", ParamType::Boolean, "", "HOROVOD_HIERARCHICAL_ALLREDUCE",
             "default: false (Horovod)"),
        choice("horovod.requests", {"dispatch", "ready"},
               "when a gradient's allreduce request reaches Horovod's queue: as the op is dispatched, or as the "
               "gradient is ready",
               "default: dispatch, TF graph mode as in tf_cnn_benchmarks (docs/SOURCES.md#horovod)"),
        ranged(decl("ddp.bucket_cap_mb", ParamType::Number, "MiB", "PyTorch DDP bucket cap",
                    "default: 25 (torch/lib/c10d/reducer.hpp kDefaultBucketBytesCap; workloads.md B8)"),
               1e-6, 1e6),
        ranged(decl("ddp.first_bucket_mb", ParamType::Number, "MiB", "PyTorch DDP first bucket",
                    "default: 1 (dist._DEFAULT_FIRST_BUCKET_BYTES; workloads.md B8)"),
               0, 1e6),
        ranged(decl("grad_accumulation_steps", ParamType::Integer, "", "micro-steps per allreduce", "default: 1"), 1,
               1 << 20),
        choice("scaling", {"weak", "strong"}, "weak: batch_per_gpu fixed; strong: global_batch fixed",
               "default: weak (training_settings.hpp)"),
        ranged(decl("global_batch", ParamType::Integer, "samples",
                    "samples per optimizer step, all GPUs (strong scaling)", "default: unset (weak scaling)"),
               1, 1e15),
        ranged(decl("steps_to_converge", ParamType::Integer, "steps", "optimizer steps to convergence (time-to-train)",
                    "default: unset"),
               1, 1e15),
        choice("optimizer", {"sgd", "sgd_momentum", "adam", "adamw"}, "optimizer whose memory traffic the step pays",
               "default: sgd_momentum (training_settings.hpp)"),
        ranged(
            decl("optimizer_bytes_per_param", ParamType::Number, "B", "optimizer memory traffic per parameter per step",
                 "derived from optimizer and precision (training_settings.hpp)"),
            0, 1000),
    };
  }();
  return decls;
}

Json training_setting_value(const TrainingSettings& s, const std::string& name) {
  if (name == "batch_per_gpu") return s.batch_per_gpu;
  if (name == "tokens_per_gpu") return s.tokens_per_gpu ? Json(*s.tokens_per_gpu) : Json(nullptr);
  if (name == "precision") return to_string(s.precision);
  if (name == "framework") return to_string(s.framework);
  if (name == "horovod.era") return s.horovod.era;
  if (name == "horovod.fusion_threshold") return format_bytes(s.horovod.fusion_threshold);
  if (name == "horovod.cycle_time") return format_time(s.horovod.cycle_time);
  if (name == "horovod.fp16_compression") return s.horovod.fp16_compression;
  if (name == "horovod.sparse_as_dense") return s.horovod.sparse_as_dense;
  if (name == "horovod.hierarchical_allreduce") return s.horovod.hierarchical_allreduce;
  if (name == "horovod.requests") return s.horovod.requests_at_dispatch ? "dispatch" : "ready";
  if (name == "ddp.bucket_cap_mb") return static_cast<double>(s.ddp.bucket_cap) / static_cast<double>(MiB);
  if (name == "ddp.first_bucket_mb") return static_cast<double>(s.ddp.first_bucket) / static_cast<double>(MiB);
  if (name == "grad_accumulation_steps") return s.grad_accumulation_steps;
  if (name == "scaling") return to_string(s.scaling);
  if (name == "global_batch") return s.global_batch ? Json(*s.global_batch) : Json(nullptr);
  if (name == "steps_to_converge") return s.steps_to_converge ? Json(*s.steps_to_converge) : Json(nullptr);
  if (name == "optimizer") return s.optimizer;
  if (name == "optimizer_bytes_per_param") return s.optimizer_bytes_per_param;
  return nullptr;
}

TrainingSettings parse_training_settings(const Json& j, const std::string& file,
                                         const std::vector<std::pair<std::string, Json>>& values) {
  Json merged = j;
  if (!merged.is_object()) throw InputError(file, "$", "wrong type", json_snippet(j), "an object");
  for (const auto& [name, value] : values) place(merged, name, value);
  JsonReader r(merged, file);
  return parse_training_settings(r);
}

namespace {

std::vector<std::pair<std::string, Json>> checked(const std::vector<std::string>& pairs, const std::string& origin) {
  ParamRegistry reg;
  reg.add(training_setting_params());
  std::vector<std::pair<std::string, Json>> values;
  for (const auto& kv : pairs) {
    const auto [name, text] = split_assignment(kv, origin);
    values.emplace_back(name, read_param(reg.require(name, origin), text, origin));
  }
  return values;
}

}  // namespace

TrainingSettings parse_training_settings(const Json& j, const std::string& file,
                                         const std::vector<std::string>& pairs) {
  return parse_training_settings(j, file, checked(pairs, file + " (with --set)"));
}

TrainingSettings parse_training_settings_kv(const std::vector<std::string>& pairs, const std::string& origin) {
  return parse_training_settings(Json::object(), origin, checked(pairs, origin));
}

}  // namespace vgsim::models
