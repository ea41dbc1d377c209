// Rank placement from node lists and Kubernetes MPIJob manifests (include/vgsim/sim/jobs/placement.hpp).
#include "vgsim/sim/jobs/placement.hpp"

#include <algorithm>
#include <map>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"

namespace vgsim::sim::virt {

namespace {

// Kubernetes nodes of the cluster in cluster order: a VM, or a bare-metal host, with its GPU endpoints in order.
struct Node {
  std::string name;
  std::vector<std::string> endpoints;
};

std::vector<Node> kubernetes_nodes(const topo::Cluster& c) {
  std::vector<Node> nodes;
  std::map<std::string, std::size_t> index;
  for (const auto& e : c.endpoints()) {
    const std::string node = e.vm.empty() ? c.hosts()[e.host].name : e.vm;
    auto [it, fresh] = index.emplace(node, nodes.size());
    if (fresh) nodes.push_back({node, {}});
    nodes[it->second].endpoints.push_back(e.name);
  }
  return nodes;
}

std::vector<std::string> free_endpoints(const Node& n, const std::set<std::string>& taken) {
  std::vector<std::string> out;
  for (const auto& e : n.endpoints)
    if (!taken.count(e)) out.push_back(e);
  return out;
}

std::string node_names(const std::vector<Node>& nodes) {
  std::string s;
  for (const auto& n : nodes) s += (s.empty() ? "" : ", ") + n.name;
  return s;
}

// A Kubernetes count: a JSON integer or a quantity string of digits ("2").
std::uint32_t count_at(const Json& parent, const char* key, const std::string& file, const std::string& path,
                       std::uint32_t fallback, bool required) {
  if (!parent.is_object() || !parent.contains(key)) {
    if (required) throw InputError(file, path + "." + key, "missing", "", "a positive integer");
    return fallback;
  }
  // An integer, as the MPIJob CRD's int32 fields are: the API server refuses "4" (a string), so vgsim does too.
  const Json& v = parent[key];
  const long long n = v.is_number_integer() ? v.get<long long>() : -1;
  if (n < 1 || n > 100000)
    throw InputError(file, path + "." + key, v.is_string() ? "a string, not a number" : "not a positive count",
                     v.dump(), "an integer from 1 to 100000 (without quotes: the MPIJob CRD's int32)");
  return static_cast<std::uint32_t>(n);
}

const Json& object_at(const Json& parent, const char* key, const std::string& file, const std::string& path) {
  if (!parent.is_object() || !parent.contains(key) || !parent[key].is_object())
    throw InputError(file, path + "." + key, parent.is_object() && parent.contains(key) ? "not an object" : "missing",
                     parent.is_object() && parent.contains(key) ? parent[key].dump() : "",
                     "an object (kubeflow.org MPIJob)");
  return parent[key];
}

// The string at parent[key], "" when absent; anything else than a string is an input error.
std::string string_at(const Json& parent, const char* key, const std::string& file, const std::string& path) {
  if (!parent.is_object() || !parent.contains(key)) return "";
  if (!parent[key].is_string())
    throw InputError(file, path + "." + key, "not a string", parent[key].dump(), "a string (kubeflow.org MPIJob)");
  return parent[key].get<std::string>();
}

}  // namespace

MpiJob parse_mpijob(const Json& m, const std::string& file) {
  if (!m.is_object()) throw InputError(file, "$", "not an object", "", "a Kubernetes MPIJob manifest (JSON)");
  const std::string api = string_at(m, "apiVersion", file, "$");
  if (api.rfind("kubeflow.org/", 0) != 0)
    throw InputError(file, "$.apiVersion", "not a Kubeflow API version", api,
                     "kubeflow.org/v2beta1 or kubeflow.org/v1");
  const std::string kind = string_at(m, "kind", file, "$");
  if (kind != "MPIJob") throw InputError(file, "$.kind", "not an MPIJob", kind, "MPIJob");
  MpiJob j;
  if (m.contains("metadata") && m["metadata"].is_object())
    j.name = string_at(m["metadata"], "name", file, "$.metadata");
  const Json& spec = object_at(m, "spec", file, "$");
  j.slots_per_worker = count_at(spec, "slotsPerWorker", file, "$.spec", 1, false);
  const Json& replicas = object_at(spec, "mpiReplicaSpecs", file, "$.spec");
  const Json& worker = object_at(replicas, "Worker", file, "$.spec.mpiReplicaSpecs");
  const std::string wpath = "$.spec.mpiReplicaSpecs.Worker";
  j.workers = count_at(worker, "replicas", file, wpath, 1, true);
  const Json& pod = object_at(object_at(worker, "template", file, wpath), "spec", file, wpath + ".template");
  const std::string ppath = wpath + ".template.spec";
  if (!pod.contains("containers") || !pod["containers"].is_array() || pod["containers"].empty())
    throw InputError(file, ppath + ".containers", "missing", "", "at least one container");
  std::uint32_t gpus = 0;
  for (std::size_t i = 0; i < pod["containers"].size(); ++i) {
    const Json& c = pod["containers"][i];
    const std::string cpath = ppath + ".containers[" + std::to_string(i) + "].resources.limits";
    if (c.contains("resources") && c["resources"].is_object() && c["resources"].contains("limits"))
      gpus += count_at(c["resources"]["limits"], "nvidia.com/gpu", file, cpath, 0, false);
  }
  if (gpus == 0)
    throw InputError(file, ppath + ".containers[*].resources.limits[\"nvidia.com/gpu\"]", "no GPU requested", "",
                     "a GPU limit per worker (one GPU per MPI slot)");
  j.gpus_per_worker = gpus;
  if (gpus != j.slots_per_worker)
    throw InputError(file, "$.spec.slotsPerWorker", "ranks per worker differ from its GPUs",
                     std::to_string(j.slots_per_worker) + " slot(s), " + std::to_string(gpus) + " GPU(s)",
                     "slotsPerWorker equal to the worker's nvidia.com/gpu limit (one rank per GPU)");
  if (pod.contains("nodeSelector") && pod["nodeSelector"].is_object())
    j.pinned_node = string_at(pod["nodeSelector"], "kubernetes.io/hostname", file, ppath + ".nodeSelector");
  return j;
}

MpiJob load_mpijob(const std::string& path) { return parse_mpijob(load_json_file(path), path); }

std::vector<std::string> place_on_nodes(const topo::Cluster& c, const NodeRanks& p, std::set<std::string>& taken,
                                        const std::string& file, const std::string& path) {
  require_gpu_endpoints(c);
  const std::vector<Node> nodes = kubernetes_nodes(c);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const std::string npath = path + ".nodes[" + std::to_string(i) + "]";
    const Node* n = nullptr;
    for (const auto& x : nodes)
      if (x.name == p.nodes[i]) n = &x;
    if (!n)
      throw InputError(file, npath, "no such node (VM or bare-metal host) in the cluster", p.nodes[i],
                       node_names(nodes));
    const auto free = free_endpoints(*n, taken);
    if (free.size() < p.ranks_per_node)
      throw InputError(file, npath, "not enough free GPU endpoints on this node",
                       p.nodes[i] + " has " + std::to_string(free.size()),
                       "at least ranks_per_node = " + std::to_string(p.ranks_per_node));
    for (std::uint32_t r = 0; r < p.ranks_per_node; ++r) {
      out.push_back(free[r]);
      taken.insert(free[r]);
    }
  }
  return out;
}

