// Expert parallelism on the engine (moe_groups.hpp, llm_run.hpp): Megatron-Core's EP and expert-data-parallel groups,
// the all-to-alls as their own exposed term "EP" in an exact breakdown, slower across a slower NIC, expert gradients
// reduced over dp / ep ranks; and a dense shape's report byte-identical to the one before MoE existed.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "llm_fixtures.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/llm/llm_run.hpp"
#include "vgsim/sim/llm/moe_groups.hpp"
#include "vgsim/workloads/models/moe.hpp"

using namespace vgsim;
using namespace vgsim::sim;
using namespace vgsim::sim::llm;
using namespace vgsim::sim::llm::test;

namespace {
// A small MoE shape (4 layers, h 2048, 16 heads, f 8192 GeLU, 16 experts, top-2, s 2048) that fits an A100-80GB with
// any ep; the job is resolved with a dense shape of the shapes file, then given this shape and the plan.
models::TransformerShape small_moe() {
  models::TransformerShape m;
  m.name = "small-moe";
  m.layers = 4, m.hidden = 2048, m.heads = 16, m.kv_heads = 16, m.ffn_hidden = 8192, m.vocab = 32000, m.seq = 2048;
  m.experts = 16, m.top_k = 2;
  return m;
}
LlmResult run_moe(const std::string& cluster, std::int64_t ep, std::int64_t zero_stage = 0) {
  LlmJob j = resolve_llm_job(spec(cluster, "megatron-1.7b", {"tp=1", "pp=1", "global_batch=32"}), cat(), false);
  j.shape = small_moe();
  models::ParallelPlan p = j.plan;
  p.ep = ep;
  p.zero_stage = static_cast<int>(zero_stage);
  return simulate_llm_iteration(with_plan(j, p));
}
const CommRecord* comm_named(const LlmResult& r, const std::string& prefix) {
  for (const auto& c : r.comms)
    if (c.what.rfind(prefix, 0) == 0) return &c;
  return nullptr;
}
}  // namespace

