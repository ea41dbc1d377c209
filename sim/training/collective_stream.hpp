// The NCCL side of one job's step engine: gradient groups become ready (GroupReady events), are issued in group order
// on one stream (JobSpec::serialize_collectives) or as soon as ready, each a Communicator plan run as a CollectiveRun
// on the Fabric, and finish. With the fast path (serialized, JobSpec::reuse_collective_times, the job alone on the
// engine) a collective identical to an earlier one (same kind and size) is not run again: its recorded duration is
// replayed as a ReplayDone event and its recorded bytes are added to the iteration's. Tells the compute side when a
// collective starts and finishes (NCCL's SM share) and when the iteration's last one is done.
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "step_context.hpp"
#include "vgsim/sim/collective_run.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/fabric.hpp"

namespace vgsim::sim::training {

class CollectiveStream {
 public:
  // `shared`: other jobs run on the same engine (no replay: their flows contend).
  CollectiveStream(StepContext& ctx, Fabric& fabric, bool shared) : ctx_(ctx), fabric_(fabric), shared_(shared) {}
  CollectiveStream(const CollectiveStream&) = delete;
  CollectiveStream& operator=(const CollectiveStream&) = delete;

  // Builds the job's communicator (more than one rank) and records its transports in the result.
  void connect();
  bool connected() const { return comm_ != nullptr; }
  // Receives the start, finish and completion notices.
  void set_compute(StepCompute& compute) { compute_ = &compute; }

  // A new iteration: nothing ready, issued or done (ctx.groups set).
  void begin_iteration();
  void on_group_ready(std::uint32_t g);
  void on_replay_done(std::uint32_t g) { collective_done(g); }

 private:
  // A recorded collective for the fast path.
  struct Recorded {
    Time duration{0};
    std::vector<std::pair<ResourceId, double>> bytes;  // per resource, carried by one run of the collective
  };
  using Key = std::pair<int, Bytes>;  // (op or group kind, bytes the collective is called with)

  void try_issue();  // serialized: issues the ready groups in order while the stream is idle
  void issue(std::uint32_t g);
  // Runs group g's collective on the engine; records it for the fast path when `record` is set.
  void run(std::uint32_t g, const CallPlan& plan, Key key, bool record);
  void collective_done(std::uint32_t g);
  const CallPlan& plan_for(const CollectiveRecord& c);

  StepContext& ctx_;
  Fabric& fabric_;
  bool shared_ = false;
  StepCompute* compute_ = nullptr;
  std::unique_ptr<Communicator> comm_;
  std::map<Key, CallPlan> plans_;
  std::map<Key, Recorded> recorded_;
  std::vector<std::unique_ptr<CollectiveRun>> runs_;
  std::vector<double> recording_;  // bytes carried when the collective being recorded started
  std::vector<bool> ready_;
  std::size_t next_issue_ = 0, done_ = 0;
  bool busy_ = false;
};

}  // namespace vgsim::sim::training
