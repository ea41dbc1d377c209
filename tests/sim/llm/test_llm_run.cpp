// Large-model jobs: resolution (plan, memory, names), the iteration's breakdown adding up, what each parallelism
// costs moving in the direction its mechanism says, and determinism.
#include <catch2/catch.hpp>
#include <cmath>

#include "llm_fixtures.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/llm/llm_run.hpp"

using namespace vgsim;
using namespace vgsim::sim;
using namespace vgsim::sim::llm;
using namespace vgsim::sim::llm::test;

namespace {
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

TEST_CASE("blocking pipeline send/recv holds the sending GPU for each transfer (llm.pp_blocking)") {
  // Two DGX A100 nodes of selene, tp 8 x pp 2: one pipeline boundary over InfiniBand, 8 micro-batches (1F1B).
  const auto run = [](bool blocking) {
    training::JobSpec s = spec("selene-a100-384", "megatron-18.4b",
                               {"tp=8", "pp=2", "micro_batch=1", "global_batch=8", "recompute=full",
                                std::string("llm.pp_blocking=") + (blocking ? "true" : "false")},
                               2);
    s.gpus_per_node = 8;
    return simulate_llm_iteration(resolve_llm_job(s, cat()));
  };
  const LlmResult b = run(true), n = run(false);
  Time boundary{0};  // the boundary's transfer: the 1/tp slice send/recv plus the scatter/gather allgather
  for (const auto& c : b.comms)
    if (c.what.rfind("pp ", 0) == 0) boundary += c.time;
  REQUIRE(boundary > Time{0});
  // Blocking: stage 0's forward and stage 1's backward each carry the transfer; non-blocking: no op does.
  CHECK(b.forward_p2p[0] == boundary);
  CHECK(b.backward_p2p[1] == boundary);
  CHECK(b.forward_p2p[1] == Time{0});
  CHECK(b.backward_p2p[0] == Time{0});
  CHECK(n.forward_p2p[0] == Time{0});
  CHECK(b.forward[0] == n.forward[0] + boundary);
  // The transfers are pipeline time, not compute: compute is the same, the parts still add up exactly.
  CHECK(b.compute == n.compute);
  CHECK((b.compute + b.tp_exposed + b.zero3_exposed + b.pipeline_idle + b.dp_exposed + b.optimizer).ps ==
        b.iteration.ps);
  // Two stages, m = 8 (stage 0: forward F + L, backward B; stage 1: forward F, backward B + L; L = the transfer):
  // blocking, stage 1's backward i ends x_i, stage 0's backward i runs after it (B), its forward i + 2 next (F + L),
  // and stage 1's forward i + 2 (F) and backward (B + L) follow: x_{i+1} - x_i = F + B + L. Non-blocking, the two
  // edges of that cycle each wait L but stage 1 runs forward i + 1 meanwhile, which gives the same period F + B + L.
  // So the two differ only in the ramp up and down, by less than the m transfers a blocking stage carries.
  CHECK(b.iteration != n.iteration);
  CHECK(std::abs(double(b.iteration.ps - n.iteration.ps)) < 8.0 * double(boundary.ps));
}
