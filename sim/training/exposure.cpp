// Sequential counterfactual decomposition of exposed communication (see include/vgsim/sim/training/exposure.hpp).
#include "vgsim/sim/training/exposure.hpp"

namespace vgsim::sim::training {

std::vector<ExposureCause> explain_exposure(const TrainingJob& job, const TrainingResult& full,
                                            const TrainingRunner& run) {
  std::vector<ExposureCause> out;
  for (const char* name : kExposureCauses) out.push_back({name, Time{0}});
  if (job.ranks() <= 1 || full.exposed_communication.ps == 0) return out;
  // Interference is measured directly: the backward time NCCL's SMs cost (TrainingResult::nccl_slowdown, part of the
  // exposed time), so it needs no re-run. The other causes are removed in turn with interference left as it is.
  out[0].time = full.nccl_slowdown;
  // A counterfactual that cannot change the run is skipped (its part is 0): no group waits beyond its last gradient
  // (Horovod requests at dispatch and DDP, unless a later group is ready before an earlier one starts), no bytes went
  // through host memory, no socket threads carried bytes. GPUDirect DDP designs then need no re-run at all.
  bool staged = false, sockets = false;
  for (const auto& u : full.resources) {
    staged = staged || u.kind == "memory";
    sockets = sockets || u.kind == "socket-threads";
  }
  bool waits = has_tick_phases(job);
  if (!waits) {
    const auto tensors = models::gradient_tensors(full.compute);
    for (const auto& g : job_groups(job, tensors, tick_origin(tensors, Time{0})))
      waits = waits || g.earliest_start > g.last_ready;
  }
  TrainingJob j = job;
  Time before = full.exposed_communication;
  auto step = [&](std::size_t cause) {
    const Time after = run(j).exposed_communication;
    out[cause].time = before - after;
    before = after;
  };
  if (waits) {
    j.framework_waits = false;
    step(1);
  }
  if (staged) {
    j.comm.path.gdr_disable = false;
    j.comm.path.gdr_level = topo::PathType::SYS;
    j.comm.staged_copies = false;
    step(2);
  }
  if (sockets) {
    j.comm.capacity_scale["socket-threads"] =
        (job.comm.capacity_scale.count("socket-threads") ? job.comm.capacity_scale.at("socket-threads") : 1.0) * 1000.0;
    step(3);
  }
  // The remainder: network and links (and the change of the NCCL slowdown between the full run and the last one).
  out[4].time = before - out[0].time;
  return out;
}
std::string main_cause(const std::vector<ExposureCause>& causes) {
  const ExposureCause* best = nullptr;
  for (const auto& c : causes)
    if (c.time.ps > 0 && (!best || c.time > best->time)) best = &c;
  return best ? best->name : "";
}

}  // namespace vgsim::sim::training
