// Gradient grouping: DDP buckets, Horovod fusion rounds, a single allreduce; sparse allgathers.
#include <catch2/catch.hpp>
#include <set>

#include "vgsim/workloads/models/bucketing.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {
Model lib(const std::string& n) { return load_model(std::string(VGSIM_DATA_DIR) + "/workloads/models/" + n + ".json"); }
GpuComputeSpec a100() {  // NVIDIA A100 datasheet figures
  GpuComputeSpec g;
  g.name = "A100";
  g.peak_fp32_flops = 19.5e12;
  g.peak_tf32_flops = 156e12;
  g.peak_fp16_flops = 312e12;
  g.memory_bandwidth = Bandwidth::from_GBps(2039);
  g.sm_count = 108;
  return g;
}
// Every tensor in exactly one group (the header's invariant).
void check_partition(const std::vector<GradientGroup>& gs, std::size_t n) {
  std::multiset<int> seen;
  for (const auto& g : gs) seen.insert(g.tensors.begin(), g.tensors.end());
  REQUIRE(seen.size() == n);
  for (int i = 0; i < static_cast<int>(n); ++i) CHECK(seen.count(i) == 1);
}
std::vector<GradientTensor> all_ready_at_zero(std::vector<GradientTensor> t) {
  for (auto& x : t) x.ready = Time{};
  return t;
}
}  // namespace

TEST_CASE("DDP buckets for ResNet-50 fp32") {
  auto s = parse_training_settings_kv({"batch_per_gpu=128", "framework=ddp"});
  auto r = compute_iteration(lib("resnet50"), s, a100(), {});
  auto t = gradient_tensors(r);
  auto b = group_gradients(t, s);
  check_partition(b, t.size());
  // workloads.md B8: 97.5 MiB of fp32 gradients -> 5 DDP buckets (1 MiB first bucket + ~25 MiB x 4).
  CHECK(b.size() == 5);
  Bytes total = 0;
  for (const auto& g : b) total += g.bytes;
  CHECK(total == 25557032LL * 4);
  // The first bucket closes at >= 1 MiB: it holds only fc (7.82 MiB, B7.1).
  CHECK(b[0].tensors == std::vector<int>{0});
  // Buckets are issued in index order: earliest starts never decrease and never precede readiness.
  for (std::size_t i = 0; i < b.size(); ++i) {
    CHECK(b[i].earliest_start >= b[i].last_ready);
    if (i) CHECK(b[i].earliest_start >= b[i - 1].earliest_start);
  }
  // The last bucket's last gradient is conv1's, ready at the end of backward.
  CHECK(b.back().last_ready == r.backward);
}

TEST_CASE("Horovod fusion for ResNet-50 with everything ready at once") {
  auto s = parse_training_settings_kv({"batch_per_gpu=64", "framework=horovod"});
  auto t = all_ready_at_zero(gradient_tensors(compute_iteration(lib("resnet50"), s, a100())));
  auto g = group_gradients(t, s);
  check_partition(g, t.size());
  // workloads.md B8: 97.5 MiB at a 64 MB threshold = 2 fusion rounds.
  CHECK(g.size() == 2);
  for (const auto& x : g) {
    CHECK(x.bytes <= 64 * MiB);
    CHECK(x.earliest_start == Time{});  // tick 0
  }
  // Threshold 0 disables fusion: one allreduce per tensor (18 ResNet-50 layer groups).
  auto nofuse = parse_training_settings_kv({"batch_per_gpu=64", "framework=horovod", "horovod.fusion_threshold=0B"});
  CHECK(group_gradients(t, nofuse).size() == t.size());
}