TEST_CASE("expert-parallel groups are carved out of the data-parallel ranks of one TP rank") {
  models::ParallelPlan p;
  p.tp = 2, p.dp = 4, p.ep = 2;  // 8 ranks, rank = dp x 2 + tp
  // EP groups: dp ranks {0, 1} and {2, 3} of each TP rank: {0, 2}, {1, 3}, {4, 6}, {5, 7} (grouped by dp block, then
  // tp).
  CHECK(expert_groups(p) == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  // Expert-data-parallel groups: the same dp rank modulo ep, dp / ep = 2 ranks each: {0, 4}, {1, 5}, {2, 6}, {3, 7}.
  CHECK(expert_data_groups(p) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // pp stages repeat the pattern tp x dp = 8 ranks later.
  p.pp = 2;
  CHECK(expert_groups(p).size() == 8);
  CHECK(expert_groups(p)[4] == std::vector<std::int64_t>{8, 10});
}

TEST_CASE("EP all-to-alls are their own exposed term, slower across hosts and on a slower NIC") {
  // r750xa-80gb-4x-*: 4 hosts of 4 A100-80GB (NVLink-bridged pairs); tp 1, dp 16. ep 8 spans two hosts, ep 2 stays
  // on a bridged pair.
  const LlmResult fast = run_moe("r750xa-80gb-4x-100gbe", 8), slow = run_moe("r750xa-80gb-4x-25gbe", 8);
  // compute + TP + ZeRO-3 + EP + pipeline idle + DP sync + optimizer = the iteration, exactly.
  CHECK((slow.compute + slow.tp_exposed + slow.zero3_exposed + slow.ep_exposed + slow.pipeline_idle + slow.dp_exposed +
         slow.optimizer)
            .ps == slow.iteration.ps);
  CHECK(fast.ep_exposed > Time{0});
  // Each rank sends (b s) k h x 2 B = 2048 x 2 x 2048 x 2 = 16 MiB per all-to-all, half of it to the other host: a
  // quarter of the NIC bandwidth takes longer (not 4x: part of the time is PCIe / NVLink and latency).
  CHECK(slow.ep_exposed > fast.ep_exposed);
  const CommRecord* a2a = comm_named(slow, "ep alltoall dispatch");
  REQUIRE(a2a != nullptr);
  CHECK(a2a->bytes == 16 * 1024 * 1024);
  CHECK(a2a->op == "alltoall");
  // The forward dispatch once per layer and micro-batch: 4 layers x 32 / 16 = 2 micro-batches per replica.
  CHECK(a2a->count == 4 * 2);
  // EP inside a host (ep 2 on the NVLink-bridged pair) exposes less than EP across the 25 GbE hosts.
  CHECK(run_moe("r750xa-80gb-4x-25gbe", 2).ep_exposed < slow.ep_exposed);
  // Same compute either way: the EP term is communication only.
  CHECK(fast.compute == slow.compute);
  std::printf(
      "EP exposed per iteration: ep 8 over 100 GbE %.3f ms, over 25 GbE %.3f ms; ep 2 on a bridged pair %.3f ms\n",
      fast.ep_exposed.ms(), slow.ep_exposed.ms(), run_moe("r750xa-80gb-4x-25gbe", 2).ep_exposed.ms());
}

TEST_CASE("expert gradients are reduced over the expert-data-parallel group, the rest over dp") {
  const models::TransformerShape m = small_moe();
  // ep 2, dp 16: expert gradients over dp / ep = 8 ranks; each rank holds 4 layers x 16/2 experts x 2 x 2048 x 8192
  // (+ biases) expert parameters, 2 B each.
  const LlmResult r = run_moe("r750xa-80gb-4x-100gbe", 2);
  const CommRecord* expert = comm_named(r, "expert-dp gradient allreduce");
  REQUIRE(expert != nullptr);
  CHECK(expert->bytes == static_cast<Bytes>(4.0 * models::expert_params_per_layer(m) / 2.0 * 2.0));
  const CommRecord* dense = comm_named(r, "dp gradient allreduce");
  REQUIRE(dense != nullptr);
  const models::ParameterCount c = models::parameter_count(m);
  // The rest: embedding + 4 (layer - experts) + final norm + the tied head's copy, 2 B each.
  const double rest = 2.0 * c.embedding + 4.0 * (c.per_layer - models::expert_params_per_layer(m)) + c.final_norm;
  CHECK(dense->bytes == static_cast<Bytes>(rest * 2.0));
  // ep 16 = dp: every expert lives on one rank only, nothing to reduce.
  CHECK(comm_named(run_moe("r750xa-80gb-4x-100gbe", 16), "expert-dp gradient allreduce") == nullptr);
  // ZeRO-1: the expert part is reduce-scattered and gathered over its own group too.
  CHECK(comm_named(run_moe("r750xa-80gb-4x-100gbe", 2, 1), "expert-dp gradient reduce-scatter") != nullptr);
}

TEST_CASE("a dense shape's report is byte-identical to the one before MoE existed") {
  // tests/sim/llm/data/llama2-7b-dense.json is `vgsim train --cluster dgx-a100 --workload llama2-7b --set tp=4 pp=2
  // recompute=selective zero_stage=1 --json` from main at c3d188f, before any MoE code (its checkout's path replaced by
  // @DATA_DIR@). The MoE hooks add exactly 0
  // for experts = 1, so every number, name and source must come out the same, byte for byte. (If the layer model
  // changes on purpose, regenerate the file with that command and say so in the commit.) Regenerated once since, for
  // the recomputed layer in memory_per_gpu (issue 17 item 4): memory_bytes.activations and .total grew by one layer's
  // recomputed attention scores, softmax and mask, 5 a s / (h t) s b h = 40 x 4096 x 4096 = 671,088,640 B; nothing
  // else changed. And once for a new NCCL constant in its parameter list (nccl.bw_factor.nvls_tree_ratio_coeff,
  // session 33): one entry added, nothing else changed. And once for the NCCL constants' source strings (issue 38:
  // they cite docs/SOURCES.md#nccl-tuning instead of a file outside the repository): only "source" texts changed.
  // And once for the NCCL knobs nccl.net, nccl.socket_ifname and nccl.gdr_read (issue 39): three entries added. And
  // once for nccl.socket_nthreads, nccl.nsocks_perthread and capacity_scale.socket-stream (issue 39 item 3): three
  // entries added, nothing else changed. And once for the ring's slices (issue 39: a chunk leaves as 2 slices, each
  // forwarded on arrival): the TP allreduce times and what depends on them changed, no name or source.
  const LlmJob j =
      resolve_llm_job(spec("dgx-a100", "llama2-7b", {"tp=4", "pp=2", "recompute=selective", "zero_stage=1"}), cat());
  std::ifstream f(std::string(VGSIM_DATA_DIR) + "/tests/sim/llm/data/llama2-7b-dense.json");
  REQUIRE(f.good());
  std::stringstream read;
  read << f.rdbuf();
  // The file names the cluster preset under its checkout as @DATA_DIR@ (the report gives the absolute path).
  std::string golden = read.str();
  const std::string mark = "@DATA_DIR@";
  for (std::size_t at = golden.find(mark); at != std::string::npos; at = golden.find(mark))
    golden.replace(at, mark.size(), VGSIM_DATA_DIR);
  CHECK(llm_json(j, simulate_llm_iteration(j)).dump(2) + "\n" == golden);
}

TEST_CASE("an MoE job resolves ep and the capacity factor from --set and refuses bad ones") {
  const auto error_of = [](std::vector<std::string> sets) {
    try {
      resolve_llm_job(spec("aws-p4de-2x8xa100", "mixtral-8x7b", std::move(sets)), cat());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::vector<std::string> ok = {"tp=2", "pp=2", "ep=4", "sequence_parallel=true", "recompute=full"};
  const LlmJob j = resolve_llm_job(spec("aws-p4de-2x8xa100", "mixtral-8x7b", ok), cat());
  CHECK(j.plan.ep == 4);
  CHECK(j.plan.moe_capacity_factor == models::kMoeDropless);
  // 16 GPUs / (tp 2 x pp 2) = dp 4; ep 3 divides neither the 8 experts nor dp 4.
  CHECK(error_of({"tp=2", "pp=2", "ep=3", "sequence_parallel=true"}).find("ep") != std::string::npos);
  // ep 8 divides the experts but not dp 4.
  CHECK(error_of({"tp=2", "pp=2", "ep=8", "sequence_parallel=true"}).find("dp = 4") != std::string::npos);
  CHECK(error_of({"tp=2", "pp=2", "ep=4", "sequence_parallel=true", "llm.moe_capacity_factor=big"})
            .find("llm.moe_capacity_factor") != std::string::npos);
  std::vector<std::string> cf = ok;
  cf.push_back("llm.moe_capacity_factor=1.5");
  CHECK(resolve_llm_job(spec("aws-p4de-2x8xa100", "mixtral-8x7b", cf), cat()).plan.moe_capacity_factor == 1.5);
}
