// Helpers shared by the CLI tests: run the built vgsim (VGSIM_EXE) with stderr merged into the captured output, and
// a temporary path unique to this test process.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../run_command.hpp"

namespace vgsim::test {

struct CliRun {
  int status;       // exit status, -1 when killed by a signal
  std::string out;  // stdout and stderr together
};

inline CliRun run_vgsim(const std::string& args) {
  const auto r = run_command(std::string(VGSIM_EXE) + " " + args + " 2>&1");
  return {r.status, r.out};
}

// <temp dir>/<prefix>-<pid>-<name>
inline std::string temp_path(const std::string& prefix, const std::string& name) {
  return (std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + name)).string();
}

// The whole content of a file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace vgsim::test