TEST_CASE("Horovod cycle ticks delay the pick-up") {
  // Requests when ready (horovod.requests=ready): each tick fuses what is ready then.
  auto s =
      parse_training_settings_kv({"batch_per_gpu=1", "framework=horovod", "horovod.requests=ready"});  // 5 ms cycle
  std::vector<GradientTensor> t = {
      {"a", 10 * MiB, ms(1), false, 0}, {"b", 10 * MiB, ms(4), false, 0}, {"c", 10 * MiB, ms(6), false, 0}};
  auto g = group_gradients(t, s);
  // a and b are ready before the 5 ms tick and fit in 64 MiB together; c waits for the 10 ms tick.
  REQUIRE(g.size() == 2);
  CHECK(g[0].tensors == std::vector<int>{0, 1});
  CHECK(g[0].earliest_start == ms(5));
  CHECK(g[0].last_ready == ms(4));
  CHECK(g[1].earliest_start == ms(10));
  // Hierarchical allreduce rounds the threshold up to a multiple of local_size x 8 x 64 B: 64 MiB is already a
  // multiple of 8 x 8 x 64 = 4096, so grouping is unchanged.
  auto h = parse_training_settings_kv(
      {"batch_per_gpu=1", "framework=horovod", "horovod.requests=ready", "horovod.hierarchical_allreduce=true"});
  CHECK(group_gradients(t, h, 8).size() == 2);
}

TEST_CASE("VGG-16 fc6 alone exceeds any bucket") {
  auto m = lib("vgg16");
  for (const std::string fw : {"ddp", "horovod"}) {
    INFO(fw);
    auto s = parse_training_settings_kv({"batch_per_gpu=64", "framework=" + fw});
    auto t = all_ready_at_zero(gradient_tensors(compute_iteration(m, s, a100())));
    auto g = group_gradients(t, s);
    check_partition(g, t.size());
    // B8: fc6 is 102,764,544 x 4 B = 392 MiB > 25 MiB cap and > 64 MiB threshold: it travels as its own group.
    bool found = false;
    for (const auto& x : g)
      if (x.tensors.size() == 1 && t[x.tensors[0]].name == "fc6") {
        found = true;
        CHECK(x.bytes == 102764544LL * 4);
        CHECK(x.bytes > 64 * MiB);
      }
    CHECK(found);
  }
}

TEST_CASE("sparse embedding gradients become allgathers that grow with ranks") {
  auto m = lib("bert_base");
  auto s = parse_training_settings_kv({"batch_per_gpu=32", "framework=horovod"});
  auto t = gradient_tensors(compute_iteration(m, s, a100()));
  auto g = group_gradients(t, s);
  check_partition(g, t.size());
  int gathers = 0;
  for (const auto& x : g)
    if (x.kind == GroupKind::AllGather) {
      ++gathers;
      // per rank 4,096 lookups x (768 x 4 + 8) B; the gathered total is ranks x that.
      CHECK(x.total_bytes(1) == 4096 * (768 * 4 + 8));
      CHECK(x.total_bytes(16) == 16 * x.total_bytes(1));
    }
  CHECK(gathers == 1);
  auto dense = parse_training_settings_kv({"batch_per_gpu=32", "framework=horovod", "horovod.sparse_as_dense=true"});
  for (const auto& x : group_gradients(gradient_tensors(compute_iteration(m, dense, a100())), dense))
    CHECK(x.kind == GroupKind::AllReduce);
}

TEST_CASE("framework none: one allreduce after backward") {
  auto s = parse_training_settings_kv({"batch_per_gpu=64", "framework=none"});
  auto r = compute_iteration(lib("resnet50"), s, a100());
  auto g = group_gradients(gradient_tensors(r, ms(2)), s);
  REQUIRE(g.size() == 1);
  CHECK(g[0].bytes == 25557032LL * 4);
  CHECK(g[0].earliest_start == ms(2) + r.backward);  // ready times are offset by the backward start
}

