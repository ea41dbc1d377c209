// Private helpers of NCCL's cost model shared by the built-in algorithms' hooks (ring_algorithm.cpp,
// tree_algorithm.cpp, nvls_algorithm.cpp, nvls_tree_algorithm.cpp) and nccl_tuning.cpp: table rows, the latency and
// bus-bandwidth terms of tuning.cc (docs/SOURCES.md#nccl-tuning). Not a public header.
#pragma once

#include <algorithm>
#include <cstdint>

#include "vgsim/workloads/collectives/nccl_tuning.hpp"

namespace vgsim::coll::detail {

// Rows of NcclTuning's latency tables (= the built-in algorithms' registry ids).
constexpr int kRingRow = 0, kTreeRow = 1, kNvlsRow = 2, kNvlsTreeRow = 3;

inline int log2i(std::uint64_t v) {
  int l = -1;
  while (v) {
    v >>= 1;
    ++l;
  }
  return l;
}
inline int nodes_col(std::uint32_t nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

// tuning.cc's latency terms of one table row: base, the intra-node hop (graph's intra link) and the inter-node hop
// (`net_row`'s NET cell + latencyInter, twice for Simple).
struct TableLatency {
  double base = 0, intra = 0, inter = 0;
};
inline TableLatency table_latency(const NcclTuning& t, int row, int net_row, Proto proto, const CommShape& c) {
  const int p = static_cast<int>(proto), net = static_cast<int>(Link::Net);
  TableLatency l;
  l.inter = t.hw_latency_us[net][net_row][p] + t.latency_inter_us + (proto == Proto::Simple ? t.latency_inter_us : 0.0);
  l.intra = t.hw_latency_us[static_cast<int>(c.intra)][row][p];
  l.base = t.base_latency_us[row][p];
  return l;
}

// One engine hop of a table row: hw_latency[link][row][proto], a Net hop + latencyInter (twice for Simple).
inline double table_hop_us(const NcclTuning& t, Link link, int row, Proto proto) {
  double v = t.hw_latency_us[static_cast<int>(link)][row][static_cast<int>(proto)];
  if (link == Link::Net) v += t.latency_inter_us * (proto == Proto::Simple ? 2.0 : 1.0);
  return v;
}

// 1.5: llMaxBw of the communicator (one node: the GPU row; several: Intel row 0, AMD row 1).
inline double ll_max_GBps(const NcclTuning& t, const CommShape& c) {
  const int ll_row = c.nodes == 1 ? static_cast<int>(c.arch) : (c.cpu == CpuVendor::AMD ? 1 : 0);
  return t.ll_max_bw_GBps[ll_row][nodes_col(c.nodes)];
}
// 1.5: the graph's bus bandwidth before protocol refinements: channels x (intra speed on <= 2 nodes, else inter).
// Tree graphs use the tree intra speed where the search raised it.
inline double graph_bus_GBps(const CommShape& c, bool tree_graph) {
  const double nch = c.channels;
  const double intra = (tree_graph && c.tree_bw_intra_GBps > 0) ? c.tree_bw_intra_GBps : c.bw_intra_GBps;
  return nch * (c.nodes <= 2 ? intra : c.bw_inter_GBps);
}
// 1.5 NVLS: busBw = channels x bw x efficiency x (nvlsCh - 1) / nvlsCh x 2 on `g` GPUs, returned as algBw.
inline double nvls_alg_GBps(const NcclTuning& t, const CommShape& c, double bw_per_ch, std::uint32_t g) {
  const double nvls_ch = std::max<double>(1, c.nvls_channels);
  const double bus =
      c.channels * bw_per_ch * t.nvls_efficiency[static_cast<int>(c.arch)] * (nvls_ch - 1) / nvls_ch * 2.0;
  return bus * g / (2.0 * (g - 1));
}

}  // namespace vgsim::coll::detail
