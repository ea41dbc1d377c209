// Atomic whole-file writes via a temporary file and rename (see include/vgsim/kernel/atomic_file.hpp).
#include "vgsim/kernel/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim {

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "", "cannot create output file", "", "a writable location");
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path, "", "cannot write output file", "", "a writable location with free space");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(path, "", "cannot move the finished output into place", "", "a writable location");
  }
}

}  // namespace vgsim
