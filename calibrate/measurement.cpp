// Enumerations and helpers of the measurement records (see include/vgsim/calibrate/measurement.hpp).
// dtype sizes are those of nccl-tests' type names (src/common.cu ncclDataType list).
#include "vgsim/calibrate/measurement.hpp"

namespace vgsim::calibrate {

std::string kind_name(const Measurement& m) {
  switch (m.index()) {
    case 0:
      return "collective";
    case 1:
      return "copy";
    case 2:
      return "gemm";
    default:
      return "environment";
  }
}

const std::vector<std::string>& collective_ops() {
  static const std::vector<std::string> v{"allreduce", "allgather", "reducescatter", "broadcast",
                                          "reduce",    "sendrecv",  "alltoall"};
  return v;
}
const std::vector<std::string>& collective_protos() {
  static const std::vector<std::string> v{"ll", "ll128", "simple", "default"};
  return v;
}
const std::vector<std::string>& collective_dtypes() {
  static const std::vector<std::string> v{"int8", "uint8", "int32",  "uint32",   "int64",  "uint64",
                                          "half", "float", "double", "bfloat16", "f8e4m3", "f8e5m2"};
  return v;
}
const std::vector<std::string>& collective_redops() {
  static const std::vector<std::string> v{"sum", "prod", "min", "max", "avg", "none"};
  return v;
}
const std::vector<std::string>& collective_libraries() {
  static const std::vector<std::string> v{"nccl", "openmpi", "mpich", "mvapich2", "rccl"};
  return v;
}
const std::vector<std::string>& copy_directions() {
  static const std::vector<std::string> v{"h2d", "d2h", "d2d", "p2p"};
  return v;
}
const std::vector<std::string>& gemm_precisions() {
  static const std::vector<std::string> v{"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};
  return v;
}

std::int64_t dtype_size_bytes(const std::string& t) {
  if (t == "int8" || t == "uint8" || t == "f8e4m3" || t == "f8e5m2") return 1;
  if (t == "half" || t == "bfloat16") return 2;
  if (t == "int32" || t == "uint32" || t == "float") return 4;
  if (t == "int64" || t == "uint64" || t == "double") return 8;
  return 0;
}

}  // namespace vgsim::calibrate
