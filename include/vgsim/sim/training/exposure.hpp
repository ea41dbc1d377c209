// Exposed communication broken down by cause. The exposed time of a job (iteration - compute) is explained by
// measuring one part directly and removing the others one at a time, in a fixed order, re-simulating each time (a
// sequential counterfactual decomposition):
//   interference  the backward time NCCL kernels cost by holding SMs (TrainingResult::nccl_slowdown, measured in the
//                 run itself; the counterfactuals below keep it)
//   framework     waits beyond a group's last gradient: Horovod cycle ticks, negotiation, response order; DDP
//                 bucket order (job.framework_waits -> false)
//   host_staging  GPUDirect RDMA where the NIC allows it (NCCL_NET_GDR_LEVEL=SYS, GDR available) and no
//                 store-and-forward copies through host memory (SHM, sockets, PVRDMA)
//   socket_cpu    the socket threads' CPU limit (capacity of every "socket-threads" resource x 1000)
//   network       what is left: wire and link bandwidth, route and NCCL per-hop latency, the collectives' bytes
// Each counterfactual cause is the drop in exposed time when it is removed after the ones before it, and network is
// what is left, so the five parts sum to the exposed time exactly. A part can be negative when removing a cause lets
// a later collective contend more (reported as is). Costs one re-simulation per cause that can change the run
// (none for a GPUDirect DDP job without bucket-order waits).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::training {

// The causes in decomposition order (ExposureCause::name).
inline constexpr std::array<const char*, 5> kExposureCauses = {"interference", "framework", "host_staging",
                                                               "socket_cpu", "network"};

// Runs one job to its steady state (the step engine or the analytical fidelity).
using TrainingRunner = std::function<TrainingResult(const TrainingJob&)>;

// The five causes of `full.exposed_communication` for `job` (`full` = run(job)). One rank: all zero.
std::vector<ExposureCause> explain_exposure(const TrainingJob& job, const TrainingResult& full,
                                            const TrainingRunner& run);

// The cause that explains the most exposed time ("" when nothing is exposed).
std::string main_cause(const std::vector<ExposureCause>& causes);

}  // namespace vgsim::sim::training
