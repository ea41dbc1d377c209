// Replay driver for the fuzz harnesses in builds without libFuzzer (g++, the normal test suite): runs
// LLVMFuzzerTestOneInput on every file given, directories recursively in sorted order. "--optional=PATH" names a path
// that may be absent (e.g. a harness's regressions/ folder before its first crash). Exit 0 when every input ran;
// 1 when a required path is missing or no input was found. A defect aborts the process (uncaught exception,
// sanitizer report, failed property), after the "replay:" line naming the input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool optional = false;
    if (arg.rfind("--optional=", 0) == 0) {
      optional = true;
      arg = arg.substr(11);
    }
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::recursive_directory_iterator(arg))
        if (e.is_regular_file()) found.push_back(e.path());
      std::sort(found.begin(), found.end());
      inputs.insert(inputs.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      inputs.emplace_back(arg);
    } else if (!optional) {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", arg.c_str());
      return 1;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs (usage: %s [--optional=]PATH...)\n", argv[0]);
    return 1;
  }
  for (const auto& p : inputs) {
    std::fprintf(stderr, "replay: %s\n", p.string().c_str());
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", p.string().c_str());
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "replay: %zu inputs, no defect\n", inputs.size());
  return 0;
}
