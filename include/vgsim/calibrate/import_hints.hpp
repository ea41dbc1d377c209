// What an importer may be told by its caller about a measurement file when the file itself does not say it (or to
// double-check what it says). Unset fields (0 / empty) mean "take it from the file"; a set field that contradicts the
// file is an InputError. Not a record itself; see measurement.hpp.
#pragma once

#include <cstdint>
#include <string>

namespace vgsim::calibrate {

struct ImportHints {
  std::int64_t nranks = 0;
  std::int64_t nnodes = 0;
  std::int64_t gpus_per_node = 0;
  std::string op;      // e.g. "allreduce" when the file has a single table and does not name the test
  std::string algo;    // default: from NCCL_ALGO=... in the header, else "default"
  std::string proto;   // default: from NCCL_PROTO=... in the header, else "default"
  std::string dtype;   // for tables without a type column (default "float", nccl-tests' and OSU's default)
  std::string source;  // record "source"; default: the file name without directories
  // A table `vgsim collective` wrote is a simulation, not a measurement: refused unless this is set
  // (--allow-simulated).
  bool allow_simulated = false;
};

}  // namespace vgsim::calibrate
