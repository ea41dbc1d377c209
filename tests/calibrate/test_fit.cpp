#include <catch2/catch.hpp>
#include <filesystem>
#include <cstdio>
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/osu_import.hpp"
using namespace vgsim::calibrate;
namespace fs = std::filesystem;
TEST_CASE("scratch table") {
  std::vector<std::pair<std::string,std::vector<Measurement>>> all;
  for (auto& e : fs::directory_iterator(std::string(VGSIM_SHARED_DIR) + "/data/nccl-tests")) {
    ImportHints h; if (e.path().filename().string().find("nccl-1161") != std::string::npos) h.nranks = 2;
    all.emplace_back(e.path().filename().string(), import_nccl_tests(e.path().string(), h));
  }
  for (auto& e : fs::directory_iterator(std::string(VGSIM_SHARED_DIR) + "/data/osu-openmpi"))
    all.emplace_back(e.path().filename().string(), import_osu(e.path().string()));
  for (auto& [name, recs] : all) {
    for (auto& s : group_series(recs)) {
      auto f = fit_segmented(s); auto h = fit_hockney(s);
      std::printf("%-70s %-28s n=%3zu seg=%zu med=%5.1f%% max=%5.1f%%  hockney med=%5.1f%% max=%5.1f%%\n", name.c_str(), (s.key.op + (s.key.in_place?" ip":" oop")).c_str(), s.points.size(), f.segments.size(),
        100*f.quality.median_rel_error, 100*f.quality.max_rel_error, 100*h.quality.median_rel_error, 100*h.quality.max_rel_error);
    }
  }
}
