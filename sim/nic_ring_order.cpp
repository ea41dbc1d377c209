// A node's ring visit order that enters and leaves through the GPUs nearest the NIC (see
// include/vgsim/sim/nic_ring_order.hpp).
#include "vgsim/sim/nic_ring_order.hpp"

#include <algorithm>

namespace vgsim::sim {

std::vector<std::uint32_t> nic_ring_order(const topo::Cluster& cluster, const std::vector<std::uint32_t>& node,
                                          const topo::PathOptions& options) {
  const std::size_t n = node.size();
  if (n < 2 || options.nccl_minor < 6) return {};
  const auto& eps = cluster.endpoints();
  std::vector<topo::PathType> dist(n);
  for (std::size_t l = 0; l < n; ++l) {
    const std::uint32_t gpu = eps[node[l]].gpu;
    const auto nic = cluster.nic_of(gpu);
    if (!nic) return {};
    dist[l] = cluster.gpu_nic_distance(gpu, *nic);
  }
  const topo::PathType nearest = *std::min_element(dist.begin(), dist.end());
  if (dist.front() == nearest && dist.back() == nearest) return {};
  // Entry and exit: the two nearest GPUs (lowest local index first among equals).
  std::vector<std::uint32_t> by_distance(n);
  for (std::uint32_t l = 0; l < n; ++l) by_distance[l] = l;
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return dist[a] < dist[b]; });
  const std::uint32_t entry = by_distance[0], exit = by_distance[1];
  std::vector<bool> used(n, false);
  used[entry] = used[exit] = true;
  std::vector<std::uint32_t> order = {entry};
  // Nearest-neighbour walk over the others by NCCL path type between the GPUs (NVL < PIX < PXB < PHB < SYS).
  for (std::size_t k = 2; k < n; ++k) {
    std::uint32_t best = 0;
    topo::PathType best_type = topo::PathType::NET;
    bool found = false;
    for (std::uint32_t l = 0; l < n; ++l) {
      if (used[l]) continue;
      const topo::PathType t = cluster.endpoint_path(node[order.back()], node[l], options).type;
      if (!found || t < best_type) best = l, best_type = t, found = true;
    }
    used[best] = true;
    order.push_back(best);
  }
  order.push_back(exit);
  return order;
}

}  // namespace vgsim::sim
