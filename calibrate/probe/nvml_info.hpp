// Optional NVML facts about a GPU (MIG mode and instances, virtualization mode, active NVLinks, driver version),
// loaded with dlopen("libnvidia-ml.so.1") so the probe neither links nor requires NVML. Every failure becomes a
// string in the JSON ("nvml": {"available": false, "error": ...}), never an error of the probe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace vgsim::probe {

// Driver version and whether NVML could be loaded.
nlohmann::ordered_json nvml_system_info();
// MIG mode (current/pending), MIG instances (name, uuid, memory), virtualization mode, active NVLink count of the
// GPU at `pci_bus_id` (CUDA's "0000:18:00.0" form).
nlohmann::ordered_json nvml_device_info(const std::string& pci_bus_id);

}  // namespace vgsim::probe
