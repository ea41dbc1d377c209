// Training settings: defaults with their sources, JSON and key=value parsing, and errors naming key/value/expectation.
#include <catch2/catch.hpp>

#include "vgsim/workloads/models/training_settings.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }
}  // namespace

TEST_CASE("defaults: Horovod eras, DDP buckets, optimizer traffic") {
  auto s = parse_training_settings_kv({"batch_per_gpu=64", "framework=horovod"});
  // B8: 2017-2020 era = 64 MB threshold (docs) and 5 ms cycle (older operations.cc).
  CHECK(s.horovod.fusion_threshold == 64 * MiB);
  CHECK(s.horovod.cycle_time == ms(5));
  auto c = parse_training_settings_kv({"batch_per_gpu=64", "framework=horovod", "horovod.era=current"});
  // B8: current operations.cc: 128*1024*1024 bytes and 1 ms.
  CHECK(c.horovod.fusion_threshold == 128 * MiB);
  CHECK(c.horovod.cycle_time == ms(1));
  auto o = parse_training_settings_kv({"batch_per_gpu=64", "framework=horovod", "horovod.era=current",
                                       "horovod.fusion_threshold=32MiB", "horovod.cycle_time=3.5ms"});
  CHECK(o.horovod.fusion_threshold == 32 * MiB);  // explicit value beats the era
  CHECK(o.horovod.cycle_time == us(3500));        // the docs' HOROVOD_CYCLE_TIME=3.5 example
  auto d = parse_training_settings_kv({"batch_per_gpu=32"});
  // B8: DDP bucket_cap_mb 25 (MiB), first bucket 1 MiB; the default framework is ddp.
  CHECK(d.framework == Framework::DDP);
  CHECK(d.ddp.bucket_cap == 25 * MiB);
  CHECK(d.ddp.first_bucket == 1 * MiB);
  // SGD momentum: read w, g, m + write w, m = 5 x 4 B = 20 B/param.
  CHECK(d.optimizer_bytes_per_param == 20.0);
  // Adam under AMP: 7 x 4 B + 2 B fp16 copy = 30 B/param.
  CHECK(parse_training_settings_kv({"batch_per_gpu=8", "optimizer=adam", "precision=amp"}).optimizer_bytes_per_param ==
        30.0);
}

TEST_CASE("JSON settings with overrides and strong scaling") {
  Json j = Json::parse(R"({"batch_per_gpu": 256, "precision": "amp", "framework": "ddp",
                            "ddp": {"bucket_cap_mb": 50}, "grad_accumulation_steps": 2})");
  auto s = parse_training_settings(j, "w.json");
  CHECK(s.precision == Precision::AMP);
  CHECK(s.ddp.bucket_cap == 50 * MiB);
  CHECK(s.grad_accumulation_steps == 2);
  CHECK(s.per_gpu_batch(8) == 256);  // weak: independent of the rank count
  auto p = parse_training_settings(j, "w.json", {"precision=tf32"});
  CHECK(p.precision == Precision::TF32);  // pairs win over the file

  auto st = parse_training_settings_kv({"scaling=strong", "global_batch=1024", "grad_accumulation_steps=2"});
  // strong: 1024 / (8 ranks x 2 micro-steps) = 64 samples per GPU per micro-step.
  CHECK(st.per_gpu_batch(8) == 64);
  CHECK(st.per_gpu_batch(1) == 512);
}

// Values given as name=value are checked against the declarations (training_setting_params) before the JSON reader
// sees them, so the error names the parameter, the value and its declared type, range or choices.
TEST_CASE("settings errors name the key, the value and the expectation") {
  const auto e1 = error_of([] { parse_training_settings_kv({"batch_per_gpu=8", "precision=fp8"}); });
  CHECK(has(e1, "--set"));
  CHECK(has(e1, "precision: not an accepted value"));
  CHECK(has(e1, "fp8"));
  CHECK(has(e1, "amp"));  // the accepted values are listed

  const auto e2 = error_of([] { parse_training_settings_kv({"batch_per_gpu=0"}); });
  CHECK(has(e2, "batch_per_gpu: out of range"));
  CHECK(has(e2, "0"));
  CHECK(has(e2, "an integer in [1,"));

  const auto e3 = error_of([] {
    parse_training_settings_kv({"batch_per_gpu=8", "framework=horovod", "horovod.fusion_treshold=64MiB"});
  });
  CHECK(has(e3, "horovod.fusion_treshold: unknown parameter"));
  CHECK(has(e3, "did you mean 'horovod.fusion_threshold'"));

  const auto e4 = error_of([] { parse_training_settings_kv({"scaling=strong"}); });
  CHECK(has(e4, "$.global_batch"));
  CHECK(has(e4, "strong scaling needs the global batch"));

  const auto e5 = error_of([] {
    parse_training_settings_kv({"batch_per_gpu=8", "framework=horovod", "horovod.cycle_time=5 parsecs"});
  });
  CHECK(has(e5, "horovod.cycle_time: bad time"));
  CHECK(has(e5, "parsecs"));

  const auto e6 = error_of([] {
    parse_training_settings_kv({"batch_per_gpu=8", "ddp.bucket_cap_mb=25", "framework=horovod"});
  });
  CHECK(has(e6, "$.ddp"));  // ddp settings with framework horovod

  const auto e7 = error_of([] { parse_training_settings_kv({"precision"}); });
  CHECK(has(e7, "not a key=value pair"));
}
