// Where a job's ranks run, described the way platform teams describe it: a list of nodes (VMs, or bare-metal hosts)
// with a rank count each, or a Kubernetes MPIJob manifest (kubeflow.org MPIJob, JSON form, which kubectl accepts as
// well as YAML) whose worker pods are bound to the cluster's nodes (each VM, or bare-metal host, is a Kubernetes
// node). Both turn into endpoint names, node-major, one GPU endpoint per rank (JobSpec::endpoints).
// Pod binding follows kube-scheduler's default scoring (NodeResourcesFit, LeastAllocated): each worker goes to the
// node with the largest share of free GPUs that fits it, ties in cluster order; a nodeSelector on
// kubernetes.io/hostname pins the workers to that node. Kubernetes fields vgsim does not model are ignored.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::sim::virt {

// "nodes": ["host0/vm0", "host1/vm0"], "ranks_per_node": 2 -> the first 2 free GPU endpoints of each node.
struct NodeRanks {
  std::vector<std::string> nodes;  // VM names ("host0/vm0") or bare-metal host names ("host0")
  std::uint32_t ranks_per_node = 1;
};

struct MpiJob {
  std::string name;                    // metadata.name
  std::uint32_t workers = 0;           // spec.mpiReplicaSpecs.Worker.replicas
  std::uint32_t gpus_per_worker = 0;   // the worker container's resources.limits["nvidia.com/gpu"]
  std::uint32_t slots_per_worker = 1;  // spec.slotsPerWorker: MPI ranks per worker pod (one GPU each)
  std::string pinned_node;             // Worker nodeSelector["kubernetes.io/hostname"]; "" = any node
};

MpiJob parse_mpijob(const Json& manifest, const std::string& file);
MpiJob load_mpijob(const std::string& path);

// Endpoint names for the ranks; endpoints in `taken` are not used and the chosen ones are added to it. Errors
// (unknown node, not enough free GPUs, pods that fit nowhere) are InputErrors naming `file` and `path`.
std::vector<std::string> place_on_nodes(const topo::Cluster& cluster, const NodeRanks& p, std::set<std::string>& taken,
                                        const std::string& file, const std::string& path);
std::vector<std::string> place_mpijob(const topo::Cluster& cluster, const MpiJob& job, std::set<std::string>& taken,
                                      const std::string& file, const std::string& path);

}  // namespace vgsim::sim::virt
