// Shared by the fuzz harnesses (tests/fuzz/fuzz_*.cpp): the input size bound, a per-process temporary directory for
// loaders that only take a path, and the contract every harness checks: bad input may only throw vgsim::InputError or
// vgsim::UnitError (the CLI turns those into exit 2). Any other exception escapes the harness and aborts the run, as
// do crashes, sanitizer reports and hangs; libFuzzer (or tests/fuzz/replay_main.cpp) reports the input.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::fuzz {

// Inputs above this size are skipped, so that runs are not dominated by huge inputs (run libFuzzer with
// -max_len=65536 too).
constexpr std::size_t kMaxInput = 64 * 1024;

inline bool too_large(std::size_t size) { return size > kMaxInput; }

// A directory of this process only ($TMPDIR or /tmp, "vgsim-fuzz-XXXXXX"), removed when the process exits normally.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/vgsim-fuzz-XXXXXX";
    if (!mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline const std::string& temp_dir() {
  static TempDir dir;
  return dir.path();
}

// Writes the input to <temp_dir>/<name> (sub-directories created) and returns its path.
inline std::string write_temp(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path p = std::filesystem::path(temp_dir()) / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::perror(("cannot write " + p.string()).c_str());
    std::abort();
  }
  return p.string();
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs f(); an InputError or UnitError is the expected answer to bad input and is swallowed. Returns true when f()
// finished without one (the input was accepted).
template <class F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const vgsim::InputError&) {
  } catch (const vgsim::UnitError&) {
  }
  return false;
}

// A property of accepted input that does not hold: print it and abort (libFuzzer keeps the input).
[[noreturn]] inline void property_failed(const std::string& what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
  std::abort();
}

}  // namespace vgsim::fuzz
