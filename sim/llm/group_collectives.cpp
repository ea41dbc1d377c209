// Several groups' collectives on one engine (include/vgsim/sim/llm/group_collectives.hpp).
#include "vgsim/sim/llm/group_collectives.hpp"

#include <algorithm>
#include <memory>

#include "vgsim/sim/collective_run.hpp"
#include "vgsim/sim/fabric.hpp"

namespace vgsim::sim::llm {

GroupCollectives::GroupCollectives(const topo::Cluster& cluster, const CommOptions& options,
                                   const std::vector<std::uint32_t>& world_endpoints,
                                   const std::vector<std::uint32_t>& node_of)
    : cluster_(cluster), options_(options), world_endpoints_(world_endpoints), node_of_(node_of) {}

GroupCallResult GroupCollectives::run(const std::string& pattern, const Groups& groups, coll::Op op, Bytes bytes) {
  const auto key = std::make_tuple(pattern, static_cast<int>(op), bytes);
  if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  GroupCallResult res;
  const Groups active = contending_with_first(groups, node_of_);
  if (active.empty() || active.front().size() < 2 || bytes == 0) return cache_[key] = res;
  Simulator sim;
  Fabric fabric(cluster_, sim, options_.path, options_.capacity_scale);
  // Communicators and plans first (the runs keep references to the plans' schedules), then every run starts at 0.
  std::vector<CallPlan> plans;
  plans.reserve(active.size());
  for (const auto& g : active) {
    std::vector<std::uint32_t> eps;
    for (std::int64_t r : g) eps.push_back(world_endpoints_[static_cast<std::size_t>(r)]);
    const Communicator comm(cluster_, eps, options_);
    plans.push_back(comm.plan(op, bytes));
  }
  std::vector<std::unique_ptr<CollectiveRun>> runs;
  for (const CallPlan& pl : plans) {
    runs.push_back(std::make_unique<CollectiveRun>(*pl.schedule, pl.channel_gpus, pl.costs, fabric, pl.fold_channels));
    runs.back()->start();
  }
  sim.run();
  for (const auto& r : runs) res.time = std::max(res.time, r->finish_time());
  res.algo = coll::to_string(plans.front().algo);
  res.proto = coll::to_string(plans.front().proto);
  res.channels = plans.front().channels;
  res.groups = static_cast<std::uint32_t>(active.size());
  res.events = sim.events_processed();
  events_ += res.events;
  return cache_[key] = res;
}

}  // namespace vgsim::sim::llm
