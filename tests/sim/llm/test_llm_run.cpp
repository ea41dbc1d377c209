// Large-model jobs: resolution (plan, memory, names), the iteration's breakdown adding up, what each parallelism
// costs moving in the direction its mechanism says, and determinism.
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/llm/llm_run.hpp"

using namespace vgsim;
using namespace vgsim::sim;
using namespace vgsim::sim::llm;

namespace {
const topo::Catalog& cat() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}
training::JobSpec spec(const std::string& cluster, const std::string& workload, std::vector<std::string> sets,
                       std::uint32_t nodes = 0) {
  training::JobSpec s;
  s.cluster = cluster;
  s.workload = workload;
  s.nodes = nodes;
  s.sets = std::move(sets);
  return s;
}
std::string error_of(const training::JobSpec& s) {
  try {
    resolve_llm_job(s, cat());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("an LLM job is recognised by its workload and resolves its plan") {
  CHECK(is_llm_workload("llama2-7b"));
  CHECK_FALSE(is_llm_workload("resnet50"));
  // dgx-a100: 8 GPUs; tp 2 x pp 2 leaves dp = 8 / 4 = 2.
  const LlmJob j =
      resolve_llm_job(spec("dgx-a100", "llama2-7b", {"tp=2", "pp=2", "recompute=full", "zero_stage=1"}), cat());
  CHECK(j.plan.dp == 2);
  // Default global batch: micro_batch x dp x 4 x pp = 1 x 2 x 4 x 2 = 16 sequences.
  CHECK(j.plan.global_batch == 16);
  CHECK(j.memory_bytes == Approx(80.0 * (1 << 30)).epsilon(0.05));
}

TEST_CASE("bad plans are refused naming the parameter and the shortfall") {
  // tp x pp x dp must equal the ranks: 2 x 2 x 3 = 12 != 8.
  CHECK(error_of(spec("dgx-a100", "llama2-7b", {"tp=2", "pp=2", "dp=3"})).find("dp") != std::string::npos);
  // dp derived: tp x pp = 3 does not divide 8 ranks.
  CHECK(error_of(spec("dgx-a100", "llama2-7b", {"tp=3"})).find("ranks") != std::string::npos);
  // Llama 2 7B replicated on every GPU with Adam: 16 B x 6.74 G parameters = 108 GB > 80 GB: does not fit.
  const std::string e = error_of(spec("dgx-a100", "llama2-7b", {}));
  CHECK(e.find("short") != std::string::npos);
  // An unknown name gets a did-you-mean; a data-parallel training setting is not an LLM parameter.
  CHECK(error_of(spec("dgx-a100", "llama2-7b", {"tpp=2"})).find("tp") != std::string::npos);
  CHECK_FALSE(error_of(spec("dgx-a100", "llama2-7b", {"batch_per_gpu=4"})).empty());
}

TEST_CASE("the iteration's breakdown adds up and each part moves with its mechanism") {
  const auto run = [](std::vector<std::string> sets, const std::string& cluster = "dgx-a100") {
    const LlmJob j = resolve_llm_job(spec(cluster, "llama2-7b", std::move(sets)), cat());
    return simulate_llm_iteration(j);
  };
  const LlmResult a = run({"tp=2", "pp=2", "recompute=full", "zero_stage=1", "global_batch=32"});
  // compute + TP + ZeRO-3 + pipeline idle + DP sync + optimizer = the critical stage's iteration, exactly.
  CHECK((a.compute + a.tp_exposed + a.zero3_exposed + a.pipeline_idle + a.dp_exposed + a.optimizer).ps ==
        a.iteration.ps);
  CHECK(a.tp_exposed > Time{0});
  CHECK(a.dp_exposed > Time{0});
  // More micro-batches per iteration shrink the bubble share: ideal (p - 1) / m = 1/16 vs 1/64.
  const LlmResult b = run({"tp=2", "pp=2", "recompute=full", "zero_stage=1", "global_batch=128"});
  CHECK(a.ideal_bubble_fraction == Approx(1.0 / 16));
  CHECK(b.ideal_bubble_fraction == Approx(1.0 / 64));
  CHECK(double(b.pipeline_idle.ps) / double(b.iteration.ps) < double(a.pipeline_idle.ps) / double(a.iteration.ps));
  // Without tensor parallelism there is no TP communication; MFU and HFU are below 1 and HFU >= MFU (recompute).
  const LlmResult c = run({"tp=1", "pp=8", "recompute=full", "global_batch=64"});
  CHECK(c.tp_exposed == Time{0});
  CHECK(c.mfu > 0.0);
  CHECK(c.hfu < 1.0);
  CHECK(c.hfu > c.mfu);
}

TEST_CASE("the same job gives byte-identical reports") {
  const LlmJob j = resolve_llm_job(spec("dgx-a100", "llama2-7b", {"tp=4", "pp=2", "recompute=selective"}), cat());
  CHECK(llm_json(j, simulate_llm_iteration(j)).dump() == llm_json(j, simulate_llm_iteration(j)).dump());
}
