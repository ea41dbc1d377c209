// The engine's prefetch hints (EventHandler::prefetch_event, FlowObserver::prefetch_flow_done): each names the tag of
// the callback that follows it, one event ahead for timers and at the start of a flow's finish for completions, so an
// executor can ask for the state that callback reads while the engine still works.
#include <catch2/catch.hpp>
#include <string>

#include "vgsim/kernel/simulator.hpp"

using namespace vgsim;

namespace {
struct Recorder : FlowObserver, EventHandler {
  mutable std::string log;  // the hints are const (they may only prefetch); the test records them anyway
  void on_event(Simulator&, std::uint64_t tag) override { log += "run" + std::to_string(tag) + " "; }
  void prefetch_event(std::uint64_t tag) const override { log += "hint" + std::to_string(tag) + " "; }
  void on_flow_done(Simulator&, std::uint64_t tag) override { log += "done" + std::to_string(tag) + " "; }
  void prefetch_flow_done(std::uint64_t tag) const override { log += "fhint" + std::to_string(tag) + " "; }
};
}  // namespace

TEST_CASE("a timer's hint comes while the event before it runs; a completion's just before it") {
  Simulator sim;
  const ResourceId link = sim.add_resource("link", Bandwidth{1e9});
  Recorder rec;
  // 1 GB over 1 GB/s: the flow's last byte leaves at 1 s. Timers at 0.5 s (tag 5) and 2 s (tag 9).
  sim.start_flow({&link, 1, 1e9, Time{0}}, &rec, 7);
  sim.schedule(Time::from_s(0.5), &rec, 5);
  sim.schedule(Time::from_s(2.0), &rec, 9);
  sim.run();
  // Events pop as timer 5 (next: the finish, a flow event: no handler hint), the finish (next: timer 9, hinted before
  // the finish runs; the completion's hint opens the finish), timer 9 (nothing after it: no hint).
  CHECK(rec.log == "run5 hint9 fhint7 done7 run9 ");
}

TEST_CASE("timers scheduled in a row are hinted one ahead, in order") {
  Simulator sim;
  Recorder rec;
  for (std::uint64_t k = 0; k < 4; ++k) sim.schedule(Time::from_s(static_cast<double>(k)), &rec, 10 * k);
  sim.run();
  CHECK(rec.log == "hint10 run0 hint20 run10 hint30 run20 run30 ");
}
