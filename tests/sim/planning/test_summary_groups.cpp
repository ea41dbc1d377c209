// The sweep summary compares like with like (issue 38 item 5): points are ranked, put on a Pareto front and paired
// into design effects only within one (workload, throughput unit) group, and an effect's points agree on every
// workload and scale key and differ in design keys only.
#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "vgsim/sim/planning/effects.hpp"
#include "vgsim/sim/planning/summary_groups.hpp"
#include "vgsim/sim/planning/sweep.hpp"

using namespace vgsim;
using namespace vgsim::sim::planning;

namespace {

// Two workloads x two NIC speeds x two host counts = 8 points, analytical (fast). The workload is a grid axis and
// every other key is shared, so a pairing that allowed workload keys would pair ResNet-50 with BERT-large (what the
// summary did before: "workload = bert_large instead of resnet50 raises throughput 864.3 %").
// by_template: the workload is "{var.model}" with a var.model axis instead of a workload axis.
Json two_workload_plan(bool by_template) {
  Json j = Json::parse(R"({
    "name": "two-workloads", "source": "test", "fidelity": "analytical",
    "base": {"cluster": "r750xa-{nodes}x-{var.nic}", "gpus_per_node": 1, "batch_per_gpu": 32,
             "precision": "amp", "framework": "ddp", "gdr_level": "SYS"},
    "grid": {"nodes": [2, 4], "var.nic": ["25gbe", "100gbe"]}
  })");
  const Json models = Json::array({"resnet50", "bert_large"});
  if (by_template) j["base"]["workload"] = "{var.model}";
  j["grid"][by_template ? "var.model" : "workload"] = models;
  return j;
}

std::string param(const PlanPoint& p, const std::string& k) {
  auto it = p.params.find(k);
  return it == p.params.end() ? "" : scalar_text(it->second);
}

// The summary's section of group g (from its heading to the next heading or the end).
std::string section(const std::string& text, int g) {
  const std::string head = "[" + std::to_string(g) + "/";
  const std::size_t at = text.find(head);
  REQUIRE(at != std::string::npos);
  const std::size_t next = text.find("\n[", at + 1);
  return text.substr(at, next == std::string::npos ? std::string::npos : next - at);
}

}  // namespace

TEST_CASE("key roles: design keys are the platform's, workload keys what is trained", "[planning][summary]") {
  // The roles summary_groups.hpp documents.
  for (const char* k : {"cluster", "gdr_level", "ib_disable", "nccl.algo", "nccl.base_latency.ring.ll",
                        "capacity_scale.nic", "virt.compute_efficiency", "vgpu.scheduler", "horovod.cycle_time", "tp",
                        "zero_stage", "llm.grad_overlap", "var.nic"})
    CHECK(key_role(k) == KeyRole::Design);
  for (const char* k : {"workload", "scenario", "batch_per_gpu", "global_batch", "precision", "framework",
                        "compute.measured_throughput", "sim.iterations", "optimizer", "some_future_key"})
    CHECK(key_role(k) == KeyRole::Workload);
  CHECK(key_role("nodes") == KeyRole::Scale);
  CHECK(key_role("gpus_per_node") == KeyRole::Scale);
  CHECK(key_role("label") == KeyRole::Ignored);
  CHECK(key_role("price.nic_port") == KeyRole::Ignored);
  // A var.* that builds the workload's name is a workload key; one that builds the cluster's name stays a design key.
  const SweepPlan plan = parse_plan(two_workload_plan(true), "p");
  const PlanKeyRoles roles = plan_key_roles(plan);
  CHECK(roles.role("var.model") == KeyRole::Workload);
  CHECK(roles.role("var.nic") == KeyRole::Design);
  CHECK(roles.templated == std::set<std::string>{"cluster", "workload"});
}

