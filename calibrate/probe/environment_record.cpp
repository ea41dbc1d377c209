// Environment records (see environment_record.hpp).
#include "environment_record.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "checked_calls.hpp"
#include "nvml_info.hpp"

extern char** environ;

namespace vgsim::probe {
namespace {

std::string version_string(int v, int major_div, int minor_div) {
  return std::to_string(v / major_div) + "." + std::to_string((v % major_div) / minor_div);
}

std::string uuid_hex(const cudaUUID_t& u) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    const auto b = static_cast<unsigned char>(u.bytes[i]);
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return "GPU-" + s;
}

// Facts this rank can see: its devices (and, for the peer matrix, every visible device).
nlohmann::ordered_json rank_info(const ProbeContext& ctx) {
  nlohmann::ordered_json r;
  r["world_rank"] = ctx.world_rank;
  r["local_rank"] = ctx.local_rank;
  r["host"] = ctx.hostname;
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  r["CUDA_VISIBLE_DEVICES"] = cvd ? nlohmann::ordered_json(cvd) : nlohmann::ordered_json(nullptr);
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  r["visible_gpus"] = count;
  nlohmann::ordered_json devs = nlohmann::ordered_json::array();
  for (std::size_t d = 0; d < ctx.devices.size(); ++d) {
    const int dev = ctx.devices[d];
    cudaDeviceProp p{};
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    char bus[32] = {0};
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
    nlohmann::ordered_json g;
    g["nccl_rank"] = ctx.nccl_rank(d);
    g["cuda_device"] = dev;
    g["name"] = p.name;
    g["uuid"] = uuid_hex(p.uuid);
    g["pci_bus_id"] = bus;
    g["memory_bytes"] = static_cast<std::int64_t>(p.totalGlobalMem);
    g["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
    g["multiprocessors"] = p.multiProcessorCount;
    g["l2_cache_bytes"] = p.l2CacheSize;
    g["memory_bus_width_bits"] = p.memoryBusWidth;
    g["nvml"] = nvml_device_info(bus);
    devs.push_back(g);
  }
  r["devices"] = devs;
  // cudaDeviceCanAccessPeer over every visible device (row = from, column = to; diagonal true).
  nlohmann::ordered_json matrix = nlohmann::ordered_json::array();
  for (int a = 0; a < count; ++a) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (int b = 0; b < count; ++b) {
      int can = 1;
      if (a != b) CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      row.push_back(can != 0);
    }
    matrix.push_back(row);
  }
  r["peer_access"] = matrix;
  return r;
}

}  // namespace

nlohmann::ordered_json environment_record(const ProbeContext& ctx, const ProbeOptions& options) {
  const std::string mine = rank_info(ctx).dump();
  const std::vector<std::string> all = ctx.gather_strings(mine);

  nlohmann::ordered_json e;
  e["kind"] = "environment";
  e["event"] = "start";
  e["run_id"] = ctx.run_id;
  e["mode"] = ctx.use_mpi ? "mpi (one rank per GPU)" : "single-process (one process drives all local GPUs)";
  e["nranks"] = ctx.nccl_ranks;
  e["nnodes"] = ctx.nnodes;
  e["gpus_per_node"] = ctx.gpus_per_node;
  e["mpi_processes"] = ctx.world_size;
  e["hostnames"] = ctx.hostnames;

  int driver = 0, runtime = 0, nccl = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  NCCL_CHECK(ncclGetVersion(&nccl));
  e["cuda_driver_version"] = version_string(driver, 1000, 10);
  e["cuda_runtime_version"] = version_string(runtime, 1000, 10);
  // ncclGetVersion: major*10000 + minor*100 + patch since NCCL 2.9 (nccl.h NCCL_VERSION macro).
  e["nccl_version"] =
      std::to_string(nccl / 10000) + "." + std::to_string((nccl % 10000) / 100) + "." + std::to_string(nccl % 100);
  e["nccl_version_code"] = nccl;
  e["nccl_built_against"] =
      std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH);
  e["nvml"] = nvml_system_info();

  std::vector<std::pair<std::string, std::string>> vars;
  for (char** p = environ; p && *p; ++p) {
    const std::string kv = *p;
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = kv.substr(0, eq);
    if (k.rfind("NCCL_", 0) == 0) vars.emplace_back(k, kv.substr(eq + 1));
  }
  std::sort(vars.begin(), vars.end());
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const auto& [k, v] : vars) env[k] = v;
  e["nccl_env"] = env;
  const char* dump = std::getenv("NCCL_TOPO_DUMP_FILE");
  e["nccl_topo_dump_file"] = dump ? nlohmann::ordered_json(dump) : nlohmann::ordered_json(nullptr);

  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const auto& s : all) ranks.push_back(nlohmann::ordered_json::parse(s));
  e["ranks"] = ranks;
  e["options"] = nlohmann::ordered_json::parse(options_json(options));
  e["timing"] =
      "CUDA events around the timed loop on each rank's stream, divided by iterations, averaged over ranks "
      "(nccl-tests -a 1); algbw = size_bytes / time; busbw = algbw x nccl-tests factor; out-of-place";
  e["source"] = ctx.source();
  return e;
}

nlohmann::ordered_json topology_dump_record(const ProbeContext& ctx) {
  const char* path = std::getenv("NCCL_TOPO_DUMP_FILE");
  if (!path) return nullptr;
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::ordered_json e;
  e["kind"] = "environment";
  e["event"] = "nccl_topology";
  e["path"] = path;
  e["xml"] = ss.str();
  e["source"] = ctx.source();
  return e;
}

nlohmann::ordered_json skipped_record(const ProbeContext& ctx, const std::string& what, const std::string& algo,
                                      const std::string& proto, const std::string& reason) {
  nlohmann::ordered_json e;
  e["kind"] = "environment";
  e["event"] = "skipped";
  e["op"] = what;
  e["algo"] = algo;
  e["proto"] = proto;
  e["reason"] = reason;
  e["source"] = ctx.source();
  return e;
}

}  // namespace vgsim::probe
