// Data root lookup (see include/vgsim/kernel/data_root.hpp).
#include "vgsim/kernel/data_root.hpp"

#include <cstdlib>
#include <filesystem>

namespace vgsim {

std::string data_root(const std::string& build_tree) {
  if (const char* env = std::getenv("VGSIM_DATA_DIR"); env && *env) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "vgsim";
    if (fs::is_directory(installed / "topologies" / "catalog", ec)) return installed.string();
  }
  return build_tree;
}

}  // namespace vgsim
