// Exposed communication by cause: counterfactual re-simulations, Shapley values or each cause alone plus an
// interaction line (see include/vgsim/sim/training/exposure.hpp).
#include "vgsim/sim/training/exposure.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "vgsim/kernel/parallel_for.hpp"

namespace vgsim::sim::training {

namespace {

constexpr std::size_t kRemovable = 4;  // interference, framework, host_staging, socket_cpu
constexpr std::size_t kNetwork = 4, kInteraction = 5;

std::int64_t factorial(std::size_t n) { return n <= 1 ? 1 : static_cast<std::int64_t>(n) * factorial(n - 1); }

// floor(a / b) for b > 0 (C++ division truncates toward zero).
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }

// `job` with the removable causes in `removed` (bit c = kExposureCauses[c]) taken away.
TrainingJob without(const TrainingJob& job, unsigned removed) {
  TrainingJob j = job;
  if (removed & 1u) j.nccl_sm_per_channel = 0.0;
  if (removed & 2u) j.framework_waits = false;
  if (removed & 4u) {
    j.comm.path.gdr_disable = false;
    j.comm.path.gdr_level = topo::PathType::SYS;
    j.comm.staged_copies = false;
  }
  if (removed & 8u) {
    const auto it = job.comm.capacity_scale.find("socket-threads");
    j.comm.capacity_scale["socket-threads"] = (it == job.comm.capacity_scale.end() ? 1.0 : it->second) * 1000.0;
  }
  return j;
}

// Which removable causes can change the run (the others are dummies: their part is 0 and they are not re-run).
std::array<bool, kRemovable> can_change(const TrainingJob& job, const TrainingResult& full) {
  bool staged = false, sockets = false;
  for (const auto& u : full.resources) {
    staged = staged || u.kind == "memory";
    sockets = sockets || u.kind == "socket-threads";
  }
  bool waits = has_tick_phases(job);
  if (!waits) {
    const auto tensors = models::gradient_tensors(full.compute);
    for (const auto& g : job_groups(job, tensors, tick_origin(tensors, Time{0})))
      waits = waits || g.earliest_start > g.last_ready;
  }
  return {full.nccl_slowdown.ps > 0, waits, staged, sockets};
}

}  // namespace

std::vector<std::int64_t> shapley_ps(const std::vector<std::int64_t>& v, std::size_t k) {
  const std::size_t all = (std::size_t{1} << k) - 1;
  // phi_i x k! = sum over S not holding i of |S|! (k - |S| - 1)! (v(S + i) - v(S)): whole numbers.
  const std::int64_t denominator = factorial(k);
  std::vector<std::int64_t> scaled(k, 0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t s = 0; s <= all; ++s) {
      if (s & (std::size_t{1} << i)) continue;
      const auto size = static_cast<std::size_t>(__builtin_popcountll(s));
      scaled[i] += factorial(size) * factorial(k - size - 1) * (v[s | (std::size_t{1} << i)] - v[s]);
    }
  // The scaled values sum to k! x v(all); floors, then the picoseconds left go to the largest remainders (ties: the
  // earlier player), so the rounded values sum to v(all) exactly.
  std::vector<std::int64_t> phi(k), remainder(k);
  std::int64_t left = v[all];
  for (std::size_t i = 0; i < k; ++i) {
    phi[i] = floor_div(scaled[i], denominator);
    remainder[i] = scaled[i] - phi[i] * denominator;
    left -= phi[i];
  }
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t n = 0; left > 0 && n < k; ++n, --left) ++phi[order[n]];
  return phi;
}

std::vector<ExposureCause> explain_exposure(const TrainingJob& job, const TrainingResult& full,
                                            const TrainingRunner& run) {
  std::vector<ExposureCause> out;
  for (const char* name : kExposureCauses) out.push_back({name, Time{0}});
  if (job.ranks() <= 1 || full.exposed_communication.ps == 0) return out;
  // The players: the removable causes that can change the run, as bits of kExposureCauses.
  const auto active = can_change(job, full);
  std::vector<unsigned> player;
  for (std::size_t c = 0; c < kRemovable; ++c)
    if (active[c]) player.push_back(1u << c);
  const std::size_t k = player.size(), subsets = std::size_t{1} << k;
  // exposed[mask]: the exposed time with the players in mask removed, every subset re-simulated (in parallel; each
  // result is written by its index, so the answer does not depend on the schedule).
  std::vector<std::int64_t> exposed(subsets, full.exposed_communication.ps);
  parallel_for(subsets - 1, 0, [&](unsigned, std::size_t n) {
    const std::size_t mask = n + 1;
    unsigned removed = 0;
    for (std::size_t p = 0; p < k; ++p)
      if (mask & (std::size_t{1} << p)) removed |= player[p];
    exposed[mask] = run(without(job, removed)).exposed_communication.ps;
  });
  // The network line: what is left with every cause removed (never below 0; anything beyond goes to interaction).
  const std::int64_t total = full.exposed_communication.ps;
  const std::int64_t network = std::clamp<std::int64_t>(exposed[subsets - 1], 0, std::max<std::int64_t>(total, 0));
  std::vector<std::int64_t> v(subsets);
  for (std::size_t s = 0; s < subsets; ++s) v[s] = total - exposed[s];
  v[subsets - 1] = total - network;
  std::vector<std::int64_t> part = shapley_ps(v, k);
  if (std::any_of(part.begin(), part.end(), [](std::int64_t x) { return x < 0; }))
    for (std::size_t p = 0; p < k; ++p) part[p] = std::max<std::int64_t>(0, v[std::size_t{1} << p]);
  std::int64_t interaction = total - network;
  for (std::size_t p = 0; p < k; ++p) {
    const auto cause = static_cast<std::size_t>(__builtin_ctz(player[p]));
    out[cause].time = Time{part[p]};
    interaction -= part[p];
  }
  out[kNetwork].time = Time{network};
  out[kInteraction].time = Time{interaction};
  return out;
}

std::string main_cause(const std::vector<ExposureCause>& causes) {
  const ExposureCause* best = nullptr;
  for (const auto& c : causes)
    if (c.name != std::string(kExposureCauses[kInteraction]) && c.time.ps > 0 && (!best || c.time > best->time))
      best = &c;
  return best ? best->name : "";
}

}  // namespace vgsim::sim::training
