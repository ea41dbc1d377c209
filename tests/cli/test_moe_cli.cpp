// `vgsim train` with an MoE shape (issue 17 item 1): Mixtral 8x7B with expert parallelism, the EP term in the summary
// and the JSON breakdown (which still adds up), ep validation with exit 2, and `vgsim params` listing ep.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "vgsim/kernel/json_input.hpp"

using vgsim::test::run_vgsim;

namespace {
vgsim::Json read_json(const std::string& path) {
  std::ifstream f(path);
  return vgsim::Json::parse(f);
}
}  // namespace

TEST_CASE("train runs Mixtral 8x7B with expert parallelism and reports the EP all-to-alls") {
  const std::string json = vgsim::test::temp_path("vgsim-moe", "m.json");
  // aws-p4de-2x8xa100: 2 nodes of 8 A100-80GB. tp 2 leaves dp 8; ep 8 takes all 8 data-parallel ranks of a TP rank,
  // so each EP group spans both nodes (4 ranks on each) and its all-to-alls cross the EFA network.
  const std::string plan = "--set tp=2 ep=8 sequence_parallel=true recompute=full zero_stage=1";
  const auto r = run_vgsim("train --cluster aws-p4de-2x8xa100 --workload mixtral-8x7b " + plan + " --json " + json);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("MoE 8 experts top-2 ep 8 capacity dropless") != std::string::npos);
  CHECK(r.out.find("expert-parallel all-to-all (EP)") != std::string::npos);
  // One dispatch per layer and micro-batch of (b s / tp) k h x 2 B = 2048 x 2 x 4096 x 2 = 32 MiB per rank.
  CHECK(r.out.find("ep alltoall dispatch (forward): alltoall 32 MiB") != std::string::npos);
  const vgsim::Json j = read_json(json);
  CHECK(j.at("breakdown_us").at("ep_communication").get<double>() > 0.0);
  // The seven terms add up to the iteration (microseconds, rounding aside).
  double sum = 0.0;
  for (const auto& [k, v] : j.at("breakdown_us").items()) sum += v.get<double>();
  CHECK(sum == Approx(j.at("iteration_us").get<double>()).epsilon(1e-9));
  std::filesystem::remove(json);
}

TEST_CASE("an MoE plan that breaks Megatron-Core's ep rules exits 2 naming the field") {
  // ep 3 does not divide Mixtral's 8 experts.
  const auto a = run_vgsim(
      "train --cluster aws-p4de-2x8xa100 --workload mixtral-8x7b --set tp=2 pp=2 ep=3 "
      "sequence_parallel=true");
  CHECK(a.status == 2);
  CHECK(a.out.find("plan.ep") != std::string::npos);
  // tp 2 x pp 2 leaves dp 4: ep 8 divides the experts but not dp.
  const auto b = run_vgsim(
      "train --cluster aws-p4de-2x8xa100 --workload mixtral-8x7b --set tp=2 pp=2 ep=8 "
      "sequence_parallel=true");
  CHECK(b.status == 2);
  CHECK(b.out.find("dp = 4") != std::string::npos);
  // MoE with tensor parallelism needs sequence parallelism.
  const auto c = run_vgsim("train --cluster aws-p4de-2x8xa100 --workload mixtral-8x7b --set tp=2 pp=2 ep=4");
  CHECK(c.status == 2);
  CHECK(c.out.find("plan.sequence_parallel") != std::string::npos);
  // A dense model has no experts to split.
  CHECK(run_vgsim("train --cluster dgx-a100 --workload llama2-7b --set tp=8 ep=2").status == 2);
}

TEST_CASE("vgsim params lists an MoE job's ep and capacity factor with their sources") {
  const auto r = run_vgsim(
      "params --cluster aws-p4de-2x8xa100 --workload mixtral-8x7b --set tp=2 ep=8 "
      "sequence_parallel=true recompute=full zero_stage=1 llm.moe_capacity_factor=1.25");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("ep = 8  # --set") != std::string::npos);
  CHECK(r.out.find("llm.moe_capacity_factor = 1.25  # --set") != std::string::npos);
}
