// Virtualization in the cluster model: a host's hypervisor and its overhead parameters (VirtOverheads), the VMs it runs
// (VmInfo) and the GPU endpoints ranks are placed on (GpuEndpoint: a bare-metal GPU, a passthrough GPU, a time-sliced
// vGPU or a MIG instance). Plain data read from the cluster JSON ("hypervisor", "vms"); validation and routing live in
// topologies/ (Cluster::vms(), Cluster::endpoints(), Cluster::endpoint_path()). Not a scheduler: time-slicing and MIG
// sharing of compute are sim/'s job; these structs only say what share each endpoint owns.
// Units: fractions in [0, 1], latencies as Time, capacities as Bandwidth (bytes/s per direction).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/nccl_net_choice.hpp"

namespace vgsim::topo {

// Per-hypervisor overhead parameters, each with the source it came from (the cluster file or a documented default).
struct VirtOverheads {
  std::string hypervisor = "none";  // "esxi-7.0.3", "kvm", "none"
  double compute_efficiency = 1.0;  // VM compute speed / bare metal (multiplies GPU throughput)
  std::string compute_source;
  Time extra_net_latency{0};           // added per VM side to every network path (virtual interrupt/IOMMU cost)
  Time pvrdma_latency{0};              // added per PVRDMA side to every network path (per message)
  Time vswitch_latency{0};             // added per vmxnet3 side (virtual NIC + virtual switch traversal)
  double no_ats_p2p_efficiency = 1.0;  // GPU<->NIC peer-to-peer without ATS, routed via the root complex: x PCIe
  Bandwidth vswitch_bandwidth;         // the host's virtual switch (all vmxnet3 traffic of the host)
  std::string source;                  // where the latency/efficiency/vswitch numbers came from
  // Each number's own source ("cluster file $.path" or the documented default's provenance): `vgsim params` lists
  // them as the job's virt.* facts.
  std::string extra_net_latency_source, pvrdma_latency_source, vswitch_latency_source, no_ats_p2p_efficiency_source,
      vswitch_bandwidth_source;
};

// One place a rank can run: a whole GPU (bare metal or passthrough), a time-sliced vGPU, or a MIG instance.
// A bare-metal host yields one endpoint per GPU in GPU order, so GPU index == endpoint index on bare-metal clusters.
struct GpuEndpoint {
  std::string name;                     // "host0/gpu1" (bare metal), "host0/vm0/gpu1" (passthrough, vGPU),
                                        // "host0/vm0/gpu1/3g.20gb@4" (MIG instance at start slot 4)
  std::uint32_t gpu = 0;                // index into Cluster::gpus()
  std::uint32_t host = 0;               // index into Cluster::hosts()
  std::string mode;                     // "bare-metal", "passthrough", "vgpu", "mig"
  std::string profile;                  // vGPU profile ("A100-20C") or MIG profile ("3g.20gb"); "" otherwise
  std::string vm;                       // VM name ("host0/vm0"); "" for bare metal
  std::uint32_t vm_index = UINT32_MAX;  // index into Cluster::vms(); UINT32_MAX for bare metal
  // MIG: SMs of the instance / SMs of the whole GPU (catalog counts; 3g.20gb = 42/108, and even 7g = 98/108, since
  // the 7-slice instance leaves 10 SMs unused). 1 for whole GPUs and time-sliced vGPUs.
  double compute_fraction = 1.0;
  // MIG: memory (and L2) slices / 8; vGPU: profile framebuffer / GPU memory. 1 for whole GPUs.
  double memory_fraction = 1.0;
  std::uint32_t sms = 0;                 // SMs the endpoint can use (all of the GPU's unless MIG)
  Bytes memory = 0;                      // framebuffer visible to the endpoint
  std::uint32_t mig_placement = 0;       // MIG start slot
  std::uint32_t mig_compute_slices = 0;  // MIG: of 7
  std::uint32_t mig_memory_slices = 0;   // MIG: of 8
  // Time-sliced vGPU: how many vGPUs share this GPU (this one included) and the equal share 1/sharers each gets when
  // all are busy (best-effort scheduling gives an idle neighbour's slices away). 1 and 1.0 otherwise.
  std::uint32_t time_slice_sharers = 1;
  double time_slice_share = 1.0;
};

struct VmInfo {
  std::string name;  // "host0/vm0"
  std::uint32_t host = 0;
  std::uint32_t vcpus = 0;
  Bytes memory = 0;
  std::vector<std::uint32_t> endpoints;  // indices into Cluster::endpoints(), in the VM's "gpus" order
  std::string nic_mode;                  // "vmxnet3", "pvrdma", "sriov", "passthrough"; "" when the VM has no NIC
  std::uint32_t nic = UINT32_MAX;        // index into Cluster::nics() (the port the VM uses); UINT32_MAX without a NIC
  bool ats = false;                      // Address Translation Services enabled on host, VM and NIC (sriov/passthrough)
  // What NCCL finds in the guest (nccl_net_choice.hpp): its network interfaces in scan order and its RDMA ports.
  // Declared in the VM's "interfaces" and its nic's "rdma_port", else the defaults of virtualization.cpp.
  std::vector<NetInterface> interfaces;
  std::vector<RdmaPort> rdma_ports;
  VirtOverheads overheads;         // of the VM's hypervisor
  std::vector<std::string> notes;  // modelling notes (e.g. "P2P only within NVLink bridge pairs")
};

}  // namespace vgsim::topo
