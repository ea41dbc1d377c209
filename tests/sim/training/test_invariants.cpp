// Invariants of the training simulation (no communication on one GPU, monotonic in bandwidth, overlap never hurts,
// bucket size vs latency, fast path = full engine) and determinism of the JSON and trace outputs.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <vector>

#include "common.hpp"
#include "vgsim/sim/training/cpu_job.hpp"
#include "vgsim/sim/training/report.hpp"
#include "vgsim/sim/training/scenarios.hpp"

using namespace vgsim;
using namespace vgsim::sim::training;

TEST_CASE("one GPU has no communication", "[training]") {
  const auto st = test::study(test::spec("r750xa-1x-100gbe", "resnet50", 1, 1, {"batch_per_gpu=128", "precision=amp"}));
  const auto& r = st.result;
  // One rank: no collective, so iteration = micro_steps x (forward + backward) + optimizer exactly (ps).
  CHECK(r.iterations.back().collectives.empty());
  CHECK(r.communication_busy.ps == 0);
  CHECK(r.iteration_time == r.compute_time);
  CHECK(r.flows == 0);
  CHECK(st.scaling_efficiency == Approx(1.0));
}

TEST_CASE("gradient accumulation: one allreduce round per k micro-steps", "[training]") {
  const auto a = test::study(test::spec("r750xa-2x-100gbe", "resnet50", 2, 4, {"batch_per_gpu=64", "framework=none"}));
  const auto b = test::study(test::spec("r750xa-2x-100gbe", "resnet50", 2, 4,
                                        {"batch_per_gpu=64", "framework=none", "grad_accumulation_steps=4"}));
  // framework none: one allreduce per optimizer step whatever k; compute = k (F + B) + optimizer.
  CHECK(b.result.iterations.back().collectives.size() == 1);
  CHECK(b.result.compute_time ==
        (b.result.compute.forward + b.result.compute.backward) * 4 + b.result.compute.optimizer);
  // Same allreduce, 4x the compute: iteration_b = iteration_a + 3 (F + B).
  CHECK(b.result.iteration_time ==
        a.result.iteration_time + (a.result.compute.forward + a.result.compute.backward) * 3);
}

TEST_CASE("more link bandwidth never slows an iteration (100 vs 25 GbE)", "[training]") {
  for (const char* fw : {"framework=ddp", "framework=horovod", "framework=none"}) {
    const std::vector<std::string> sets = {"batch_per_gpu=64", "precision=amp", fw};
    const auto fast = test::study(test::spec("r750xa-4x-100gbe", "vgg16", 4, 4, sets));
    const auto slow = test::study(test::spec("r750xa-4x-25gbe", "vgg16", 4, 4, sets));
    INFO(fw << ": 100 GbE " << fast.result.iteration_time.us() << " us, 25 GbE " << slow.result.iteration_time.us());
    // t(100 GbE) <= t(25 GbE), and the busy NCCL time strictly drops (VGG-16: 528 MiB per step is bandwidth-bound).
    CHECK(fast.result.iteration_time <= slow.result.iteration_time);
    CHECK(fast.result.communication_busy < slow.result.communication_busy);
  }
}

