// Registers cluster resources in the engine and caches GPU-to-GPU routes (see include/vgsim/sim/fabric.hpp).
#include "vgsim/sim/fabric.hpp"

#include <stdexcept>
#include <string>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::sim {

namespace {
Route to_route(const topo::Path& p, double stream_scale) {
  Route r;
  r.resources.assign(p.resources.begin(), p.resources.end());
  r.latency = p.latency;
  r.transport = p.transport;
  r.type = p.type;
  r.link_class = p.link_class;
  r.gdr = p.gdr;
  r.bottleneck = p.bottleneck;
  r.staged_s_per_byte = p.staged_s_per_byte;
  r.connection_cap_bytes_per_s = p.connection_cap.bytes_per_s * stream_scale;
  return r;
}
}  // namespace

Fabric::Fabric(const topo::Cluster& cluster, Simulator& sim, topo::PathOptions options,
               const std::map<std::string, double>& capacity_scale)
    : cluster_(cluster), sim_(sim), options_(options) {
  if (auto it = capacity_scale.find("socket-stream"); it != capacity_scale.end()) stream_scale_ = it->second;
  if (sim.resource_count() != 0)
    throw std::logic_error("Fabric: the simulator must be empty so resource ids match cluster indices");
  for (const auto& r : cluster.resources()) {
    auto it = capacity_scale.find(r.kind);
    const double k = it == capacity_scale.end() ? 1.0 : it->second;
    sim.add_resource(r.name, r.capacity * k);
  }
}

const Route& Fabric::route(std::uint32_t ep_a, std::uint32_t ep_b) {
  const std::uint64_t key = (static_cast<std::uint64_t>(ep_a) << 32) | ep_b;
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(key, to_route(cluster_.endpoint_path(ep_a, ep_b, options_), stream_scale_)).first->second;
}

const Route& Fabric::switch_route(std::uint32_t ep, bool to_switch) {
  const std::uint64_t key = (static_cast<std::uint64_t>(ep) << 1) | (to_switch ? 1u : 0u);
  auto it = switch_cache_.find(key);
  if (it != switch_cache_.end()) return it->second;
  const std::optional<topo::Path> p = cluster_.nvswitch_path(ep, to_switch);
  if (!p) {
    const auto& e = cluster_.endpoints().at(ep);
    throw InputError(cluster_.file(), "--algo", "NVLS needs every rank on a whole GPU attached to an NVSwitch",
                     e.name + " (" + e.mode + ")",
                     "a bare-metal or passthrough GPU listed under the host's \"nvswitch\"");
  }
  return switch_cache_.emplace(key, to_route(*p, stream_scale_)).first->second;
}

ResourceId Fabric::scaled_resource(ResourceId id, double divisor) {
  if (!(divisor >= 1.0)) throw std::logic_error("Fabric::scaled_resource: a divisor below 1");
  if (divisor == 1.0) return id;
  auto it = scaled_.find({id, divisor});
  if (it != scaled_.end()) return it->second;
  const ResourceId s = sim_.add_resource(sim_.resource_name(id) + " (folded, 1/" + std::to_string(divisor) + ")",
                                         Bandwidth{sim_.resource_capacity(id).bytes_per_s / divisor});
  scaled_list_.push_back({s, id, divisor});
  return scaled_.emplace(std::make_pair(id, divisor), s).first->second;
}

std::vector<double> Fabric::bytes_carried() const {
  std::vector<double> v(cluster_.resources().size());
  for (ResourceId r = 0; r < v.size(); ++r) v[r] = sim_.resource_stats(r).bytes_carried;
  for (const Scaled& s : scaled_list_) v[s.original] += s.divisor * sim_.resource_stats(s.id).bytes_carried;
  return v;
}

}  // namespace vgsim::sim
