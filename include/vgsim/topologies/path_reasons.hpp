// Why NCCL moves bytes between two GPU endpoints the way Cluster::endpoint_path says, when that is not what a user
// may expect: GPUDirect RDMA not in use on a network path, TCP sockets instead of IB verbs, SHM instead of P2P, P2P
// over PCIe where the host has NVLink. Each reason names the NCCL rule (ncclTopoCheckGdr / ncclTopoCheckP2p in
// NCCL src/graph/paths.cc, the IB transport's device rules in src/transport/net_ib.cc, the MIG / vGPU / VM rules the
// model follows) and what would turn the expected transport on. Facts only from the cluster and the options: the same
// rules Cluster::path and Cluster::endpoint_path apply, stated. Every report that says a transport uses these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/topologies/cluster.hpp"

namespace vgsim::topo {

struct PathReason {
  std::string what;  // "GPUDirect RDMA not in use", "SHM instead of P2P", "NET over TCP sockets instead of IB", ...
  std::string why;   // "GPU-NIC distance PHB (...) is farther than NCCL_NET_GDR_LEVEL (default PXB)"
  std::string rule;  // the rule that decided it, e.g. "NCCL ncclTopoCheckGdr"
  std::string fix;   // what would turn the expected transport on, e.g. "--gdr-level PHB or ... would turn it on"
};

// The reasons for the route from endpoint a to endpoint b (indices into Cluster::endpoints(); on bare metal the GPU
// indices) under `options`, nearest side first, without repeats. Empty when the route is what a user expects (P2P
// over NVLink; P2P over PCIe on a host without NVLink; NET over IB verbs with GPUDirect RDMA), when a == b, or when
// no route exists (a missing NIC: Cluster::endpoint_path's error is the report then).
std::vector<PathReason> path_reasons(const Cluster& cluster, std::uint32_t ep_a, std::uint32_t ep_b,
                                     const PathOptions& options);

// One line for a report: "why: <what>: <why> [<rule>]; <fix>".
std::string why_line(const PathReason& reason);

// The why lines of several routes (pairs of endpoints), each distinct line once, in first-seen order.
std::vector<std::string> why_lines(const Cluster& cluster,
                                   const std::vector<std::pair<std::uint32_t, std::uint32_t>>& routes,
                                   const PathOptions& options);

}  // namespace vgsim::topo