TEST_CASE("overlap never makes an iteration slower than compute + communication in sequence", "[training]") {
  for (const char* fw : {"framework=ddp", "framework=horovod"}) {
    const auto st =
        test::study(test::spec("r750xa-4x-25gbe", "vgg16", 4, 4, {"batch_per_gpu=64", "precision=amp", fw}));
    const auto& r = st.result;
    // Serial bound: iteration <= compute + sum of its own collectives + one Horovod cycle of pickup latency
    // (workloads.md B8: "The cycle time adds up to one cycle of latency before a ready tensor is picked up").
    const Time cycle = std::string(fw) == "framework=horovod" ? ms(5) : Time{};
    INFO(fw);
    CHECK(r.iteration_time <= r.compute_time + r.communication_busy + cycle);
    CHECK(r.exposed_communication.ps >= 0);
  }
  // Against framework none (one allreduce after backward, nothing overlapped) on a bandwidth-bound setup: DDP's
  // buckets overlap the fc6 burst with the conv backward, so t(ddp) < t(none).
  const auto ddp =
      test::study(test::spec("r750xa-4x-25gbe", "vgg16", 4, 4, {"batch_per_gpu=64", "precision=amp", "framework=ddp"}));
  const auto none = test::study(
      test::spec("r750xa-4x-25gbe", "vgg16", 4, 4, {"batch_per_gpu=64", "precision=amp", "framework=none"}));
  CHECK(ddp.result.iteration_time < none.result.iteration_time);
  CHECK(none.result.overlap_fraction == Approx(0.0).margin(1e-9));
}

TEST_CASE("bigger buckets cut latency-bound cost", "[training]") {
  // MobileNetV2 (13.4 MiB of gradients, workloads.md table 2) on 16 GPUs over TCP sockets: per-call latency
  // dominates small buckets. Many tiny buckets (0.01 MiB cap: ~one per layer) must keep the NCCL stream busier than
  // the 25 MiB default: sum_i (alpha + b_i / B) grows with the count at fixed total bytes.
  const std::vector<std::string> base = {"batch_per_gpu=32", "framework=ddp"};
  auto tiny = base, dflt = base;
  tiny.push_back("ddp.bucket_cap_mb=0.01");
  tiny.push_back("ddp.first_bucket_mb=0.01");
  auto s_tiny = test::spec("r750xa-4x-25gbe", "mobilenet_v2", 4, 4, tiny);
  auto s_dflt = test::spec("r750xa-4x-25gbe", "mobilenet_v2", 4, 4, dflt);
  s_tiny.nccl.ib_disable = s_dflt.nccl.ib_disable = true;
  const auto a = test::study(s_tiny), b = test::study(s_dflt);
  INFO("tiny: " << a.result.iterations.back().collectives.size() << " buckets, busy "
                << a.result.communication_busy.us() << " us; default: " << b.result.iterations.back().collectives.size()
                << " buckets, busy " << b.result.communication_busy.us() << " us");
  CHECK(a.result.iterations.back().collectives.size() > b.result.iterations.back().collectives.size());
  CHECK(a.result.communication_busy > b.result.communication_busy);
}

TEST_CASE("replay fast path equals the full engine", "[training]") {
  auto s = test::spec("r750xa-4x-100gbe", "resnet50", 4, 4, {"batch_per_gpu=64", "precision=amp", "framework=horovod"});
  const auto fast = test::study(s);
  s.reuse_collective_times = false;
  const auto full = test::study(s);
  // Serialized collectives on an otherwise idle network: a repeat of (op, size) takes the same time. Allow 1 ps of
  // rounding per collective (flow finish times are rounded to integer ps from a different start time).
  const auto nc = static_cast<std::int64_t>(full.result.iterations.back().collectives.size());
  CHECK(std::llabs(fast.result.iteration_time.ps - full.result.iteration_time.ps) <= nc * 3);
  CHECK(full.result.flows > fast.result.flows);
  // Per-resource bytes of the steady state match too (replayed collectives carry their recorded bytes).
  REQUIRE(fast.result.resources.size() == full.result.resources.size());
  for (std::size_t i = 0; i < fast.result.resources.size(); ++i)
    CHECK(fast.result.resources[i].bytes == Approx(full.result.resources[i].bytes).epsilon(1e-9));
}

