// Horovod cycle ticks (include/vgsim/sim/training/training_run.hpp): the steady state is the mean over K evenly
// spaced tick phases anchored to each iteration, so it does not depend on when the job's clock starts; the last
// group's expected extra wait is cycle/2; DDP and framework none have no phases; both fidelities apply the same rule.
#include <algorithm>
#include <catch2/catch.hpp>

#include "common.hpp"
#include "vgsim/sim/planning/analytical.hpp"

using namespace vgsim;
using namespace vgsim::sim::training;

namespace {

// Ticks decide start times only when requests arrive as gradients become ready (horovod.requests=ready); with the
// default (requests at dispatch) there are no tick phases, which the first test checks too.
TrainingJob job_of(std::vector<std::string> sets, std::uint32_t nodes = 2) {
  if (std::find(sets.begin(), sets.end(), "framework=horovod") != sets.end()) sets.push_back("horovod.requests=ready");
  return resolve_job(test::spec("r750xa-4x-25gbe", "resnet50", nodes, 1, sets), test::catalog());
}

}  // namespace

TEST_CASE("tick phase offsets are the midpoints of K equal slices of a cycle", "[training]") {
  const TrainingJob job = job_of({"framework=horovod", "horovod.cycle_time=5ms"});
  REQUIRE(has_tick_phases(job));
  // (2k + 1) x 5 ms / 8 for k = 0..3: 0.625, 1.875, 3.125, 4.375 ms; their mean is 2.5 ms = cycle / 2.
  CHECK(tick_phase_offset(job, 0, 4) == us(625));
  CHECK(tick_phase_offset(job, 3, 4) == us(4375));
  // No ticks: DDP, framework none, one rank.
  CHECK_FALSE(has_tick_phases(job_of({"framework=ddp"})));
  CHECK_FALSE(has_tick_phases(job_of({"framework=none"})));
  CHECK_FALSE(has_tick_phases(job_of({"framework=horovod"}, 1)));
  CHECK_FALSE(has_tick_phases(resolve_job(test::spec("r750xa-4x-25gbe", "resnet50", 2, 1, {"framework=horovod"}),
                                          test::catalog())));  // requests at dispatch: no ticks
}

TEST_CASE("Horovod steady state does not depend on the job clock's phase", "[training]") {
  // ResNet-50 on 2 x R750xa x 1 A100 over 25 GbE, Horovod with 5 ms ticks. Shifting the job's start by a fraction
  // of a cycle (and by a non-integer number of cycles) must leave every reported figure equal: ticks are anchored
  // to each iteration, not to the engine's clock. (With ticks at multiples of 5 ms from engine time 0, the shifts
  // below moved the iteration by whole ticks.)
  TrainingJob job = job_of({"framework=horovod", "precision=amp", "batch_per_gpu=256"});
  const TrainingResult base = simulate_training(job);
  REQUIRE(base.tick_phases.size() == static_cast<std::size_t>(kDefaultTickPhases));
  for (const Time shift : {us(1250), us(2000), us(3333), us(12345)}) {
    job.clock_offset = shift;
    const TrainingResult r = simulate_training(job);
    INFO("shift " << shift.us() << " us: " << r.iteration_time.us() << " vs " << base.iteration_time.us() << " us");
    CHECK(r.iteration_time == base.iteration_time);
    CHECK(r.exposed_communication == base.exposed_communication);
    CHECK(r.communication_busy == base.communication_busy);
    CHECK(r.samples_per_s == base.samples_per_s);
    REQUIRE(r.iterations.front().start == shift);
  }
  // Every iteration of a phase's run is alike (no drift of the phase across iterations): the kept records (phase 0)
  // all last as long as that phase's sample.
  for (const auto& it : base.iterations) CHECK(it.duration() == base.tick_phases.front().iteration_time);
  // The reported iteration is the mean of the phases' iterations (ps, rounded).
  std::int64_t sum = 0;
  for (const auto& p : base.tick_phases) sum += p.iteration_time.ps;
  CHECK(std::llabs(base.iteration_time.ps - sum / kDefaultTickPhases) <= 1);
  // Samples / s = ranks x batch / mean iteration (the long-run rate over phases).
  CHECK(base.samples_per_s == Approx(2.0 * 256.0 / base.iteration_time.s()).epsilon(1e-12));
}

TEST_CASE("the last group waits cycle/2 on average for its tick", "[training]") {
  // One fusion buffer for all gradients (threshold 1 GiB > ResNet-50's 102 MB) and a cycle (1 s) much longer than
  // backward (< 1 s / 8): every phase has exactly one tick after backward, at offset_k = (2k + 1) x 1 s / 8 after
  // the last gradient, and issues the same single allreduce that framework none issues right after backward. So
  //   T_horovod,k = T_none + offset_k,   and   mean_k T_horovod,k - T_none = (1/K) sum_k (2k + 1) c / (2K) = c / 2,
  // the continuous expectation E[wait] = (1/c) int_0^c phi dphi = c / 2 for a uniform tick phase, exactly.
  const std::vector<std::string> common = {"precision=amp", "batch_per_gpu=64"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> s = common;
    s.insert(s.end(), extra.begin(), extra.end());
    return job_of(s);
  };
  const TrainingJob hvd = with({"framework=horovod", "horovod.cycle_time=1s", "horovod.fusion_threshold=1GiB"});
  const TrainingJob none = with({"framework=none"});
  const TrainingResult h = simulate_training(hvd);
  const TrainingResult n = simulate_training(none);
  REQUIRE(n.tick_phases.empty());
  REQUIRE(h.compute.backward < ms(125));  // the premise: backward < cycle / 8
  REQUIRE(h.iterations.back().collectives.size() == 1);
  REQUIRE(h.tick_phases.size() == 4);
  for (int k = 0; k < 4; ++k) {
    // T_k = T_none + (2k + 1) x 125 ms
    INFO("phase " << k);
    CHECK(h.tick_phases[k].offset == ms(125) * (2 * k + 1));
    CHECK(h.tick_phases[k].iteration_time == n.iteration_time + h.tick_phases[k].offset);
  }
  CHECK(h.iteration_time - n.iteration_time == ms(500));  // cycle / 2
  CHECK(h.communication_busy == n.communication_busy);
  // The analytical fidelity applies the same phases: the same cycle / 2 on top of its own framework-none time.
  const TrainingResult ha = sim::planning::simulate_training_analytical(hvd);
  const TrainingResult na = sim::planning::simulate_training_analytical(none);
  CHECK(ha.iteration_time - na.iteration_time == ms(500));
}

TEST_CASE("DDP and framework none run once (no tick phases)", "[training]") {
  // Without ticks there is one run: the iteration records are the reported steady state, and the engine work is
  // that of one run (Horovod's is the sum over its K runs).
  for (const char* fw : {"framework=ddp", "framework=none"}) {
    const TrainingResult r = simulate_training(job_of({fw, "precision=amp"}));
    INFO(fw);
    CHECK(r.tick_phases.empty());
    CHECK(r.iteration_time == r.iterations.back().duration());
  }
}