TEST_CASE("a two-workload sweep ranks and compares each workload alone", "[planning][summary]") {
  // Both spellings of the workload axis: a grid axis of `workload`, and a var.* template variable that builds it.
  for (const bool by_template : {false, true}) {
    INFO((by_template ? "workload = {var.model}" : "workload grid axis"));
    const SweepPlan plan = parse_plan(two_workload_plan(by_template), "two-workloads.json");
    SweepOptions o;
    o.jobs = 1;
    const SweepResult r = run_sweep(plan, o);
    REQUIRE(r.results.size() == 8);
    for (const auto& x : r.results) REQUIRE(x.error.empty());

    // Two groups, in the order of their first point: ResNet-50 in samples/s, BERT-large in tokens/s (a token model,
    // point_runner.hpp), 4 points each.
    const auto groups = summary_groups(r.points, r.results);
    REQUIRE(groups.size() == 2);
    std::set<std::string> units;
    for (const auto& g : groups) {
      CHECK(g.points.size() == 4);
      for (std::size_t i : g.points) CHECK(workload_of(r.points[i]) == g.workload);
      for (std::size_t i : g.points) CHECK(r.results[i].unit == g.unit);
      units.insert(g.unit);
    }
    CHECK(units == std::set<std::string>{"samples/s", "tokens/s"});

    // Without prices every point costs 0, so each group's throughput front is its fastest point alone: one front point
    // per group, two in all (a front over both workloads would hold only BERT's fastest point).
    for (const auto& g : groups) {
      std::size_t on = 0, fastest = g.points.front();
      for (std::size_t i : g.points) {
        on += r.pareto[i] ? 1 : 0;
        if (r.results[i].throughput > r.results[fastest].throughput) fastest = i;
      }
      CHECK(on == 1);
      CHECK(r.pareto[fastest]);
    }

    std::ostringstream os;
    write_sweep_summary(os, plan, r);
    const std::string text = os.str();
    INFO(text);
    // A heading per group, each with its own ranking 1..4 of its own points only.
    CHECK(text.find("[1/2] workload resnet50, throughput in samples/s: 4 point(s)") != std::string::npos);
    CHECK(text.find("[2/2] workload bert_large, throughput in tokens/s: 4 point(s)") != std::string::npos);
    for (int g = 1; g <= 2; ++g) {
      std::istringstream lines(section(text, g));
      std::string line;
      int rank = 0;
      while (std::getline(lines, line)) {
        if (line.size() < 10 || line.rfind("  #", 0) == 0 || line[0] == '[' || line.rfind("largest", 0) == 0) continue;
        std::istringstream f(line.substr(2));
        int k = 0;
        std::size_t pt = 0;
        f >> k >> pt;
        CHECK(k == ++rank);  // ranks restart at 1 in each group
        CHECK(workload_of(r.points.at(pt)) == groups[g - 1].workload);
      }
      CHECK(rank == 4);
      // Each group has its own largest design effect: the NIC speed, at 4 hosts (the larger gain: more traffic per
      // GPU-second crosses the NIC at 4 hosts than at 2, ring allreduce 2 (n-1)/n).
      CHECK(section(text, g).find("largest design effect: var.nic = 100gbe instead of 25gbe raises throughput") !=
            std::string::npos);
      CHECK(section(text, g).find("at gpus_per_node=1, nodes=4") != std::string::npos);
    }
    CHECK(text.find("workload =") == std::string::npos);   // no effect changes the workload
    CHECK(text.find("var.model =") == std::string::npos);  // nor the variable that builds it

    // Every effect, per group or over all points at once, pairs two points of one workload and unit that agree on
    // every key but the effect's design keys (templated keys follow from the others; label and prices ignored).
    const PlanKeyRoles roles = plan_key_roles(plan);
    auto effects = design_effects(plan, r.points, r.results);
    for (const auto& g : groups) {
      const auto e = design_effects(plan, r.points, r.results, g.points);
      REQUIRE(!e.empty());
      CHECK(e.front().keys == std::vector<std::string>{"var.nic"});
      effects.insert(effects.end(), e.begin(), e.end());
    }
    for (const auto& e : effects) {
      const PlanPoint& a = r.points[e.better];
      const PlanPoint& b = r.points[e.worse];
      CHECK(workload_of(a) == workload_of(b));
      CHECK(r.results[e.better].unit == r.results[e.worse].unit);
      for (const auto& k : e.keys) CHECK(roles.role(k) == KeyRole::Design);
      std::set<std::string> differ;
      for (const auto& [k, _] : a.params)
        if (param(a, k) != param(b, k) && !roles.templated.count(k)) differ.insert(k);
      CHECK(differ == std::set<std::string>(e.keys.begin(), e.keys.end()));
      CHECK(e.gain > 0);
    }
  }
}
