// Private to topologies/: the Boost.Graph of one host template (CPU sockets, PCIe switches, GPUs, NICs, NVSwitch as
// vertices; PCIe links, inter-socket links and NVLinks as edges). Edges carry the LOCAL indices of the two directed
// resources they stand for; a host instance adds its resource base offset. Not a public type: no Boost in include/.
// pcie_route() finds the unique route over PCIe and inter-socket edges and classifies it as NCCL does
// (PIX: at most one PCIe switch; PXB: several switches, no CPU; PHB: through one CPU; SYS: across sockets).
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::topo::detail {

enum class NodeKind : std::uint8_t { Socket, Switch, Gpu, Nic, NvSwitch };
enum class EdgeKind : std::uint8_t { Pcie, InterSocket, NvLink };

struct NodeProp {
  NodeKind kind = NodeKind::Socket;
  std::string name;
  std::uint32_t socket = 0;  // NUMA node the device hangs off
};

struct EdgeProp {
  EdgeKind kind = EdgeKind::Pcie;
  std::uint32_t from = 0;      // vertex at which res_fwd starts
  std::uint32_t res_fwd = 0;   // local resource index, from -> other end
  std::uint32_t res_back = 0;  // local resource index, other end -> from
  Time latency{0};             // one traversal
};

using HostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, NodeProp, EdgeProp>;
using Vertex = HostGraph::vertex_descriptor;

struct HostRoute {
  std::vector<std::uint32_t> resources;  // local indices, traversal order
  Time latency{0};
  PathType type = PathType::LOC;
};

// Route from u to v over PCIe and inter-socket edges only (NVLink excluded). Deterministic (BFS in vertex order).
// Throws std::logic_error if v is unreachable (a validated cluster always connects every device to a socket).
HostRoute pcie_route(const HostGraph& g, Vertex u, Vertex v);

}  // namespace vgsim::topo::detail
