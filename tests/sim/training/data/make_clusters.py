#!/usr/bin/env python3
"""Writes the test clusters of tests/sim/training from the shipped presets (run from this folder).
Each output names what it changed and why in "description"; everything else is the preset's, with its sources."""
import copy, json, os
P = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "topologies", "presets")

def load(name):
    with open(os.path.join(P, name + ".json")) as f:
        return json.load(f)

def set_gpu(doc, model):
    for t in doc["host_templates"].values():
        for g in t["gpus"]:
            g["model"] = model

def write(name, doc):
    doc["name"] = name
    with open(name + ".json", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

# DGX A100 with the 40GB SXM part (DLE TF and Transformer rows, training-cases.csv): same NVSwitch box.
d = load("dgx-a100"); set_gpu(d, "a100-sxm-40gb")
d["description"] = "dgx-a100 preset with A100 SXM 40GB GPUs (DGX A100 320GB variant) for the DLE 40GB rows"
write("test-dgx-a100-40gb", d)

# One R750xa-like host with A100 PCIe 80GB, no NVLink bridge (Lambda's 2x A100 PCIe row says interconnect 'pcie').
d = load("r750xa-1x-100gbe"); set_gpu(d, "a100-pcie-80gb")
for t in d["host_templates"].values(): t["nvlink_bridges"] = []
d["description"] = "r750xa-1x-100gbe with A100 PCIe 80GB and no NVLink bridges (Lambda 1x/2x A100 PCIe 80GB rows)"
write("test-1x-a100pcie80", d)

# One host with H100 PCIe (Lambda row), no bridge.
d = load("r750xa-1x-100gbe"); set_gpu(d, "h100-pcie")
for t in d["host_templates"].values(): t["nvlink_bridges"] = []
d["description"] = "r750xa-1x-100gbe with H100 PCIe and no NVLink bridges (Lambda H100 PCIe row)"
write("test-1x-h100pcie", d)

# Horovod 2017 README cluster: 4 servers x 4 Pascal GPUs, 25 Gbit/s RoCE-capable network (docs/SOURCES.md#horovod-tcp-rdma).
# ASSUMPTION (not stated by the source): P100 PCIe 16GB, no NVLink, Xeon Gold 6148 stand-in CPUs, one 25 GbE
# port per server, GPUs on CPU root ports as in the R750xa preset.
d = load("r750xa-4x-25gbe"); set_gpu(d, "p100-pcie-16gb")
for t in d["host_templates"].values():
    t["nvlink_bridges"] = []
    t["cpu"] = "xeon-gold-6148"
    for n in t["nics"]:
        n["ports"] = 1
        n["source"] = "ASSUMPTION: one cabled 25 GbE port per server (Horovod README 2017: 25 Gbit/s network)"
d["description"] = ("Horovod README 2017 cluster (4 x 4 Pascal, 25 GbE RoCE): P100 PCIe, no NVLink, one 25 GbE port, "
                    "Xeon Gold 6148 stand-in; layout ASSUMED (the README does not give it)")
write("test-hvd17-4x4-p100-25gbe", d)
