// BFS routing over one host's Boost.Graph (see host_graph.hpp). PCIe trees hang off sockets and sockets are joined by
// inter-socket links, so the route between two vertices is unique; BFS only finds it. Type classification counts the
// PCIe switches and sockets the route passes through (excluding the endpoints themselves).
#include "topologies/detail/host_graph.hpp"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <stdexcept>

namespace vgsim::topo::detail {

namespace {
struct NotNvLink {
  const HostGraph* g = nullptr;
  bool operator()(const HostGraph::edge_descriptor& e) const { return (*g)[e].kind != EdgeKind::NvLink; }
};
}  // namespace

HostRoute pcie_route(const HostGraph& g, Vertex u, Vertex v) {
  HostRoute out;
  if (u == v) return out;
  const std::size_t n = boost::num_vertices(g);
  std::vector<Vertex> pred(n);
  for (std::size_t i = 0; i < n; ++i) pred[i] = i;
  boost::filtered_graph<HostGraph, NotNvLink> fg(g, NotNvLink{&g});
  boost::breadth_first_search(
      fg, u, boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge()))));
  if (pred[v] == v) throw std::logic_error("vgsim: no PCIe route between " + g[u].name + " and " + g[v].name);
  std::vector<Vertex> chain{v};
  while (chain.back() != u) chain.push_back(pred[chain.back()]);
  std::reverse(chain.begin(), chain.end());

  int switches = 0, sockets = 0;
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
    const Vertex a = chain[i], b = chain[i + 1];
    // The PCIe/inter-socket edge between a and b (there is exactly one; NVLink edges never join these kinds).
    bool found = false;
    for (auto [it, end] = boost::out_edges(a, g); it != end; ++it) {
      if (boost::target(*it, g) != b || g[*it].kind == EdgeKind::NvLink) continue;
      const EdgeProp& e = g[*it];
      out.resources.push_back(e.from == a ? e.res_fwd : e.res_back);
      out.latency += e.latency;
      found = true;
      break;
    }
    if (!found) throw std::logic_error("vgsim: broken host graph edge");
    if (i > 0) {
      if (g[a].kind == NodeKind::Switch) ++switches;
      if (g[a].kind == NodeKind::Socket) ++sockets;
    }
  }
  // Endpoints that are sockets themselves (routes to/from host memory) count as passing through that CPU.
  if (g[u].kind == NodeKind::Socket) ++sockets;
  if (g[v].kind == NodeKind::Socket) ++sockets;
  if (sockets >= 2)
    out.type = PathType::SYS;
  else if (sockets == 1)
    out.type = PathType::PHB;
  else if (switches <= 1)
    out.type = PathType::PIX;
  else
    out.type = PathType::PXB;
  return out;
}

}  // namespace vgsim::topo::detail
