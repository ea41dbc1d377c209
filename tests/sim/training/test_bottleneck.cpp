// What limits an iteration (training/bottleneck.hpp): the largest of compute and the exposure causes, with its share
// of the iteration; the busiest resource's utilisation is taken over the time the NCCL stream was busy.
#include <catch2/catch.hpp>

#include "common.hpp"
#include "vgsim/sim/training/bottleneck.hpp"

using namespace vgsim;
using namespace vgsim::sim::training;

TEST_CASE("the bottleneck is the largest term of the iteration; link utilisation is over communication time",
          "[training]") {
  TrainingResult r;
  // iteration 100 ms = compute 60 ms + exposed 40 ms (network 30, framework 10).
  r.iteration_time = Time::from_ms(100);
  r.compute_time = Time::from_ms(60);
  r.exposed_communication = Time::from_ms(40);
  r.exposure = {{"interference", Time{0}},
                {"framework", Time::from_ms(10)},
                {"host_staging", Time{0}},
                {"socket_cpu", Time{0}},
                {"network", Time::from_ms(30)}};
  r.communication_busy = Time::from_ms(50);
  // 12.5 GB/s port carrying 500 MB in the iteration: 500e6 / (12.5e9 x 0.1 s) = 40 % over the iteration, but
  // 500e6 / (12.5e9 x 0.05 s) = 80 % while the NCCL stream was busy.
  r.resources = {{"host0/nic0/port0/tx", "nic_port", 12.5e9, 500e6, 0.4}};
  IterationBottleneck b = iteration_bottleneck(r);
  CHECK(b.what == "compute");
  CHECK(b.share == Approx(0.60));
  CHECK(b.busiest == "host0/nic0/port0/tx");
  CHECK(b.busiest_utilisation_during_comm == Approx(0.80));
  CHECK(describe(b) == "compute 60.0 % (busiest: host0/nic0/port0/tx 80 % while communicating)");

  // Compute 25 ms, network 65 ms, framework 10 ms: the network term limits (65 % of the iteration).
  r.compute_time = Time::from_ms(25);
  r.exposed_communication = Time::from_ms(75);
  r.exposure[4].time = Time::from_ms(65);
  b = iteration_bottleneck(r);
  CHECK(b.what == "network");
  CHECK(b.share == Approx(0.65));

  // Without a breakdown the exposed time counts as one "communication" term.
  r.exposure.clear();
  CHECK(iteration_bottleneck(r).what == "communication");
  CHECK(iteration_bottleneck(r).share == Approx(0.75));
  // No iteration: nothing to name.
  CHECK(iteration_bottleneck(TrainingResult{}).what.empty());
}

TEST_CASE("a compute-bound job is limited by compute, a TCP-bound one by the network side", "[training]") {
  // ResNet-50 at batch 1024 on 2 x 100 GbE with GPUDirect hides nearly all communication: compute limits it.
  const auto fast =
      iteration_bottleneck(test::study(test::spec("r750xa-2x-100gbe", "resnet50", 2, 1,
                                                  {"batch_per_gpu=1024", "precision=amp", "framework=horovod"}))
                               .result);
  CHECK(fast.what == "compute");
  CHECK(fast.share > 0.9);
  // VGG-16 (528 MB of gradients) at batch 32 over TCP sockets on 25 GbE (ib_disable): the exposed communication is
  // larger than compute, so a communication cause limits it, not compute.
  auto vgg = test::spec("r750xa-2x-25gbe", "vgg16", 2, 1, {"batch_per_gpu=32", "precision=amp", "framework=horovod"});
  vgg.nccl.ib_disable = true;
  const TrainingResult slow = test::study(vgg).result;
  const auto b = iteration_bottleneck(slow);
  INFO("compute " << slow.compute_time.ms() << " ms, exposed " << slow.exposed_communication.ms() << " ms");
  REQUIRE(slow.exposed_communication > slow.compute_time);
  CHECK(b.what != "compute");
  CHECK(b.share > 0.3);
}
