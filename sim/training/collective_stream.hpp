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
  void run(std::uint32_t g, Key key, bool record);
  void collective_done(std::uint32_t g);
  CallPlan& plan_for(const CollectiveRecord& c);
  static Key plan_key(const CollectiveRecord& c);
  // True when no later collective of this job will run the schedule of group g's plan on the engine: the fast path
  // replays its key from now on, or this is the last iteration and no later group of it has the same plan.
  bool schedule_unused_after(std::uint32_t g, bool recorded) const;
  // Frees the executors of finished collectives (their schedules with them, once no plan keeps them), except the
  // one whose completion callback is running (`finishing_`).
  void reclaim_finished();

  StepContext& ctx_;
  Fabric& fabric_;
  bool shared_ = false;
  StepCompute* compute_ = nullptr;
  std::unique_ptr<Communicator> comm_;
  // A collective on the engine. The schedule is kept here because the executor reads it: a plan drops its schedule
  // once no later collective needs it (memory: at 100,000 ranks one tree allreduce's schedule is ~1 GiB).
  struct Running {
    std::shared_ptr<const coll::CollectiveSchedule> schedule;
    std::unique_ptr<CollectiveRun> run;
    bool finished = false;
  };
  std::map<Key, CallPlan> plans_;
  std::map<Key, Recorded> recorded_;
  std::vector<Running> runs_;
  const CollectiveRun* finishing_ = nullptr;  // the run whose completion callback is on the stack
  std::vector<double> recording_;             // bytes carried when the collective being recorded started
  std::vector<bool> ready_, issued_;
  std::size_t next_issue_ = 0, done_ = 0;
  bool busy_ = false;
};

}  // namespace vgsim::sim::training
