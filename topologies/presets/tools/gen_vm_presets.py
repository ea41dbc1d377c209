#!/usr/bin/env python3
"""Writes the virtualized R750xa presets (r750xa-vm-*.json) from the bare-metal r750xa-1x-100gbe / -25gbe presets.

Run from anywhere: python3 topologies/presets/tools/gen_vm_presets.py. The output is deterministic (sorted keys are
not used; insertion order is fixed), so rerunning it leaves the files byte-identical. Every VM number carries a
source: docs/SOURCES.md#seed-systems (VMs of 32 vCPUs and 64 GB, ESXi 7.0.3) or an explicit [assumption].
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PRESETS = os.path.dirname(HERE)

ESXI = {"type": "esxi-7.0.3",
        "source": "docs/SOURCES.md#seed-systems: VMware ESXi 7.0.3 (vSphere 7 U2 + NVIDIA AI Enterprise, driver 470.82); overhead "
                  "parameters are the documented defaults of topologies/virtualization.cpp (compute 0.98 [derived], "
                  "pvrdma 5 us, vswitch 5 us, no-ATS P2P 0.7 [assumptions])"}
VM_SRC = "docs/SOURCES.md#seed-systems: VMs of 32 vCPUs and 64 GB RAM"


def base(speed):
    with open(os.path.join(PRESETS, f"r750xa-1x-{speed}.json")) as f:
        return json.load(f)


def vm(name, gpus, nic=None, vcpus=32, memory="64GiB", source=VM_SRC):
    out = {"name": name, "vcpus": vcpus, "memory": memory, "gpus": gpus}
    if nic is not None:
        out["nic"] = nic
    out["source"] = source
    return out


def vgpu(gpu, profile):
    return {"gpu": gpu, "mode": "vgpu", "profile": profile}


def mig(gpu, profile, placement):
    return {"gpu": gpu, "mode": "mig", "profile": profile, "placement": placement}


def nic(mode, port=0, ats=None, rdma_port=None):
    out = {"nic": "nic0", "port": port, "mode": mode}
    if ats is not None:
        out["ats"] = ats
    if rdma_port is not None:
        out["rdma_port"] = rdma_port
    return out


UNMAPPED_NOTE = ("The VF's RDMA device is not mapped to its network port (ibdev2netdev shows no netdev): its RoCE port "
                 "is not ACTIVE, so NCCL's IB transport finds no device and NCCL falls back to sockets silently on the "
                 "guest's interfaces with an address, here the vmxnet3 vNIC ens192 alone (the VF's netdev is not "
                 "configured [assumption]), through the host vswitch; NCCL believes it is a 10 Gb/s link (what "
                 "vmxnet3 reports). topologies/nccl_net_choice.cpp has the rules and their NCCL source lines.")


def write(name, description, hosts, vms, speed="100gbe", gpu_model=None, notes=None):
    c = base(speed)
    c["name"] = name
    c["description"] = description
    t = c["host_templates"]["r750xa"]
    if gpu_model:
        for g in t["gpus"]:
            g["model"] = gpu_model
        t["source"] += f" GPU model here: {gpu_model} (docs/SOURCES.md#seed-systems: 40 or 80 GB)."
    t["hypervisor"] = ESXI
    t["vms"] = vms
    if notes:
        t["vm_notes"] = notes
        t["notes"] = t["notes"] + " VM layout: " + t.pop("vm_notes")
    c["hosts"][0]["count"] = hosts
    with open(os.path.join(PRESETS, name + ".json"), "w") as f:
        json.dump(c, f, indent=2)
        f.write("\n")


def main():
    full = "A100-40C"
    # One host, several VMs.
    write("r750xa-vm-1x2gpu-nvlink",
          "1 x R750xa, one VM with 2 NVLink-bridged A100 PCIe 40GB as full-framebuffer vGPUs (A100-40C, multi-vGPU), "
          "ConnectX-6 Dx 100 GbE as an SR-IOV VF with ATS",
          1, [vm("vm0", [vgpu("gpu0", full), vgpu("gpu1", full)], nic("sriov", 0, True))],
          notes="vm0 holds the bridged pair gpu0-gpu1 (P2P over NVLink; PCIe P2P is unsupported under vGPU).")
    write("r750xa-vm-2x1gpu",
          "1 x R750xa, two VMs with one A100-40C vGPU each (gpu0, gpu1), each with its own SR-IOV VF (port 0 / 1, ATS)",
          1, [vm("vm0", [vgpu("gpu0", full)], nic("sriov", 0, True)),
              vm("vm1", [vgpu("gpu1", full)], nic("sriov", 1, True))],
          notes="gpu0 and gpu1 are NVLink-bridged, but they sit in different VMs, so their traffic uses the network.")
    write("r750xa-vm-2x2gpu",
          "1 x R750xa, two VMs with two NVLink-bridged A100-40C vGPUs each (gpu0+gpu1, gpu2+gpu3), SR-IOV VFs with ATS",
          1, [vm("vm0", [vgpu("gpu0", full), vgpu("gpu1", full)], nic("sriov", 0, True)),
              vm("vm1", [vgpu("gpu2", full), vgpu("gpu3", full)], nic("sriov", 1, True))],
          notes="vm1's GPUs are on socket 1 and the NIC on socket 0 (a NUMA note is attached to vm1).")
    # One VM and one full-profile vGPU per host, 1/2/4 hosts, 100/25 GbE, GPUDirect (SR-IOV + ATS) or PVRDMA.
    for hosts in (1, 2, 4):
        for speed in ("100gbe", "25gbe"):
            for kind, n, words in (("gdr", nic("sriov", 0, True), "SR-IOV VF with ATS (GPUDirect RDMA capable)"),
                                   ("pvrdma", nic("pvrdma", 0), "PVRDMA (host-staged, no GPUDirect)"),
                                   ("unmapped", nic("sriov", 0, True, "unmapped"),
                                    "SR-IOV VF with ATS whose RDMA device is not mapped to its port (NCCL falls "
                                    "back to sockets)")):
                gdr_note = "gpu0-NIC is PHB on this layout, so GPUDirect needs NCCL_NET_GDR_LEVEL=PHB."
                write(f"r750xa-vm-{hosts}x-{speed}-{kind}",
                      f"{hosts} x R750xa, one VM per host with one A100-40C vGPU (gpu0), ConnectX-6 Dx "
                      f"{speed[:-3]} GbE via {words}",
                      hosts, [vm("vm0", [vgpu("gpu0", full)], n)], speed=speed,
                      notes=gdr_note if kind == "gdr" else gdr_note + " " + UNMAPPED_NOTE if kind == "unmapped"
                      else None)
    # One VM per host holding the host's NVLink-bridged pair gpu0+gpu1 (two A100-40C, multi-vGPU P2P over NVLink as
    # in r750xa-vm-1x2gpu-nvlink), 2/4 hosts, 100/25 GbE, the NIC as a VF with ATS (GPUDirect) or PVRDMA (host
    # staged): issue 17's "4 hosts of A100 PCIe pairs with NVLink bridges" for the 7B fine-tuning design study.
    for hosts in (2, 4):
        for speed in ("100gbe", "25gbe"):
            for kind, n, words in (("gdr", nic("sriov", 0, True), "SR-IOV VF with ATS (GPUDirect RDMA capable)"),
                                   ("pvrdma", nic("pvrdma", 0), "PVRDMA (host-staged, no GPUDirect)")):
                gdr_note = (" gpu0/gpu1-NIC is PHB on this layout, so GPUDirect needs NCCL_NET_GDR_LEVEL=PHB."
                            if kind == "gdr" else "")
                write(f"r750xa-vm-{hosts}x2gpu-{speed}-{kind}",
                      f"{hosts} x R750xa, one VM per host with the NVLink-bridged pair gpu0+gpu1 as A100-40C vGPUs "
                      f"(multi-vGPU), ConnectX-6 Dx {speed[:-3]} GbE via {words}",
                      hosts, [vm("vm0", [vgpu("gpu0", full), vgpu("gpu1", full)], n)], speed=speed,
                      notes="vm0 holds the bridged pair gpu0-gpu1 (P2P over NVLink; PCIe P2P is unsupported under "
                            "vGPU); gpu2/gpu3 stay unused." + gdr_note)
    write("r750xa-vm-4x-100gbe-vmxnet3",
          "4 x R750xa, one VM per host with one A100-40C vGPU (gpu0), ConnectX-6 Dx 100 GbE behind the host vswitch "
          "via vmxnet3 (NCCL socket transport)",
          4, [vm("vm0", [vgpu("gpu0", full)], nic("vmxnet3", 0))])
    # MIG inference layouts on one A100 PCIe 80GB (MLPerf Inference v1.1 style: one MIG-backed VM per instance).
    mig_vm = dict(vcpus=8, memory="32GiB",
                  source="[assumption] 8 vCPUs and 32 GB per MIG VM (the seed VMs have 32 vCPUs/64 GB; seven of them "
                         "would overcommit the 128 threads of 2 x Xeon Gold 6338)")
    layouts = {
        "7g": [("7g.80gb", 0)],
        "2x3g": [("3g.40gb", 0), ("3g.40gb", 4)],
        "3x2g": [("2g.20gb", 0), ("2g.20gb", 2), ("2g.20gb", 4)],
        "7x1g": [("1g.10gb", s) for s in range(7)],
        "4g3g": [("4g.40gb", 0), ("3g.40gb", 4)],
        "4g2g1g": [("4g.40gb", 0), ("2g.20gb", 4), ("1g.10gb", 6)],
        "3g2g1g1g": [("3g.40gb", 4), ("2g.20gb", 0), ("1g.10gb", 2), ("1g.10gb", 3)],
        "2g2g2g1g": [("2g.20gb", 0), ("2g.20gb", 2), ("2g.20gb", 4), ("1g.10gb", 6)],
    }
    for key, insts in layouts.items():
        vms = [vm(f"mig{i}", [mig("gpu0", p, s)], nic("vmxnet3", 0), **mig_vm) for i, (p, s) in enumerate(insts)]
        desc = " + ".join(f"{p}@{s}" for p, s in insts)
        write(f"r750xa-vm-mig-{key}",
              f"1 x R750xa with A100 PCIe 80GB, gpu0 in MIG mode: {desc}, one VM per instance (vmxnet3 NIC)",
              1, vms, gpu_model="a100-pcie-80gb",
              notes="placements are MIG start slots (memory slices [start, start + size) of 8, NVIDIA MIG User Guide).")
    # Time-sliced vGPU sharing one GPU.
    for n, prof in ((2, "A100-20C"), (4, "A100-10C")):
        write(f"r750xa-vm-vgpu-{n}x{prof[5:].lower()}",
              f"1 x R750xa, gpu0 time-sliced among {n} VMs with {prof} vGPUs (best-effort scheduler), vmxnet3 NICs",
              1, [vm(f"vm{i}", [vgpu("gpu0", prof)], nic("vmxnet3", 0), vcpus=16, memory="32GiB",
                     source="[assumption] 16 vCPUs and 32 GB per VM (seed VMs: 32 vCPUs, 64 GB, docs/SOURCES.md#seed-systems)")
                  for i in range(n)])


if __name__ == "__main__":
    main()
