// Plan search over tensor / pipeline / data / ZeRO plans (include/vgsim/sim/llm/plan_search.hpp).
#include "vgsim/sim/llm/plan_search.hpp"

#include <algorithm>
#include <cstdio>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/moe.hpp"

namespace vgsim::sim::llm {

namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> d;
  for (std::int64_t k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

// The least recomputation (none, selective, full) and ZeRO stage (the job's ZeRO candidates) with which `base` fits.
PlanOutcome first_fit(const LlmJob& job, models::ParallelPlan base, const std::vector<int>& zero_stages) {
  PlanOutcome out;
  out.plan = base;
  for (int z : zero_stages) {
    if (z > 0 && base.dp < 2) continue;
    for (auto rc : {models::Recompute::None, models::Recompute::Selective, models::Recompute::Full}) {
      base.zero_stage = z;
      base.recompute = rc;
      try {
        const LlmJob j = with_plan(job, base);
        out.plan = base;
        out.fits = true;
        out.why_not.clear();
        return out;
      } catch (const InputError& e) {
        if (out.why_not.empty() || rc == models::Recompute::Full) out.why_not = e.what(), out.plan = base;
      }
    }
  }
  return out;
}

// MoE: every ep dividing both the experts and dp (Megatron-Core's rule, moe.hpp); a dense shape keeps the job's ep (1).
std::vector<std::int64_t> ep_choices(const LlmJob& job, std::int64_t dp) {
  if (!models::is_moe(job.shape)) return {job.plan.ep};
  std::vector<std::int64_t> out;
  for (std::int64_t e : divisors(dp))
    if (job.shape.experts % e == 0) out.push_back(e);
  return out;
}

std::vector<models::ParallelPlan> candidates(const LlmJob& job) {
  std::vector<models::ParallelPlan> out;
  const std::int64_t ranks = job.ranks();
  for (std::int64_t tp : divisors(job.platform.gpus_per_node))
    for (std::int64_t pp : divisors(job.shape.layers)) {
      if (ranks % (tp * pp) != 0) continue;
      for (std::int64_t mb : {1, 2, 4, 8})
        for (auto sched : {models::PipelineSchedule::OneFOneB, models::PipelineSchedule::Interleaved}) {
          if (sched == models::PipelineSchedule::Interleaved && pp < 2) continue;
          models::ParallelPlan p = job.plan;
          p.tp = tp, p.pp = pp, p.dp = ranks / (tp * pp), p.micro_batch = mb, p.schedule = sched;
          p.virtual_stages = sched == models::PipelineSchedule::Interleaved ? 2 : 1;
          // An MoE shape with tp > 1 needs sequence parallelism (Megatron-LM's rule, moe.hpp).
          p.sequence_parallel = (job.plan.sequence_parallel || models::is_moe(job.shape)) && tp > 1;
          for (std::int64_t ep : ep_choices(job, p.dp)) {
            p.ep = ep;
            out.push_back(p);
          }
        }
    }
  return out;
}

std::string plan_text(const models::ParallelPlan& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "tp %lld pp %lld dp %lld%s mb %lld %s%s zero %d recompute %s",
                static_cast<long long>(p.tp), static_cast<long long>(p.pp), static_cast<long long>(p.dp),
                p.ep > 1 ? (" ep " + std::to_string(p.ep)).c_str() : "", static_cast<long long>(p.micro_batch),
                models::to_string(p.schedule),
                p.virtual_stages > 1 ? (" x" + std::to_string(p.virtual_stages)).c_str() : "", p.zero_stage,
                models::to_string(p.recompute));
  return buf;
}

}  // namespace

std::vector<PlanOutcome> search_plans(const LlmJob& job) {
  std::vector<PlanOutcome> fit, misfit;
  for (const models::ParallelPlan& c : candidates(job)) {
    PlanOutcome o = first_fit(job, c, {0, 1});
    if (!o.fits) o = first_fit(job, c, {3});
    if (o.fits) {
      // A plan that fits may still be refused by a resource guard (a collective past --max-transfers): it is then
      // one more plan that does not make the ranking, with the guard's message, not the end of the search.
      try {
        o.result = simulate_llm_iteration(with_plan(job, o.plan));
      } catch (const InputError& e) {
        o.fits = false;
        o.why_not = std::string("not simulated: ") + e.what();
        misfit.push_back(std::move(o));
        continue;
      }
      fit.push_back(std::move(o));
    } else {
      misfit.push_back(std::move(o));
    }
  }
  std::stable_sort(fit.begin(), fit.end(), [](const PlanOutcome& a, const PlanOutcome& b) {
    if (a.result.iteration != b.result.iteration) return a.result.iteration < b.result.iteration;
    return a.plan.tp * a.plan.pp < b.plan.tp * b.plan.pp;
  });
  fit.insert(fit.end(), misfit.begin(), misfit.end());
  return fit;
}

void write_plan_search(std::ostream& os, const LlmJob& job, const std::vector<PlanOutcome>& outcomes) {
  std::size_t n_fit = 0;
  for (const auto& o : outcomes) n_fit += o.fits;
  os << job.shape.name << " on " << job.ranks() << " GPUs of " << job.platform.cluster->name() << ", global batch "
     << job.plan.global_batch << ": " << outcomes.size() << " plans tried, " << n_fit << " fit in " << job.memory_device
     << "\n";
  // An MoE shape's plans name ep (a wider plan column) and have an EP column.
  const bool moe = models::is_moe(job.shape);
  const int width = moe ? 66 : 58;
  os << "rank  plan" << std::string(static_cast<std::size_t>(width) - 2, ' ')
     << "iteration      tokens/s   MFU    bubble+p2p  tp comm  " << (moe ? "ep comm  " : "") << "dp sync  memory\n";
  std::size_t rank = 0;
  for (const auto& o : outcomes) {
    if (!o.fits || rank >= 20) break;
    const LlmResult& r = o.result;
    char buf[320], ep[32] = "";
    if (moe) std::snprintf(ep, sizeof ep, "%6.1f ms ", r.ep_exposed.ms());
    std::snprintf(buf, sizeof buf, "%4zu  %-*s %10.1f ms %12.0f %5.1f%% %9.1f ms %6.1f ms %s%6.1f ms %5.1f GiB\n",
                  ++rank, width, plan_text(o.plan).c_str(), r.iteration.ms(), r.tokens_per_s, 100.0 * r.mfu,
                  r.pipeline_idle.ms(), r.tp_exposed.ms(), ep, r.dp_exposed.ms(), r.memory.total() / double(1 << 30));
    os << buf;
  }
  if (n_fit == 0) {
    os << "no plan fits; the first tried needs:\n  " << (outcomes.empty() ? "" : outcomes.front().why_not) << "\n";
  }
}

Json plan_search_json(const LlmJob& job, const std::vector<PlanOutcome>& outcomes) {
  Json arr = Json::array();
  for (const auto& o : outcomes) {
    Json j = {{"plan", plan_text(o.plan)}, {"fits", o.fits}};
    if (o.fits) {
      j["iteration_us"] = static_cast<double>(o.result.iteration.ps) / 1e6;
      j["tokens_per_s"] = o.result.tokens_per_s;
      j["mfu"] = o.result.mfu;
      j["memory_bytes"] = o.result.memory.total();
    } else {
      j["why_not"] = o.why_not;
    }
    arr.push_back(j);
  }
  return Json{
      {"workload", job.shape.name}, {"gpus", job.ranks()}, {"global_batch", job.plan.global_batch}, {"plans", arr}};
}

}  // namespace vgsim::sim::llm
