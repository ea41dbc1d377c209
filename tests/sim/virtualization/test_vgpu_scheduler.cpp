// The vGPU time-slicing scheduler on its own (no training): k busy contexts share one GPU; policies with an idle VM.
#include <catch2/catch.hpp>
#include <memory>

#include "catalog.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

using namespace vgsim;
using namespace vgsim::sim::virt;

namespace {
using test::catalog;
// Every context submits `work` once at t = 0; returns completion time per endpoint index given.
std::vector<Time> run(const std::string& preset, const std::vector<std::uint32_t>& eps, Time work,
                      VgpuSchedulerOptions o) {
  const topo::Cluster cl = topo::Cluster::resolve(preset, catalog());
  Simulator sim;
  VgpuScheduler s(cl, sim, o);
  std::vector<Time> done(eps.size());
  for (std::size_t k = 0; k < eps.size(); ++k) s.submit(eps[k], work, [&, k] { done[k] = sim.now(); });
  sim.run();
  return done;
}
}  // namespace

TEST_CASE("k equal busy VMs time-sliced on one GPU each get 1/k minus the switch overhead", "[virt][vgpu]") {
  // With slice T and switch cost c, every slice goes to another context, so a context gets (T - c) of work per k T:
  //   share = (1 - c/T) / k.   Work W then finishes at about W k / (1 - c/T) (within one round, k T).
  const Time W = Time::from_s(0.2);
  for (const auto& [preset, k] :
       std::vector<std::pair<std::string, int>>{{"r750xa-vm-vgpu-2x20c", 2}, {"r750xa-vm-vgpu-4x10c", 4}}) {
    for (auto pol : {VgpuPolicy::BestEffort, VgpuPolicy::EqualShare, VgpuPolicy::FixedShare}) {
      VgpuSchedulerOptions o;
      o.policy = pol;
      std::vector<std::uint32_t> eps;
      for (int i = 0; i < k; ++i) eps.push_back(static_cast<std::uint32_t>(i));
      const auto done = run(preset, eps, W, o);
      const double expected = W.s() * k / (1.0 - o.switch_cost.s() / o.time_slice.s());
      for (Time t : done) CHECK(t.s() == Approx(expected).margin(k * o.time_slice.s()));
    }
  }
}

TEST_CASE("best effort hands an idle VM's share to the busy one; fixed share does not", "[virt][vgpu]") {
  // One busy context of two on gpu0 (A100-20C x 2). Best effort / equal share (only attached contexts count): the whole
  // GPU, W plus one switch c. Fixed share: its own slot only, every other slot reserved: about 2 W.
  const Time W = Time::from_s(0.1);
  VgpuSchedulerOptions o;
  o.policy = VgpuPolicy::BestEffort;
  CHECK(run("r750xa-vm-vgpu-2x20c", {0}, W, o)[0] == W + o.switch_cost);
  o.policy = VgpuPolicy::EqualShare;
  CHECK(run("r750xa-vm-vgpu-2x20c", {0}, W, o)[0] == W + o.switch_cost);
  o.policy = VgpuPolicy::FixedShare;
  CHECK(run("r750xa-vm-vgpu-2x20c", {0}, W, o)[0].s() == Approx(2 * W.s()).margin(o.time_slice.s()));
}

TEST_CASE("dedicated endpoints (MIG, bare metal) run work at once and back to back", "[virt][vgpu]") {
  // MIG neighbours never interfere: 7 instances each finish W at exactly W.
  const Time W = Time::from_s(0.01);
  const auto done = run("r750xa-vm-mig-7x1g", {0, 1, 2, 3, 4, 5, 6}, W, {});
  for (Time t : done) CHECK(t == W);
}

TEST_CASE("bad scheduler options are errors", "[virt][vgpu][bad]") {
  CHECK_THROWS_WITH(parse_vgpu_policy("best_efort"), Catch::Contains("did you mean 'best_effort'"));
  VgpuSchedulerOptions o;
  o.time_slice = Time::from_s(10e-6);
  CHECK_THROWS(run("r750xa-vm-vgpu-2x20c", {0}, Time::from_s(0.01), o));
}
