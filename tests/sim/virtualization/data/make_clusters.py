#!/usr/bin/env python3
# Writes the A100-40GB MIG test clusters (one R750xa, gpu0 in MIG mode with ONE instance of each profile of the MISO
# table, docs/SOURCES.md#mig-vgpu) from the r750xa-vm-mig-7g preset: the GPU model becomes a100-pcie-40gb.
import json, os
here = os.path.dirname(os.path.abspath(__file__))
src = json.load(open(os.path.join(here, "../../../../topologies/presets/r750xa-vm-mig-7g.json")))
for prof in ["1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"]:
    d = json.loads(json.dumps(src))
    d["name"] = "test-a100-40gb-mig-" + prof.split(".")[0]
    d["description"] = "test: one R750xa with A100 PCIe 40GB, gpu0 in MIG mode with one " + prof + " instance (MISO table A4)"
    t = d["host_templates"]["r750xa"]
    for g in t["gpus"]:
        g["model"] = "a100-pcie-40gb"
    t["vms"] = t["vms"][:1]
    t["vms"][0]["gpus"][0]["profile"] = prof
    t["vms"][0]["gpus"][0]["placement"] = 0
    json.dump(d, open(os.path.join(here, d["name"] + ".json"), "w"), indent=2)
