// The device catalog: GPU, NIC, CPU and PCIe-generation models read from topologies/catalog/*.json, every number
// with its source. GPU entries carry what the compute model needs (peak FLOP/s per precision, memory bandwidth,
// SM count, architecture) and what the network needs (NVLink and PCIe capabilities, MIG profile table).
// A catalog is built in layers: the built-in files, then user directories (--catalog DIR), then a cluster file's
// inline "catalog" object; all go through the same reader, and a key defined twice must be the same JSON entry.
// Units: FLOP/s as double, bandwidths as Bandwidth (bytes/s per direction unless named otherwise).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::topo {

struct MigProfile {
  std::string name;                  // "3g.20gb"
  std::uint32_t compute_slices = 0;  // of 7
  std::uint32_t memory_slices = 0;   // of 8
  std::uint32_t sms = 0;
  Bytes memory = 0;
  std::uint32_t max_instances = 0;
  std::vector<std::uint32_t> placements;  // valid start slots
};

// A time-sliced NVIDIA vGPU type (C-series, compute). Full-framebuffer (1:1) profiles have max_per_gpu == 1.
struct VgpuProfile {
  std::string name;  // "A100-20C"
  Bytes framebuffer = 0;
  std::uint32_t max_per_gpu = 0;  // vGPUs of this type one GPU can host (time-sliced mode: one type per GPU)
  bool full_framebuffer() const { return max_per_gpu == 1; }
};

struct GpuModel {
  std::string key;               // "a100-pcie-40gb"
  std::string display_name;      // "NVIDIA A100 PCIe 40GB"
  std::string arch;              // "volta", "turing", "ampere", "hopper" (NCCL's tuning rows)
  std::uint32_t sm_version = 0;  // 70, 75, 80, 90
  std::uint32_t sms = 0;
  Bytes memory = 0;
  Bandwidth memory_bandwidth;
  std::map<std::string, double> peak_flops;  // "fp64", "fp32", "tf32", "fp16", "bf16" -> dense FLOP/s
  std::uint32_t nvlink_links = 0;
  Bandwidth nvlink_per_link;  // per direction, datasheet
  // Per direction, the rate NCCL's topology model assumes per link (topo.h SMxx_NVLINK_BW); the capacity NVLink
  // resources get. Equals nvlink_per_link when the catalog entry gives no "nccl_per_link".
  Bandwidth nvlink_nccl_per_link;
  Time nvlink_latency{0};  // per NVLink hop (wire + port), added to Path::latency
  std::string pcie_gen;    // catalog key of the PCIe generation, e.g. "gen4"
  std::uint32_t pcie_lanes = 16;
  std::vector<MigProfile> mig_profiles;    // empty when MIG is unsupported
  std::string mig_table;                   // catalog key of the MIG table ("a100-40gb"), "" when none
  std::vector<VgpuProfile> vgpu_profiles;  // empty when no vGPU table is recorded
  std::string vgpu_table;                  // catalog key of the vGPU table ("a100-40gb"), "" when none
  std::string source;
};

struct NicModel {
  std::string key;  // "connectx-6-dx-100g"
  std::string display_name;
  std::uint32_t ports = 1;
  Bandwidth port_speed;  // line rate per port per direction
  std::string pcie_gen;
  std::uint32_t pcie_lanes = 16;
  bool rdma = true;  // RoCE/IB verbs capable
  // Physical network devices one port of this entry stands for (1 for a real card; 4 for a group a GPU stripes over,
  // e.g. p5's four EFA devices per GPU). NCCL opens at least one channel per device.
  std::uint32_t devices = 1;
  // The PCI vendor NCCL's socket transport special-cases (net_socket.cc ncclNetSocketGetNsockNthread): "aws" (0x1d0f,
  // ENA), "gcp" (0x1ae0, gVNIC) or "generic" (any other: its socket thread defaults).
  std::string pci_vendor = "generic";
  std::string source;
};

struct PcieGen {
  std::string key;          // "gen3", "gen4", "gen5"
  Bandwidth per_lane;       // raw per lane per direction after encoding
  double efficiency = 1.0;  // achievable fraction (TLP/DLLP overhead), with source
  Time hop_latency{0};
  std::string source;
};

