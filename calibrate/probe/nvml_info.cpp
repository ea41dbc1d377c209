// NVML via dlopen (see nvml_info.hpp). The few NVML declarations needed are repeated here from NVML's public API
// (nvml.h, stable ABI) because the header is not part of the CUDA toolkit on every machine.
#include "nvml_info.hpp"

#include <dlfcn.h>

namespace vgsim::probe {
namespace {

using nvmlReturn = int;
using nvmlDevice = void*;
struct nvmlMemory {
  unsigned long long total, free, used;
};

struct Nvml {
  bool ok = false;
  std::string error;
  nvmlReturn (*init)() = nullptr;
  const char* (*error_string)(nvmlReturn) = nullptr;
  nvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn (*by_pci)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*mig_mode)(nvmlDevice, unsigned*, unsigned*) = nullptr;
  nvmlReturn (*max_mig)(nvmlDevice, unsigned*) = nullptr;
  nvmlReturn (*mig_by_index)(nvmlDevice, unsigned, nvmlDevice*) = nullptr;
  nvmlReturn (*name)(nvmlDevice, char*, unsigned) = nullptr;
  nvmlReturn (*uuid)(nvmlDevice, char*, unsigned) = nullptr;
  nvmlReturn (*memory)(nvmlDevice, nvmlMemory*) = nullptr;
  nvmlReturn (*virt_mode)(nvmlDevice, int*) = nullptr;
  nvmlReturn (*nvlink_state)(nvmlDevice, unsigned, int*) = nullptr;

  std::string err(nvmlReturn rc) const {
    return error_string ? std::string(error_string(rc)) : "NVML error " + std::to_string(rc);
  }
};

template <class F>
void load(void* lib, const char* sym, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, sym));
}

const Nvml& nvml() {
  static const Nvml n = [] {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      n.error = std::string("dlopen(libnvidia-ml.so.1): ") + (e ? e : "failed");
      return n;
    }
    load(lib, "nvmlInit_v2", n.init);
    load(lib, "nvmlErrorString", n.error_string);
    load(lib, "nvmlSystemGetDriverVersion", n.driver_version);
    load(lib, "nvmlDeviceGetHandleByPciBusId_v2", n.by_pci);
    load(lib, "nvmlDeviceGetMigMode", n.mig_mode);
    load(lib, "nvmlDeviceGetMaxMigDeviceCount", n.max_mig);
    load(lib, "nvmlDeviceGetMigDeviceHandleByIndex", n.mig_by_index);
    load(lib, "nvmlDeviceGetName", n.name);
    load(lib, "nvmlDeviceGetUUID", n.uuid);
    load(lib, "nvmlDeviceGetMemoryInfo", n.memory);
    load(lib, "nvmlDeviceGetVirtualizationMode", n.virt_mode);
    load(lib, "nvmlDeviceGetNvLinkState", n.nvlink_state);
    if (!n.init || !n.by_pci) {
      n.error = "libnvidia-ml.so.1 lacks nvmlInit_v2 / nvmlDeviceGetHandleByPciBusId_v2";
      return n;
    }
    const nvmlReturn rc = n.init();
    if (rc != 0) {
      n.error = "nvmlInit_v2: " + n.err(rc);
      return n;
    }
    n.ok = true;
    return n;
  }();
  return n;
}

// NVML's nvmlGpuVirtualizationMode_t values (nvml.h).
std::string virt_name(int mode) {
  switch (mode) {
    case 0:
      return "none";
    case 1:
      return "passthrough";
    case 2:
      return "vgpu";
    case 3:
      return "host_vgpu";
    case 4:
      return "host_vsga";
    default:
      return "unknown(" + std::to_string(mode) + ")";
  }
}

}  // namespace

nlohmann::ordered_json nvml_system_info() {
  const Nvml& n = nvml();
  nlohmann::ordered_json j;
  j["available"] = n.ok;
  if (!n.ok) {
    j["error"] = n.error;
    return j;
  }
  char buf[96] = {0};
  if (n.driver_version && n.driver_version(buf, sizeof buf) == 0) j["driver_version"] = buf;
  return j;
}

nlohmann::ordered_json nvml_device_info(const std::string& pci_bus_id) {
  const Nvml& n = nvml();
  nlohmann::ordered_json j;
  j["available"] = n.ok;
  if (!n.ok) {
    j["error"] = n.error;
    return j;
  }
  nvmlDevice dev = nullptr;
  nvmlReturn rc = n.by_pci(pci_bus_id.c_str(), &dev);
  if (rc != 0) {
    j["error"] = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + n.err(rc);
    return j;
  }
  if (n.mig_mode) {
    unsigned current = 0, pending = 0;
    rc = n.mig_mode(dev, &current, &pending);
    if (rc == 0) {
      j["mig_mode_current"] = current == 1 ? "enabled" : "disabled";
      j["mig_mode_pending"] = pending == 1 ? "enabled" : "disabled";
      if (current == 1 && n.max_mig && n.mig_by_index) {
        unsigned max_count = 0;
        nlohmann::ordered_json instances = nlohmann::ordered_json::array();
        if (n.max_mig(dev, &max_count) == 0) {
          for (unsigned i = 0; i < max_count; ++i) {
            nvmlDevice mig = nullptr;
            if (n.mig_by_index(dev, i, &mig) != 0) continue;  // slot not populated
            nlohmann::ordered_json m;
            char buf[96] = {0};
            if (n.name && n.name(mig, buf, sizeof buf) == 0) m["name"] = buf;
            char ubuf[96] = {0};
            if (n.uuid && n.uuid(mig, ubuf, sizeof ubuf) == 0) m["uuid"] = ubuf;
            nvmlMemory mem{};
            if (n.memory && n.memory(mig, &mem) == 0) m["memory_bytes"] = mem.total;
            instances.push_back(m);
          }
        }
        j["mig_instances"] = instances;
      }
    } else {
      j["mig_mode"] = "not supported (" + n.err(rc) + ")";
    }
  }
  if (n.virt_mode) {
    int mode = 0;
    if (n.virt_mode(dev, &mode) == 0) j["virtualization_mode"] = virt_name(mode);
  }
  if (n.nvlink_state) {
    int active = 0;
    for (unsigned link = 0; link < 18; ++link) {  // NVML_NVLINK_MAX_LINKS = 18 (nvml.h, Hopper)
      int is_active = 0;
      if (n.nvlink_state(dev, link, &is_active) == 0 && is_active) ++active;
    }
    j["nvlinks_active"] = active;
  }
  return j;
}

}  // namespace vgsim::probe