TEST_CASE("repeated collectives on the full engine: schedules dropped after their last use", "[training]") {
  // BERT-large's 24 identical encoder layers give DDP buckets of one size (48.05 MiB each on 2 x 4 GPUs). The step
  // engine drops a plan's schedule after its last use in the job (collective_stream.hpp: memory at 100,000 ranks);
  // with replay off every repeat still runs on the engine, serialized on an idle network, so each repeat of
  // (op, size) takes the same time as the first (<= 3 ps of rounding), and the iteration equals the fast path's.
  auto s = test::spec("r750xa-4x-100gbe", "bert_large", 2, 4, {"precision=amp", "framework=ddp"});
  s.iterations = 2;
  const auto fast = test::study(s);
  s.reuse_collective_times = false;
  const auto full = test::study(s);
  const auto& cs = full.result.iterations.back().collectives;
  std::map<Bytes, std::vector<std::int64_t>> by_size;  // durations (ps) of each collective size
  for (const auto& c : cs) by_size[c.total_bytes].push_back(c.duration().ps);
  std::size_t repeats = 0;
  for (const auto& [bytes, d] : by_size) {
    repeats += d.size() - 1;
    for (std::int64_t x : d) CHECK(std::llabs(x - d.front()) <= 3);
  }
  CHECK(repeats >= 20);  // the precondition: at least 20 collectives repeat an earlier (op, size)
  CHECK(std::llabs(fast.result.iteration_time.ps - full.result.iteration_time.ps) <=
        static_cast<std::int64_t>(cs.size()) * 3);
  CHECK(full.result.flows > fast.result.flows);
}

TEST_CASE("overlapping collectives contend for links on the engine", "[training]") {
  auto s = test::spec("r750xa-4x-25gbe", "vgg16", 4, 4, {"batch_per_gpu=64", "precision=amp", "framework=ddp"});
  s.serialize_collectives = false;
  const auto st = test::study(s);
  // Still bounded by the serial schedule: compute + busy time.
  CHECK(st.result.iteration_time <= st.result.compute_time + st.result.communication_busy);
  CHECK(st.result.iteration_time >= st.result.compute_time);
}

TEST_CASE("two runs give byte-identical JSON and trace", "[training]") {
  const auto sc = load_scenario("seed-rn50-2x4-100gbe-gdr");
  auto dump = [&] {
    const auto job = resolve_job(sc.spec, test::catalog());
    const auto st = simulate_study(job);
    return training_json(job, st).dump(2) + chrome_trace(job, st.result).dump();
  };
  const std::string a = dump(), b = dump();
  CHECK(a.size() > 1000);
  CHECK(a == b);
}

TEST_CASE("bad input is an InputError with a did-you-mean", "[training]") {
  auto s = test::spec("r750xa-1x-100gbe", "resnet50", 1, 1, {"batch_per_gpus=64"});
  CHECK_THROWS_WITH(resolve_job(s, test::catalog()), Catch::Contains("batch_per_gpu"));
  s.sets = {"compute.eff_compte=0.5"};
  CHECK_THROWS_WITH(resolve_job(s, test::catalog()), Catch::Contains("compute.eff_compute"));
  s.sets = {"nccl.base_latency.ring.simpel=3"};
  CHECK_THROWS_AS(resolve_job(s, test::catalog()), InputError);
  CHECK_THROWS_WITH(load_scenario("seed-rn50-4x4-100gbe-gdrr"), Catch::Contains("seed-rn50-4x4-100gbe-gdr"));
  s.sets = {};
  s.nodes = 9;
  CHECK_THROWS_AS(resolve_job(s, test::catalog()), InputError);
}

TEST_CASE("every library scenario resolves", "[training]") {
  const auto all = list_scenarios();
  // workloads/scenarios/seed_resnet50.json: 3 host counts x 2 GPU counts x 3 networks + 3 x 3 VM variants = 27.
  CHECK(all.size() >= 27);
  for (const auto& sc : all) {
    INFO(sc.name);
    if (sc.workers == "cpu")
      CHECK_NOTHROW(resolve_cpu_job(sc.spec, test::catalog()));
    else
      CHECK_NOTHROW(resolve_job(sc.spec, test::catalog()));
  }
}
