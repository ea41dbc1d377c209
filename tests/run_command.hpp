// Test helper: runs a shell command line and returns its exit status and standard output (redirect stderr in the
// command line itself: "2>&1" to merge it, "2>file" to keep it apart). Used by the end-to-end CLI tests.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace vgsim::test {

struct CommandResult {
  int status;       // exit status, -1 when killed by a signal
  std::string out;  // standard output
};

inline CommandResult run_command(const std::string& command_line) {
  FILE* p = popen(command_line.c_str(), "r");
  if (!p) return {-1, ""};
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace vgsim::test
