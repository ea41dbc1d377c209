// The engine side of a streamed ring (coll::RingStream): per (channel, ring position) a cursor instead of a stored
// step DAG, so memory is O(ranks x channels) and a step exists only once its dependencies have resolved. Private to
// sim/: CollectiveRun runs a streamed schedule through it.
// Invariant (streamed_run.hpp; tested against the materialized DAG in tests/sim/test_ring_run.cpp): the same flows
// start and finish in the same order at the same picosecond as CollectiveRun on the materialized schedule.
// Cursor state per connection (ch, p) (connection_cursor.hpp): its sends leave in order (each waits for the previous
// one, dependency (b)); its deliveries may overtake.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "channel_fold.hpp"
#include "cursor_run.hpp"
#include "vgsim/workloads/collectives/ring_stream.hpp"

namespace vgsim::sim {

struct RingStep {  // a ring transfer: its connection's send u (ring_stream.hpp: step x slices + slice), channel,
                   // position
  std::uint64_t u;
  std::uint32_t ch, p;
};

class RingRun : public CursorRun<RingRun, RingStep> {
 public:
  // channel_gpus as CollectiveRun's (channel c uses map c % size); `fabric` must outlive the run. fold: run the
  // representative channels alone over routes folded for all channels (channel_fold.hpp; opt-in).
  RingRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
          const StepCosts& costs, Fabric& fabric, bool fold = false);

  std::uint64_t transfers() const override { return stream_.sends() * runs_.size() * n_; }
  // Both ask for the connection record of the step the tag names (the first thing either callback reads).
  void prefetch_flow_done(std::uint64_t tag) const override { prefetch_step(tag); }
  void prefetch_event(std::uint64_t tag) const override { prefetch_step(tag); }

 private:
  friend class CursorRun<RingRun, RingStep>;
  static constexpr const char* kName = "RingRun";
  using Step = RingStep;
  // A step as an event tag, packed instead of its transfer index, so no division decodes it: position (27 bits; the
  // constructor refuses more ranks), channel (6 bits: NCCL's 64 channels), send (31 bits; the constructor refuses
  // more). Tags order like transfer indices ((u, ch, p) lexicographically); the start tag (all ones) is never a
  // step's.
  static std::uint64_t tag_of(const Step& s) { return (s.u << 33) | (std::uint64_t{s.ch} << 27) | s.p; }
  static Step step_of(std::uint64_t tag) {
    return Step{tag >> 33, static_cast<std::uint32_t>(tag >> 27) & 63u,
                static_cast<std::uint32_t>(tag) & ((1u << 27) - 1)};
  }
  std::size_t conn(std::uint32_t ch, std::uint32_t p) const { return static_cast<std::size_t>(ch) * n_ + p; }
  void prefetch_step(std::uint64_t tag) const {
    if (tag != kStartTag) {
      const Step s = step_of(tag);
      __builtin_prefetch(&conns_[conn(s.ch, s.p)]);
    }
  }
  // CursorRun's hooks.
  ConnectionCursor& cursor(const Step& s) { return conns_[conn(s.ch, s.p)]; }
  static std::uint64_t send_index(const Step& s) { return s.u; }
  Bytes bytes(const Step& s) const { return stream_.bytes(s.u, s.ch, s.p); }
  void launch_sources() {
    for (const std::uint32_t ch : runs_)  // step 0 has no dependency: every connection starts, in index order
      for (std::uint32_t p = 0; p < n_; ++p) launch(0, ch, p);
  }
  bool ready(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const;
  void launch(std::uint64_t u, std::uint32_t ch, std::uint32_t p);
  // Launches the dependents of step s whose edge waits for this stage (sent: the bytes left; else delivery).
  void release(const Step& s, bool delivered_stage);

  coll::RingStream stream_;
  std::uint32_t n_, c_;
  bool buffer_reads_data_;  // two ranks: the buffer dependency's sender is the data's, so it waits for delivery
  std::vector<ConnectionCursor> conns_;  // per (channel, position): position p -> p+1; its steps are its sends
  std::vector<std::uint32_t> runs_;      // the channels that run: all, or the representatives when folded
  std::optional<ChannelFold> fold_;      // their folded routes, when folded
};

}  // namespace vgsim::sim
