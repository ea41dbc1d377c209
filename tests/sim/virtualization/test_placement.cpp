// Rank placement from node lists and Kubernetes MPIJob manifests (sim/jobs/placement.hpp): node order
// and rank counts, kube-scheduler's LeastAllocated spreading, pinning with nodeSelector, pods that fit nowhere, and
// manifests that are not MPIJobs or ask for a rank count different from their GPUs.
#include <catch2/catch.hpp>

#include "catalog.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/jobs/multi_job.hpp"
#include "vgsim/sim/jobs/placement.hpp"

using namespace vgsim;
using namespace vgsim::sim::virt;

namespace {
using test::catalog;
Json mpijob(int workers, int gpus, int slots) {
  return Json{
      {"apiVersion", "kubeflow.org/v2beta1"},
      {"kind", "MPIJob"},
      {"metadata", {{"name", "t"}}},
      {"spec",
       {{"slotsPerWorker", slots},
        {"mpiReplicaSpecs",
         {{"Worker",
           {{"replicas", workers},
            {"template",
             {{"spec",
               {{"containers",
                 Json::array({{{"name", "w"}, {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}})}}}}}}}}}}}};
}
}  // namespace

TEST_CASE("nodes with a rank count: the first free GPUs of each named node, in the order given") {
  const auto c = topo::Cluster::resolve("r750xa-vm-2x2gpu", catalog());  // host0/vm0: gpu0+gpu1, host0/vm1: gpu2+gpu3
  std::set<std::string> taken;
  const auto e = place_on_nodes(c, NodeRanks{{"host0/vm1", "host0/vm0"}, 2}, taken, "f.json", "$.jobs[0]");
  REQUIRE(e.size() == 4);
  CHECK(e[0].rfind("host0/vm1/", 0) == 0);
  CHECK(e[2].rfind("host0/vm0/", 0) == 0);
  CHECK(taken.size() == 4);
  // Every GPU is now taken: a second job on vm0 finds none free.
  CHECK_THROWS_WITH(place_on_nodes(c, NodeRanks{{"host0/vm0"}, 1}, taken, "f.json", "$.jobs[1]"),
                    Catch::Contains("not enough free GPU endpoints") && Catch::Contains("$.jobs[1].nodes[0]"));
  CHECK_THROWS_WITH(place_on_nodes(c, NodeRanks{{"host0/vm7"}, 1}, taken, "f.json", "$.jobs[1]"),
                    Catch::Contains("no such node") && Catch::Contains("host0/vm0, host0/vm1"));
}

TEST_CASE("MPIJob: LeastAllocated spreads one-GPU workers over the VMs, node-major") {
  const auto c = topo::Cluster::resolve("r750xa-vm-4x-100gbe-gdr", catalog());  // hostN/vm0 with one vGPU each
  std::set<std::string> taken;
  const MpiJob j = parse_mpijob(mpijob(4, 1, 1), "m.json");
  CHECK(j.workers == 4);
  CHECK(j.gpus_per_worker == 1);
  const auto e = place_mpijob(c, j, taken, "jobs.json", "$.jobs[0].mpijob");
  // Four nodes with one free GPU each (share 1.0): worker w lands on the first node still free, hosts 0..3.
  REQUIRE(e.size() == 4);
  for (int h = 0; h < 4; ++h) CHECK(e[h].rfind("host" + std::to_string(h) + "/vm0/", 0) == 0);
  // A fifth worker would stay Pending: no node has a free GPU left.
  CHECK_THROWS_WITH(place_mpijob(c, parse_mpijob(mpijob(1, 1, 1), "m.json"), taken, "jobs.json", "$.jobs[1].mpijob"),
                    Catch::Contains("fits on no node"));
}

TEST_CASE("MPIJob: two-GPU workers pack per VM; nodeSelector pins; a worker larger than any VM fits nowhere") {
  const auto c = topo::Cluster::resolve("r750xa-vm-2x2gpu", catalog());
  {
    std::set<std::string> taken;
    const auto e = place_mpijob(c, parse_mpijob(mpijob(2, 2, 2), "m.json"), taken, "f", "$");
    REQUIRE(e.size() == 4);  // worker 0 -> vm0 (both free, first in order), worker 1 -> vm1 (share 1.0 > 0.0)
    CHECK(e[0].rfind("host0/vm0/", 0) == 0);
    CHECK(e[1].rfind("host0/vm0/", 0) == 0);
    CHECK(e[2].rfind("host0/vm1/", 0) == 0);
  }
  {
    Json m = mpijob(1, 2, 2);
    m["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"] = {
        {"kubernetes.io/hostname", "host0/vm1"}};
    std::set<std::string> taken;
    const auto e = place_mpijob(c, parse_mpijob(m, "m.json"), taken, "f", "$");
    REQUIRE(e.size() == 2);
    CHECK(e[0].rfind("host0/vm1/", 0) == 0);
  }
  std::set<std::string> taken;
  CHECK_THROWS_WITH(place_mpijob(c, parse_mpijob(mpijob(1, 4, 4), "m.json"), taken, "f", "$"),
                    Catch::Contains("fits on no node"));
}

TEST_CASE("MPIJob manifests that vgsim cannot place are InputErrors naming the field") {
  Json m = mpijob(2, 1, 1);
  m["kind"] = "Deployment";
  CHECK_THROWS_WITH(parse_mpijob(m, "m.json"), Catch::Contains("$.kind") && Catch::Contains("MPIJob"));
  CHECK_THROWS_WITH(parse_mpijob(mpijob(2, 2, 1), "m.json"),
                    Catch::Contains("$.spec.slotsPerWorker") && Catch::Contains("one rank per GPU"));
  Json no_gpu = mpijob(2, 1, 1);
  no_gpu["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0].erase("resources");
  CHECK_THROWS_WITH(parse_mpijob(no_gpu, "m.json"), Catch::Contains("no GPU requested"));
  CHECK_THROWS_WITH(parse_mpijob(mpijob(0, 1, 1), "m.json"),
                    Catch::Contains("$.spec.mpiReplicaSpecs.Worker.replicas") && Catch::Contains("positive"));
}

TEST_CASE("a jobs file places an MPIJob by file reference (the example in workloads/jobs)") {
  const MultiJobSpec s = load_jobs_file(std::string(VGSIM_DATA_DIR) + "/workloads/jobs/k8s-two-jobs.json");
  REQUIRE(s.placements.size() == 1);
  REQUIRE(s.placements[0].mpijob.has_value());
  CHECK(s.placements[0].mpijob->workers == 4);
  // Exactly one placement per job.
  const Json both = {
      {"cluster", "r750xa-vm-2x2gpu"},
      {"jobs",
       Json::array(
           {{{"name", "a"}, {"workload", "resnet50"}, {"endpoints", {"host0/vm0/gpu0"}}, {"nodes", {"host0/vm0"}}}})}};
  CHECK_THROWS_WITH(parse_jobs(both, "j.json"), Catch::Contains("more than one placement"));
}
