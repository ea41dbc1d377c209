// The engine side of a streamed NVLS Tree allreduce (coll::NvlsTreeStream): per connection (channel, position in a
// loop: a GPU's NVSwitch leg for one shard, or a node-tree edge of one local index) a cursor instead of a stored step
// DAG, so memory is O(channels x nodes x n_l^2) and a step exists only once its dependencies have resolved. Private
// to sim/: CollectiveRun runs a streamed NVLS Tree through it.
// Invariant (streamed_run.hpp; tested against the materialized DAG in tests/sim/test_nvls_tree_run.cpp): the same
// flows start and finish in the same order at the same picosecond as CollectiveRun on the materialized schedule.
// Cursor state per connection (connection_cursor.hpp): its sends leave in loop order; its deliveries may overtake.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cursor_run.hpp"
#include "vgsim/workloads/collectives/nvls_tree_stream.hpp"

namespace vgsim::sim {

class NvlsTreeRun : public CursorRun<NvlsTreeRun, coll::NvlsTreeStream::Step> {
 public:
  // channel_gpus as CollectiveRun's (channel c uses map c % size); `fabric` must outlive the run.
  NvlsTreeRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
              const StepCosts& costs, Fabric& fabric);

  std::uint64_t transfers() const override { return stream_.count(); }
  void prefetch_flow_done(std::uint64_t tag) const override { prefetch_step(tag); }
  void prefetch_event(std::uint64_t tag) const override { prefetch_step(tag); }

 private:
  friend class CursorRun<NvlsTreeRun, coll::NvlsTreeStream::Step>;
  static constexpr const char* kName = "NvlsTreeRun";
  static constexpr unsigned kConnBits = 34;  // a tag is loop << 34 | connection (launch)
  using Step = coll::NvlsTreeStream::Step;
  std::uint64_t conn(const Step& s) const {
    return static_cast<std::uint64_t>(s.ch) * stream_.per() + stream_.position(s);
  }
  Step step_of(std::uint64_t tag) const {
    const std::uint64_t c = tag & ((std::uint64_t{1} << kConnBits) - 1);
    return stream_.at(static_cast<std::uint32_t>(tag >> kConnBits), static_cast<std::uint32_t>(c / stream_.per()),
                      c % stream_.per());
  }
  void prefetch_step(std::uint64_t tag) const {
    if (tag != kStartTag) __builtin_prefetch(&conns_[tag & ((std::uint64_t{1} << kConnBits) - 1)]);
  }
  // CursorRun's hooks.
  ConnectionCursor& cursor(const Step& s) { return conns_[conn(s)]; }
  static std::uint64_t send_index(const Step& s) { return s.l; }
  Bytes bytes(const Step& s) const { return stream_.bytes(s.l, s.ch, s.k); }
  void launch_sources() {
    for (const Step& s : stream_.sources()) launch(s);  // in index order
  }
  // Launches the dependents of s whose edge waits for this stage (delivered: data edges; else the others).
  void release(const Step& s, bool delivered_stage) {
    release_by_index(stream_, s, delivered_stage, cand_.data(), static_cast<std::uint32_t>(cand_.size()));
  }
  bool ready(const Step& s) { return ready_by_cursor(stream_, s); }
  void launch(const Step& s);

  coll::NvlsTreeStream stream_;
  std::vector<ConnectionCursor> conns_;               // per (channel, position); steps are loops
  std::vector<std::pair<std::uint64_t, Step>> cand_;  // release's scratch (index, step), max_edges() of them
};

}  // namespace vgsim::sim