TEST_CASE("Horovod ticks: next_tick on either side of the origin; groups move with the origin") {
  // Ticks at origin + n x 5 ms, n any integer. origin = 1.2 ms: the first tick at or after 7 ms is 11.2 ms; at or
  // after 0 it is 1.2 ms; at or after -4 ms it is 1.2 - 5 = -3.8 ms; a time on a tick is its own tick.
  CHECK(next_tick(ms(7), us(1200), ms(5)) == us(11200));
  CHECK(next_tick(Time{}, us(1200), ms(5)) == us(1200));
  CHECK(next_tick(ms(-4), us(1200), ms(5)) == us(-3800));
  CHECK(next_tick(us(6200), us(1200), ms(5)) == us(6200));
  // Shifting every ready time and the origin by the same amount shifts every group's tick by it and leaves the
  // grouping alone (the result depends only on the phase of the ticks relative to the gradients).
  auto s = parse_training_settings_kv({"batch_per_gpu=64", "framework=horovod", "horovod.requests=ready"});
  const auto r = compute_iteration(lib("resnet50"), s, a100());
  const Time origin = us(3100), shift = us(123457);
  const auto a = group_gradients(gradient_tensors(r), s, 1, origin);
  const auto b = group_gradients(gradient_tensors(r, shift), s, 1, origin + shift);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].tensors == b[i].tensors);
    CHECK(b[i].earliest_start == a[i].earliest_start + shift);
    // Each group waits less than one cycle after its last gradient for its tick.
    CHECK(a[i].earliest_start - a[i].last_ready < ms(5));
  }
  // The origin is a tick: a tensor ready exactly there goes at once (no extra wait), one ready 1 ps later waits
  // a whole cycle minus 1 ps.
  const std::vector<GradientTensor> one = {{"x", 4 * MiB, origin, false, 0}};
  CHECK(group_gradients(one, s, 1, origin).front().earliest_start == origin);
  const std::vector<GradientTensor> late = {{"x", 4 * MiB, origin + Time::from_ps(1), false, 0}};
  CHECK(group_gradients(late, s, 1, origin).front().earliest_start == origin + ms(5));
}

TEST_CASE(
    "Horovod requests at dispatch: one negotiation fuses in backward order; a response waits for all its tensors") {
  // docs/SOURCES.md#horovod: with requests queued when ops are dispatched (ahead of the GPU), rank 0 fuses
  // consecutive requests up to the threshold and the background thread polls every entry's ready event before it
  // starts the response. Expectations:
  //  a (10 MiB, ready 1 ms), b (20 MiB, 4 ms), c (10 MiB, 6 ms), 64 MiB threshold: 40 MiB fit one response, which
  //  starts at 6 ms (c's readiness), not at the 5 ms tick a ready-time negotiation would use for {a, b}.
  auto s = parse_training_settings_kv({"batch_per_gpu=1", "framework=horovod"});
  REQUIRE(s.horovod.requests_at_dispatch);  // the default
  const std::vector<GradientTensor> t = {
      {"a", 10 * MiB, ms(1), false, 0}, {"b", 20 * MiB, ms(4), false, 0}, {"c", 10 * MiB, ms(6), false, 0}};
  auto g = group_gradients(t, s);
  REQUIRE(g.size() == 1);
  CHECK(g[0].tensors == std::vector<int>{0, 1, 2});
  CHECK(g[0].earliest_start == ms(6));
  //  b = 60 MiB instead: a + b = 70 MiB > 64 MiB, so {a}, then {b} (b + c = 70 MiB > 64), then {c}, each starting at
  //  its own last gradient: 1, 4 and 6 ms.
  std::vector<GradientTensor> big = t;
  big[1].bytes = 60 * MiB;
  g = group_gradients(big, s);
  REQUIRE(g.size() == 3);
  CHECK(g[0].earliest_start == ms(1));
  CHECK(g[1].earliest_start == ms(4));
  CHECK(g[2].earliest_start == ms(6));
  // Responses run in order: a response whose tensors are all ready before the previous one's does not start first.
  std::vector<GradientTensor> early_last = {{"x", 40 * MiB, ms(9), false, 0}, {"y", 40 * MiB, ms(2), false, 0}};
  g = group_gradients(early_last, s);
  REQUIRE(g.size() == 2);
  CHECK(g[0].earliest_start == ms(9));
  CHECK(g[1].earliest_start == ms(9));
}
