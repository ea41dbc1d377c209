// Exposed communication broken down by cause, with parts that cannot go negative. The exposed time of a job
// (iteration - compute) is explained by counterfactual re-simulations: each cause below can be removed from the job,
// and the job is re-run with every subset of the removable causes removed:
//   interference  NCCL kernels holding SMs while backward runs (job.nccl_sm_per_channel -> 0)
//   framework     waits beyond a group's last gradient: Horovod cycle ticks, negotiation, response order; DDP
//                 bucket order (job.framework_waits -> false)
//   host_staging  GPUDirect RDMA where the NIC allows it (NCCL_NET_GDR_LEVEL=SYS, GDR available) and no
//                 store-and-forward copies through host memory (SHM, sockets, PVRDMA)
//   socket_cpu    the socket threads' CPU limit (capacity of every "socket-threads" resource x 1000)
// and two lines that are not removable causes:
//   network       the exposed time left with every removable cause removed: wire and link bandwidth, route and
//                 NCCL per-hop latency, the collectives' bytes
//   interaction   what the causes do together beyond their parts (signed; 0 when the Shapley values are used)
// With v(S) = exposed(full) - exposed(S removed), the removable causes get their Shapley values (each cause's drop
// averaged over every order of removal; they sum to v(all) exactly) when every one is >= 0. When a cause's Shapley
// value is negative (removing it lets later collectives contend more, so removal orders disagree in sign), each cause
// gets what removing it alone saves, max(0, v({i})), and the rest of v(all) is the interaction line. Either way the
// six lines sum to the exposed time to the picosecond (largest-remainder rounding of the Shapley averages) and every
// line but interaction is >= 0. A cause that cannot change the run is not re-run (its part is 0: no NCCL slowdown,
// no group waits beyond its last gradient, no bytes through host memory, no socket threads); with k causes that can,
// the decomposition costs 2^k - 1 re-simulations (at most 15), run in parallel.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::training {

// The lines in report order (ExposureCause::name): the removable causes, then network and interaction.
inline constexpr std::array<const char*, 6> kExposureCauses = {"interference", "framework", "host_staging",
                                                               "socket_cpu",   "network",   "interaction"};

// Runs one job to its steady state (the step engine or the analytical fidelity). Must be safe to call from several
// threads at once (the counterfactuals run in parallel).
using TrainingRunner = std::function<TrainingResult(const TrainingJob&)>;

// The six lines of `full.exposed_communication` for `job` (`full` = run(job)). One rank or nothing exposed: all zero.
std::vector<ExposureCause> explain_exposure(const TrainingJob& job, const TrainingResult& full,
                                            const TrainingRunner& run);

// Shapley values of the players 0..k-1 of the game v (v[mask] for every subset mask of the k players, v[0] = 0),
// rounded to whole picoseconds so that they sum to v[all] exactly (largest remainder). k <= 8.
std::vector<std::int64_t> shapley_ps(const std::vector<std::int64_t>& v, std::size_t k);

// The cause that explains the most exposed time ("" when nothing is exposed); interaction is not a cause.
std::string main_cause(const std::vector<ExposureCause>& causes);

}  // namespace vgsim::sim::training
