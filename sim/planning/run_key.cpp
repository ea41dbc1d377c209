// The sweep's run key: version and data fingerprint (see include/vgsim/sim/planning/run_key.hpp).
#include "vgsim/sim/planning/run_key.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vgsim/topologies/catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::sim::planning {

std::string data_fingerprint(const std::vector<std::string>& dirs) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64 offset basis
  auto mix = [&h](const std::string& bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;  // FNV-1a 64 prime
  };
  for (const std::string& d : dirs) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      mix(f.filename().string() + '\0' + s.str() + '\0');
    }
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string sweep_run_key() {
  std::vector<std::string> dirs = {topo::Catalog::default_dir()};
  for (const auto& d : topo::Catalog::user_dirs()) dirs.push_back(d);
  dirs.push_back(topo::Cluster::presets_dir());
  dirs.push_back((std::filesystem::path(topo::Catalog::data_dir()) / "workloads" / "scenarios").string());
  return std::string("vgsim ") + VGSIM_VERSION + "; data " + data_fingerprint(dirs);
}

}  // namespace vgsim::sim::planning
