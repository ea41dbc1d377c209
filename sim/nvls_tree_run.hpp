// The engine side of a streamed NVLS Tree allreduce (coll::NvlsTreeStream): per connection (channel, position in a
// loop: a GPU's NVSwitch leg for one shard, or a node-tree edge of one local index) a cursor instead of a stored step
// DAG, so memory is O(channels x nodes x n_l^2) and a step exists only once its dependencies have resolved. Private
// to sim/: CollectiveRun runs a streamed NVLS Tree through it.
// Invariant (streamed_run.hpp; tested against the materialized DAG in tests/sim/test_nvls_tree_run.cpp): the same
// flows start and finish in the same order at the same picosecond as CollectiveRun on the materialized schedule.
// Cursor state per connection (connection_cursor.hpp): its sends leave in loop order; its deliveries may overtake.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "connection_cursor.hpp"
#include "streamed_run.hpp"
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/step_costs.hpp"
#include "vgsim/workloads/collectives/nvls_tree_stream.hpp"

namespace vgsim::sim {

class NvlsTreeRun : public StreamedRun {
 public:
  // channel_gpus as CollectiveRun's (channel c uses map c % size); `fabric` must outlive the run.
  NvlsTreeRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
              const StepCosts& costs, Fabric& fabric);

  std::uint64_t transfers() const override { return stream_.count(); }
  void start_at(Time at, std::function<void(Time)> on_done) override;

  void on_flow_done(Simulator& sim, std::uint64_t tag) override;
  void on_event(Simulator& sim, std::uint64_t tag) override;
  void prefetch_flow_done(std::uint64_t tag) const override { prefetch_step(tag); }
  void prefetch_event(std::uint64_t tag) const override { prefetch_step(tag); }

 private:
  static constexpr std::uint64_t kStartTag = ~std::uint64_t{0};  // the start event; every other timer tag is a step
  static constexpr unsigned kConnBits = 34;                      // a tag is loop << 34 | connection
  using Step = coll::NvlsTreeStream::Step;
  std::uint64_t conn(const Step& s) const {
    return static_cast<std::uint64_t>(s.ch) * stream_.per() + stream_.position(s);
  }
  std::uint64_t tag_of(const Step& s) const { return (std::uint64_t{s.l} << kConnBits) | conn(s); }
  Step step_of(std::uint64_t tag) const {
    const std::uint64_t c = tag & ((std::uint64_t{1} << kConnBits) - 1);
    return stream_.at(static_cast<std::uint32_t>(tag >> kConnBits), static_cast<std::uint32_t>(c / stream_.per()),
                      c % stream_.per());
  }
  void prefetch_step(std::uint64_t tag) const {
    if (tag != kStartTag) __builtin_prefetch(&conns_[tag & ((std::uint64_t{1} << kConnBits) - 1)]);
  }
  // Whether dependency `dep` of a step has resolved: delivered for a data edge, its bytes gone for the others.
  bool resolved(const Step& dep, bool data) const;
  bool ready(const Step& s) const;
  void launch(const Step& s);
  // Launches the dependents of s whose edge waits for this stage (delivered: data edges; else the others), in
  // ascending transfer index as the DAG executor releases them.
  void release(const Step& s, bool delivered_stage);
  void deliver(Simulator& sim, const Step& s);

  coll::NvlsTreeStream stream_;
  StepCosts costs_;
  Fabric& fabric_;
  std::vector<ConnectionCursor> conns_;               // per (channel, position); steps are loops
  std::vector<std::pair<std::uint64_t, Step>> cand_;  // release's scratch (index, step), at most max_edges()
  std::uint64_t remaining_ = 0;
  std::function<void(Time)> on_done_;
};

}  // namespace vgsim::sim
