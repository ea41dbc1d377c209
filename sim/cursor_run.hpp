// What the streamed executors (sim/ring_run, sim/tree_run, sim/nvls_tree_run) share: the event handling of a
// collective kept as one ConnectionCursor per connection. Start, send finished (the connection's next send may go;
// the step's latency runs, then it is delivered), delivered, done; each executor supplies its step arithmetic. Private
// to sim/.
// Hooks of Derived (CRTP, so every call inlines as the executors' own code did): Step step_of(tag);
// ConnectionCursor& cursor(step); std::uint64_t send_index(step) (the step's place among its connection's sends);
// Bytes bytes(step); void release(step, delivered_stage) (launches the dependents that stage resolves);
// void launch_sources(); static constexpr const char* kName.
// Invariant (streamed_run.hpp): a step launches at the event that resolves its last dependency, the dependents of
// one event in ascending transfer index (release_by_index does that for a stream with an inverse, each_dependent).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "connection_cursor.hpp"
#include "streamed_run.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/step_costs.hpp"

namespace vgsim::sim {

template <class Derived, class Step>
class CursorRun : public StreamedRun {
 public:
  void start_at(Time at, std::function<void(Time)> on_done) final {
    on_done_ = std::move(on_done);
    remaining_ = transfers();
    fabric_.simulator().schedule(at, this, kStartTag);
  }

  void on_event(Simulator& sim, std::uint64_t tag) final {
    if (tag != kStartTag) {  // a transfer's latency is over: it is delivered
      deliver(sim, self().step_of(tag));
      return;
    }
    if (remaining_ == 0) {  // one rank: finishes after the base latency
      if (on_done_) on_done_(sim.now());
      return;
    }
    self().launch_sources();
  }

  void on_flow_done(Simulator& sim, std::uint64_t tag) final {
    const Step s = self().step_of(tag);
    ConnectionCursor& c = self().cursor(s);
    const std::uint64_t k = self().send_index(s);
    if (c.sent != k) throw std::logic_error(std::string(Derived::kName) + ": sends of a connection left out of order");
    c.sent = static_cast<std::uint32_t>(k + 1);  // the constructors refuse more sends than 32 bits count
    self().release(s, false);                    // the bytes have left the sender: order and buffer dependents may go
    const Time latency = delivery_latency(*c.route, self().bytes(s), costs_);
    if (latency.ps > 0)
      sim.schedule(sim.now() + latency, this, tag);
    else
      deliver(sim, s);
  }

 protected:
  static constexpr std::uint64_t kStartTag = ~std::uint64_t{0};  // the start event; every other timer tag is a step

  CursorRun(const StepCosts& costs, Fabric& fabric) : costs_(costs), fabric_(fabric) {}

  // The dependents of s through edges of this stage, each launched when ready, in ascending transfer index:
  // `stream` has each_dependent(s, stage, f) and index(step); `cand` holds up to `cap` (index, step) pairs.
  template <class Stream>
  void release_by_index(const Stream& stream, const Step& s, bool delivered_stage, std::pair<std::uint64_t, Step>* cand,
                        std::uint32_t cap) {
    std::uint32_t k = 0;
    stream.each_dependent(s, delivered_stage, [&](const Step& d) {
      if (k == cap) throw std::logic_error(std::string(Derived::kName) + ": more dependents than its bound");
      cand[k] = {stream.index(d), d};
      for (std::uint32_t j = k++; j > 0 && cand[j].first < cand[j - 1].first; --j) std::swap(cand[j], cand[j - 1]);
    });
    for (std::uint32_t i = 0; i < k; ++i)
      if (self().ready(cand[i].second)) self().launch(cand[i].second);
  }

  // Whether every dependency of s has resolved (`stream` has each_dependency(s, f(dep, data))): a data edge when
  // its step is delivered, the others when its bytes have left.
  template <class Stream>
  bool ready_by_cursor(const Stream& stream, const Step& s) {
    return stream.each_dependency(s, [this](const Step& d, bool data) {
      const ConnectionCursor& c = self().cursor(d);
      const std::uint64_t k = Derived::send_index(d);
      return data ? c.delivered(k) : c.sent > k;
    });
  }

  StepCosts costs_;
  Fabric& fabric_;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }

  void deliver(Simulator& sim, const Step& s) {
    if (!self().cursor(s).deliver(self().send_index(s)))
      throw std::logic_error(std::string(Derived::kName) + ": more than 64 undelivered sends on one connection");
    self().release(s, true);  // data dependents read what arrived
    if (--remaining_ == 0 && on_done_) on_done_(sim.now());
  }

  std::uint64_t remaining_ = 0;
  std::function<void(Time)> on_done_;
};

}  // namespace vgsim::sim
