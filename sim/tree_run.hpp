// The engine side of a streamed tree allreduce (coll::TreeStream): per connection (channel, direction, member rank)
// a cursor instead of a stored step DAG, so memory is O(ranks x channels) and a step exists only once its
// dependencies have resolved. Private to sim/: CollectiveRun runs a streamed tree through it.
// Invariant (streamed_run.hpp; tested against the materialized DAG in tests/sim/test_tree_run.cpp): the same flows
// start and finish in the same order at the same picosecond as CollectiveRun on the materialized schedule.
// Cursor state per connection (connection_cursor.hpp): its sends leave in loop order (each waits for the previous
// one, dependency (b)); its deliveries may overtake.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "channel_fold.hpp"
#include "cursor_run.hpp"
#include "vgsim/workloads/collectives/tree_stream.hpp"

namespace vgsim::sim {

class TreeRun : public CursorRun<TreeRun, coll::TreeStream::Step> {
 public:
  // channel_gpus as CollectiveRun's (channel c uses map c % size); `fabric` must outlive the run. fold: run the
  // representative channels alone over routes folded for all channels (channel_fold.hpp; opt-in).
  TreeRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
          const StepCosts& costs, Fabric& fabric, bool fold = false);

  std::uint64_t transfers() const override { return stream_.count() / stream_.channels() * runs_.size(); }
  // Both ask for the connection record of the step the tag names (the first thing either callback reads).
  void prefetch_flow_done(std::uint64_t tag) const override { prefetch_step(tag); }
  void prefetch_event(std::uint64_t tag) const override { prefetch_step(tag); }

 private:
  friend class CursorRun<TreeRun, coll::TreeStream::Step>;
  static constexpr const char* kName = "TreeRun";
  using Step = coll::TreeStream::Step;
  // A step as an event tag, packed instead of its transfer index, so no division decodes it: member rank (27 bits;
  // the constructor refuses more ranks), direction, channel (6 bits: NCCL's 64 channels), loop (30 bits: the byte
  // partition refuses more loops). The start tag (all ones) is never a step's.
  static std::uint64_t tag_of(const Step& s) {
    return (std::uint64_t{s.l} << 34) | (std::uint64_t{s.ch} << 28) | (std::uint64_t{s.dir} << 27) | s.r;
  }
  static Step step_of(std::uint64_t tag) {
    return Step{static_cast<std::uint32_t>(tag >> 34), static_cast<std::uint32_t>(tag >> 28) & 63u,
                static_cast<std::uint32_t>(tag >> 27) & 1u, static_cast<std::uint32_t>(tag) & ((1u << 27) - 1)};
  }
  std::size_t conn(const Step& s) const { return (static_cast<std::size_t>(s.ch) * 2 + s.dir) * stream_.ranks() + s.r; }
  // CursorRun's hooks.
  ConnectionCursor& cursor(const Step& s) { return conns_[conn(s)]; }
  static std::uint64_t send_index(const Step& s) { return s.l; }
  Bytes bytes(const Step& s) const { return stream_.bytes(s.l, s.ch); }
  void launch_sources() {
    for (const Step& s : stream_.sources())  // in index order
      if (runs(s.ch)) launch(s);
  }
  bool runs(std::uint32_t ch) const {
    for (const std::uint32_t c : runs_)
      if (c == ch) return true;
    return false;
  }
  // Launches the dependents of s whose edge waits for this stage (delivered: data edges; else the others).
  void release(const Step& s, bool delivered_stage) {
    std::pair<std::uint64_t, Step> cand[coll::TreeStream::kMaxEdges];
    release_by_index(stream_, s, delivered_stage, cand, coll::TreeStream::kMaxEdges);
  }
  void prefetch_step(std::uint64_t tag) const {
    if (tag != kStartTag) __builtin_prefetch(&conns_[conn(step_of(tag))]);
  }
  bool ready(const Step& s) { return ready_by_cursor(stream_, s); }
  void launch(const Step& s);

  coll::TreeStream stream_;
  std::vector<ConnectionCursor> conns_;  // per (channel, direction, member rank); steps are loops
  std::vector<std::uint32_t> runs_;      // the channels that run: all, or the representatives when folded
  std::optional<ChannelFold> fold_;      // their folded routes, when folded
};

}  // namespace vgsim::sim
