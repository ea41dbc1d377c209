// Sequential counterfactual decomposition of exposed communication (see include/vgsim/sim/training/exposure.hpp).
#include "vgsim/sim/training/exposure.hpp"

namespace vgsim::sim::training {

std::vector<ExposureCause> explain_exposure(const TrainingJob& job, const TrainingResult& full,
                                            const TrainingRunner& run) {
  std::vector<ExposureCause> out;
  for (const char* name : kExposureCauses) out.push_back({name, Time{0}});
  if (job.ranks() <= 1) return out;
  // A counterfactual that cannot change the run is skipped (its part is 0): no NCCL SM slowdown was charged, no
  // bytes went through host memory, no socket threads carried bytes. This keeps GPUDirect designs at two extra runs.
  bool staged = false, sockets = false;
  for (const auto& u : full.resources) {
    staged = staged || u.kind == "memory";
    sockets = sockets || u.kind == "socket-threads";
  }
  TrainingJob j = job;
  Time before = full.exposed_communication;
  auto step = [&](std::size_t cause) {
    const Time after = run(j).exposed_communication;
    out[cause].time = before - after;
    before = after;
  };
  if (full.exposed_communication.ps == 0) return out;
  if (full.nccl_slowdown.ps > 0) {
    j.nccl_sm_per_channel = 0.0;
    step(0);
  }
  j.framework_waits = false;
  step(1);
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
  out[4].time = before;  // the remainder: network and links
  return out;
}

std::string main_cause(const std::vector<ExposureCause>& causes) {
  const ExposureCause* best = nullptr;
  for (const auto& c : causes)
    if (c.time.ps > 0 && (!best || c.time > best->time)) best = &c;
  return best ? best->name : "";
}

}  // namespace vgsim::sim::training
