// Training settings of a data-parallel job: per-GPU batch, precision, the framework's gradient-exchange settings
// (Horovod tensor fusion, PyTorch DDP buckets, or none), gradient accumulation, weak/strong scaling and the optimizer's
// memory traffic. Parsed from JSON (JsonReader) or from "key=value" pairs (dotted keys: "horovod.cycle_time=1ms").
// Every default below names its source. Not a model, not a cluster.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/parameter.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::models {

enum class Precision { FP32, TF32, FP16, BF16, AMP };
enum class Framework { Horovod, DDP, None };
enum class Scaling { Weak, Strong };
const char* to_string(Precision p);
const char* to_string(Framework f);
const char* to_string(Scaling s);

// Horovod tensor fusion (workloads.md B8; horovod docs/tensor-fusion.rst, horovod/common/operations.cc).
struct HorovodSettings {
  // "2017-2020": 64 MiB / 5 ms (docs' 64 MB; older operations.cc cycle 5 ms) -- the default, because the Horovod
  // results in the development set are 2017 (docs/SOURCES.md#horovod-tcp-rdma). "current": 128 MiB / 1 ms (newer
  // operations.cc SetTensorFusionThresholdBytes(128*1024*1024), SetCycleTimeMs(1)).
  std::string era = "2017-2020";
  Bytes fusion_threshold = 64 * MiB;  // 0 disables fusion
  Time cycle_time = ms(5);
  bool fp16_compression = false;  // hvd.Compression.fp16: gradients travel as 2-byte elements
  bool sparse_as_dense = false;   // sparse (embedding) gradients allreduced densely instead of allgathered
  bool hierarchical_allreduce = false;
  // When a gradient's allreduce request reaches Horovod's queue (docs/SOURCES.md#horovod, Horovod
  // 0.9-0.21 operations.cc / mpi_ops.cc). "dispatch" (default): the framework's op runs (ComputeAsync, TF1 graph mode
  // as in tf_cnn_benchmarks; TF2 tapes and Keras likewise enqueue all gradients at once) when the producing kernel is
  // *enqueued*, so with the CPU ahead of the GPU every request of a backward pass is queued before the first
  // gradient exists; rank 0 fuses them in request (backward) order up to the threshold, and the background thread
  // waits for every entry of a response (WAIT_FOR_DATA / WAIT_FOR_OTHER_TENSOR_DATA) before it starts it. "ready":
  // requests arrive as gradients are computed (a framework whose host thread does not run ahead), so each cycle
  // tick fuses what is ready then.
  bool requests_at_dispatch = true;
};

// PyTorch DDP (workloads.md B8; torch/lib/c10d/reducer.hpp).
struct DdpSettings {
  Bytes bucket_cap = 25 * MiB;   // bucket_cap_mb = 25 (kDefaultBucketBytesCap, MiB)
  Bytes first_bucket = 1 * MiB;  // kDefaultFirstBucketBytes / dist._DEFAULT_FIRST_BUCKET_BYTES
};

struct TrainingSettings {
  std::int64_t batch_per_gpu = 0;              // samples per GPU per micro-step (weak scaling; derived for strong)
  std::optional<std::int64_t> tokens_per_gpu;  // token models: tokens per GPU per micro-step (overrides batch x seq)
  Precision precision = Precision::FP32;
  Framework framework = Framework::DDP;
  HorovodSettings horovod;
  DdpSettings ddp;
  std::int64_t grad_accumulation_steps = 1;  // micro-steps per allreduce
  Scaling scaling = Scaling::Weak;
  std::optional<std::int64_t> global_batch;  // samples per optimizer step, all GPUs (strong scaling)
  std::optional<std::int64_t> steps_to_converge;
  // Optimizer memory traffic per parameter per step [derived from the update rules, fp32 state, one unfused pass]:
  //   sgd: read w, g; write w = 12 B; sgd_momentum: read w, g, m; write w, m = 20 B;
  //   adam/adamw: read w, g, m, v; write w, m, v = 28 B. AMP adds +2 B (fp16 weight copy written).
  std::string optimizer = "sgd_momentum";
  double optimizer_bytes_per_param = 20.0;

  // Samples per GPU per micro-step for `ranks` GPUs: batch_per_gpu (weak) or global_batch / (ranks x accumulation),
  // rounded down, at least 1 (strong).
  std::int64_t per_gpu_batch(int ranks) const;
};

// Reads settings from a JSON object. Keys: batch_per_gpu, tokens_per_gpu, precision, framework, horovod{era,
// fusion_threshold, cycle_time, fp16_compression, sparse_as_dense, hierarchical_allreduce}, ddp{bucket_cap_mb,
// first_bucket_mb}, grad_accumulation_steps, scaling, global_batch, steps_to_converge, optimizer,
// optimizer_bytes_per_param. Calls r.finish().
TrainingSettings parse_training_settings(JsonReader& r);
TrainingSettings parse_training_settings(const Json& j, const std::string& file);
// The settings as parameters, declared once here: names as in the JSON object, dotted for the horovod / ddp
// sub-objects ("horovod.cycle_time"), with type, bounds, help and the source of each default.
const std::vector<ParamDecl>& training_setting_params();
// The value of one of those parameters in `s`, as `vgsim params` and reports show it (null when unset).
Json training_setting_value(const TrainingSettings& s, const std::string& name);
// A JSON object with values already checked against training_setting_params() placed over it (dotted names reach the
// sub-objects; later values win), then read as above.
TrainingSettings parse_training_settings(const Json& j, const std::string& file,
                                         const std::vector<std::pair<std::string, Json>>& values);
// From "name=value" pairs, each checked against its declaration (errors name `origin`, the name, the value and the
// expectation; an unknown name gets a did-you-mean).
TrainingSettings parse_training_settings_kv(const std::vector<std::string>& pairs, const std::string& origin = "--set");
// Same, applied on top of a JSON document (pairs win).
TrainingSettings parse_training_settings(const Json& j, const std::string& file, const std::vector<std::string>& pairs);

}  // namespace vgsim::models
