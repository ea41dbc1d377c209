// One measurement record as stored in calibration JSON-lines files (see calibrate/SCHEMA.md): a collective timing
// (nccl-tests, OSU MPI, the probe), a memory copy, a GEMM, or a free-form environment description. Plain data only;
// reading/writing is in jsonl.hpp, importers in nccl_tests_import.hpp / osu_import.hpp.
// Units are in the field names: *_bytes (bytes), *_us (microseconds), *_GBps (1e9 bytes/s), tflops (1e12 flop/s).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace vgsim::calibrate {

// A timed collective (or sendrecv). Bandwidths follow nccl-tests: algbw = size_bytes / time, busbw = algbw x factor
// (bus_bandwidth.hpp). size_bytes is nccl-tests' "size" column (for allgather/reducescatter the whole array).
struct CollectiveMeasurement {
  std::string op;     // allreduce | allgather | reducescatter | broadcast | reduce | sendrecv | alltoall
  std::string algo;   // ring | tree | default | <MPI algorithm name, e.g. recursive_doubling>
  std::string proto;  // ll | ll128 | simple | default
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;  // elements per rank, as nccl-tests prints it
  std::string dtype;       // float | half | bfloat16 | double | int8 | uint8 | int32 | uint32 | int64 | uint64 | ...
  std::string redop;       // sum | prod | min | max | avg | none
  std::int64_t root = -1;  // -1 where it does not apply
  std::int64_t nranks = 0;
  std::int64_t nnodes = 0;
  std::int64_t gpus_per_node = 0;  // ranks per node (GPUs for NCCL; MPI ranks for CPU-buffer MPI runs)
  bool in_place = false;
  double time_us = 0.0;
  double algbw_GBps = 0.0;
  double busbw_GBps = 0.0;
  std::optional<std::int64_t> wrong;  // nccl-tests #wrong; nullopt when not checked / not reported
  std::string library;                // nccl | openmpi | mpich | mvapich2 | rccl
  std::string source;                 // file name or probe run id
  // false when the result was checked and found wrong (the probe's "usable"); fitting and validation skip it.
  bool usable = true;
  // Open MPI: whether coll_tuned_use_dynamic_rules was given as on (true) or off (false); nullopt = not stated.
  // `algo` is the algorithm REQUESTED (coll_tuned_<op>_algorithm or the file name's algoN); Open MPI runs it only
  // with dynamic rules on (the default is off: its fixed decision rules choose and the request is ignored).
  std::optional<bool> mpi_dynamic_rules;
  std::string benchmark;  // the benchmark and version the file names, e.g. "osu 5.7"; "" = not stated

  bool operator==(const CollectiveMeasurement&) const = default;
};

// A memory copy (cudaMemcpy-style): host<->device, on-device, or peer-to-peer. device -1 = host.
struct CopyMeasurement {
  std::string direction;  // h2d | d2h | d2d | p2p
  std::int64_t src_device = -1;
  std::int64_t dst_device = -1;
  std::int64_t size_bytes = 0;
  double time_us = 0.0;
  double bandwidth_GBps = 0.0;
  std::string source;

  bool operator==(const CopyMeasurement&) const = default;
};

// A dense matrix multiply C[m,n] = A[m,k] B[k,n]; tflops = 2 m n k / time.
struct GemmMeasurement {
  std::string precision;  // fp32 | tf32 | fp16 | bf16 | fp8 | fp64
  std::int64_t m = 0, n = 0, k = 0;
  double time_us = 0.0;
  double tflops = 0.0;
  std::string source;

  bool operator==(const GemmMeasurement&) const = default;
};

// What was recorded about the machine (GPU names, driver, NCCL version, topology...). `fields` holds every key of the
// record except "kind" and "source"; it is kept verbatim and never interpreted by the fitting code.
struct EnvironmentRecord {
  nlohmann::json fields = nlohmann::json::object();
  std::string source;

  bool operator==(const EnvironmentRecord&) const = default;
};

using Measurement = std::variant<CollectiveMeasurement, CopyMeasurement, GemmMeasurement, EnvironmentRecord>;

// "collective" | "copy" | "gemm" | "environment".
std::string kind_name(const Measurement& m);

// Allowed values of the enumerated string fields (the reader validates against these).
const std::vector<std::string>& collective_ops();
const std::vector<std::string>& collective_protos();
const std::vector<std::string>& collective_dtypes();
const std::vector<std::string>& collective_redops();
const std::vector<std::string>& collective_libraries();
const std::vector<std::string>& copy_directions();
const std::vector<std::string>& gemm_precisions();

// Bytes per element of a dtype name from collective_dtypes() (nccl-tests' names); 0 if unknown.
std::int64_t dtype_size_bytes(const std::string& dtype);

}  // namespace vgsim::calibrate