// Arithmetic throughput of one CPU core, for CPU workers (workloads/models/cpu_compute_model.hpp). Optional in the
// catalog: entries without it can host GPUs but not CPU training ranks.
struct CpuCoreCompute {
  double fp32_flops_per_cycle = 0.0;  // per core: SIMD width x FMA units x 2 (AVX-512, 2 FMA: 16 x 2 x 2 = 64)
  double base_clock_hz = 0.0;         // nominal (non-AVX) base clock
  double avx512_clock_hz = 0.0;       // all-core clock under AVX-512 load (what sustained GEMMs run at)
  std::string source;
};

struct CpuModel {
  std::string key;  // "xeon-gold-6338"
  std::string display_name;
  std::uint32_t cores = 0;
  Bandwidth memory_bandwidth;             // per socket
  Bandwidth inter_socket;                 // UPI/QPI per direction, all links
  Time inter_socket_latency{0};           // one inter-socket hop
  std::string pcie_gen;                   // root-port generation ("gen4")
  std::uint32_t pcie_lanes = 0;           // per socket
  std::optional<CpuCoreCompute> compute;  // "compute" object of the entry, when given
  std::string source;
};

class Catalog {
 public:
  // Loads every *.json file in `dir` (default: the repository's topologies/catalog).
  static Catalog load(const std::string& dir);
  // The built-in catalog (default_dir()) plus, in order, the user directories given to set_user_dirs().
  static Catalog load_default();
  // The directory load_default() reads first: $VGSIM_DATA_DIR/topologies/catalog if the variable is set, else the
  // source tree the library was built from.
  static std::string default_dir();
  // User catalog directories that load_default() adds after the built-in one (the CLI's repeatable --catalog DIR).
  // Process-wide: the CLI sets it once while parsing its options, before any thread starts; the library never does.
  static void set_user_dirs(std::vector<std::string> dirs);
  static const std::vector<std::string>& user_dirs();

  // Adds every *.json file of `dir` (sorted by name; the format of topologies/catalog). References (MIG / vGPU
  // tables, PCIe generations) may point into any file of `dir` or into what the catalog already holds.
  void add_dir(const std::string& dir);
  // Adds the entries of one catalog object read through `r` (a cluster file's inline "catalog"), with the schema,
  // validation and messages of a catalog file; `r` is finished (unknown keys refused).
  void add(JsonReader& r);
  // Both: an entry whose kind and key the catalog already has is an InputError naming both places (file and JSON
  // path) unless the two entries are the same JSON value (a copy of a built-in entry is accepted, a change is not).
  // Where an entry was defined: "<file> $.nics[3]".
  std::string origin(const std::string& kind, const std::string& key) const;  // kind: "gpus", "nics", ...
  // The data root (VGSIM_DATA_DIR environment variable, else the build-time source tree).
  static std::string data_dir();

  const GpuModel& gpu(const std::string& key) const;  // throws InputError with a did-you-mean
  const NicModel& nic(const std::string& key) const;
  const PcieGen& pcie(const std::string& key) const;
  const CpuModel& cpu(const std::string& key) const;
  const std::map<std::string, GpuModel>& gpus() const { return gpus_; }
  const std::map<std::string, NicModel>& nics() const { return nics_; }
  const std::map<std::string, PcieGen>& pcie_gens() const { return pcie_; }
  const std::map<std::string, CpuModel>& cpus() const { return cpus_; }

 private:
  std::map<std::string, GpuModel> gpus_;
  std::map<std::string, NicModel> nics_;
  std::map<std::string, PcieGen> pcie_;
  std::map<std::string, CpuModel> cpus_;
  // Tables referenced by GPU entries, kept so that a later layer may reference an earlier layer's table.
  std::map<std::string, std::vector<MigProfile>> mig_tables_;
  std::map<std::string, std::vector<VgpuProfile>> vgpu_tables_;
  // Per kind ("gpus", "nics", "pcie_generations", "cpus", "mig_tables", "vgpu_tables") and key: where the entry was
  // defined and its JSON, for the collision rule.
  struct Origin {
    std::string file, path;
    Json json;
  };
  std::map<std::string, std::map<std::string, Origin>> origins_;
  struct Batch;  // references read in one add / add_dir, resolved at its end
  void read_object(JsonReader& r, Batch& b);
  void resolve(const Batch& b);
  // False when `key` is already defined by an identical entry (skip it); throws when it is defined differently.
  bool claim(const std::string& kind, const std::string& key, const JsonReader& entry, const std::string& key_path);
};

}  // namespace vgsim::topo