std::vector<std::string> place_mpijob(const topo::Cluster& c, const MpiJob& job, std::set<std::string>& taken,
                                      const std::string& file, const std::string& path) {
  require_gpu_endpoints(c);
  const std::vector<Node> nodes = kubernetes_nodes(c);
  if (!job.pinned_node.empty()) {
    bool known = false;
    for (const auto& n : nodes) known = known || n.name == job.pinned_node;
    if (!known)
      throw InputError(file,
                       path + ".spec.mpiReplicaSpecs.Worker.template.spec.nodeSelector[\"kubernetes.io/hostname\"]",
                       "no such node in the cluster", job.pinned_node, node_names(nodes));
  }
  std::vector<std::string> out;
  for (std::uint32_t w = 0; w < job.workers; ++w) {
    // LeastAllocated: the node with the largest free share of its GPUs that fits the pod; ties in cluster order.
    const Node* best = nullptr;
    double best_share = -1.0;
    for (const auto& n : nodes) {
      if (!job.pinned_node.empty() && n.name != job.pinned_node) continue;
      const double free = static_cast<double>(free_endpoints(n, taken).size());
      if (free < job.gpus_per_worker) continue;
      const double share = free / static_cast<double>(n.endpoints.size());
      if (share > best_share) best = &n, best_share = share;
    }
    if (!best)
      throw InputError(file, path + ".spec.mpiReplicaSpecs.Worker.replicas",
                       "a worker pod fits on no node (it would stay Pending)",
                       "worker " + std::to_string(w) + " of " + std::to_string(job.workers) + ", " +
                           std::to_string(job.gpus_per_worker) + " GPU(s) each",
                       "a node with that many free GPU endpoints (nodes: " + node_names(nodes) + ")");
    const auto free = free_endpoints(*best, taken);
    for (std::uint32_t g = 0; g < job.gpus_per_worker; ++g) {
      out.push_back(free[g]);
      taken.insert(free[g]);
    }
  }
  // Ranks node-major (NCCL's node = one OS instance): workers that share a node sit next to each other.
  std::vector<std::string> grouped;
  for (const auto& n : nodes)
    for (const auto& e : out)
      if (std::find(n.endpoints.begin(), n.endpoints.end(), e) != n.endpoints.end()) grouped.push_back(e);
  return grouped;
}

}  // namespace vgsim::sim::virt
