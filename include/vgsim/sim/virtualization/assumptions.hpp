// The virtualization assumptions behind a report: for the endpoints a job or an inference run uses, the hypervisor and
// its overhead values with their sources, each endpoint's mode (bare metal, passthrough, vGPU profile, MIG profile,
// SM/memory shares), the VM NIC mode, ATS and whether GPUDirect RDMA is in use, the vGPU scheduler (policy, slice,
// switch cost, sources) and the modelling rules (MIG isolation, communication outside the GPU slice). Plain data as
// JSON plus a human block for summaries. Deterministic. Not a model: it only states what the simulation used.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::sim::virt {

Json virtualization_assumptions(const topo::Cluster& cluster, const std::vector<std::uint32_t>& endpoints,
                                const topo::PathOptions& path, const VgpuSchedulerOptions& vgpu);
// "  virtualization: ..." lines (always printed, "bare metal" included).
void write_virtualization_summary(std::ostream& out, const Json& assumptions);

}  // namespace vgsim::sim::virt
