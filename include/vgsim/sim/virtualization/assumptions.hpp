// The virtualization assumptions behind a report: for the endpoints a job or an inference run uses, the hypervisor and
// its overhead values with their sources, each endpoint's mode (bare metal, passthrough, vGPU profile, MIG profile,
// SM/memory shares), the VM NIC mode, ATS and whether GPUDirect RDMA is in use, the vGPU scheduler (policy, slice,
// switch cost, sources) and the modelling rules (MIG isolation, communication outside the GPU slice). Plain data as
// JSON plus a human block for summaries. Deterministic. Not a model: it only states what the simulation used.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::sim::virt {

Json virtualization_assumptions(const topo::Cluster& cluster, const std::vector<std::uint32_t>& endpoints,
                                const topo::PathOptions& path, const VgpuSchedulerOptions& vgpu);
// One line, at most about 160 characters: "virtualization: esxi-7.0.3, 4 x passthrough, NIC sriov, ATS on, VM compute
// x0.98, GDR off (sources: vgsim params virt.*)"; "virtualization: bare metal (...)" without VMs. The values' sources
// are the job's virt.* facts (virtualization_facts) and parameters, which `vgsim params` lists; the rules stay in the
// JSON (train --json).
std::string virtualization_line(const Json& assumptions);
// "  " + virtualization_line + newline (always printed, "bare metal" included).
void write_virtualization_summary(std::ostream& out, const Json& assumptions);

// A value the simulation took from the cluster's virtualization layer, with its source (shown, not set).
struct VirtFact {
  std::string name;  // "virt.pvrdma_latency", ...
  Json value;
  std::string source;
};
// The virt.* facts of the VM holding `endpoint` (hypervisor, NIC mode, ATS, each overhead with its own source); empty
// on bare metal. virt.compute_efficiency is a parameter (sim/training/job_parameters.cpp), not among them.
std::vector<VirtFact> virtualization_facts(const topo::Cluster& cluster, std::uint32_t endpoint);

}  // namespace vgsim::sim::virt
