// The bridge between a Cluster and the engine: registers every cluster resource in a Simulator (so that
// ResourceId == index in Cluster::resources()) and answers routes between GPU endpoints (Cluster::endpoints(): a
// bare-metal GPU, a VM's GPU, a vGPU or a MIG instance) as engine resource lists, cached per (source, destination) so
// that millions of transfers share a few hundred route arrays. Capacities may be scaled per resource kind (calibration,
// virtualization overheads) before registration.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "vgsim/kernel/simulator.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::sim {

struct Route {
  std::vector<ResourceId> resources;
  Time latency{0};
  topo::Transport transport = topo::Transport::P2P;
  topo::PathType type = topo::PathType::LOC;
  topo::LinkClass link_class = topo::LinkClass::NVLink;
  bool gdr = false;
  Bandwidth bottleneck;
  double staged_s_per_byte = 0.0;  // store-and-forward through host memory (topo::Path::staged_s_per_byte)
  // The most one connection's flow moves, bytes/s (topo::Path::connection_cap: a socket connection's streams); infinite
  // for other transports.
  double connection_cap_bytes_per_s = std::numeric_limits<double>::infinity();
};

class Fabric {
 public:
  // Registers all resources of `cluster` in `sim`. `capacity_scale` multiplies the capacity of every resource of a
  // kind (e.g. {"socket-threads", 0.8}); kinds not listed keep their catalog capacity; "socket-stream" scales the
  // routes' per-connection socket caps (Route::connection_cap_bytes_per_s). Both must outlive the Fabric.
  Fabric(const topo::Cluster& cluster, Simulator& sim, topo::PathOptions options,
         const std::map<std::string, double>& capacity_scale = {});

  const Route& route(std::uint32_t endpoint_a, std::uint32_t endpoint_b);
  // NVLS leg of an endpoint (Cluster::nvswitch_path): its NVSwitch "up" (to_switch) or "down" resource alone.
  // Throws InputError naming the endpoint when its GPU is not on an NVSwitch (or is a MIG instance / vGPU).
  const Route& switch_route(std::uint32_t endpoint, bool to_switch);
  // A resource standing for `divisor` equal shares of resource `id` (capacity / divisor), made once per (id, divisor)
  // and shared by every folded route that asks (sim/channel_fold.hpp); `id` itself when divisor is 1.
  ResourceId scaled_resource(ResourceId id, double divisor);
  // Bytes each cluster resource has carried so far (completed flows), indexed like Cluster::resources(): a scaled
  // resource's bytes count on its original times its divisor (it stands for that many equal flows).
  std::vector<double> bytes_carried() const;
  const topo::Cluster& cluster() const { return cluster_; }
  Simulator& simulator() { return sim_; }
  const topo::PathOptions& options() const { return options_; }

 private:
  const topo::Cluster& cluster_;
  Simulator& sim_;
  topo::PathOptions options_;
  double stream_scale_ = 1.0;  // capacity_scale "socket-stream"
  std::unordered_map<std::uint64_t, Route> cache_;
  std::unordered_map<std::uint64_t, Route> switch_cache_;  // key: endpoint << 1 | to_switch
  std::map<std::pair<ResourceId, double>, ResourceId> scaled_;
  struct Scaled {
    ResourceId id, original;
    double divisor;
  };
  std::vector<Scaled> scaled_list_;  // in creation order
};

}  // namespace vgsim::sim
