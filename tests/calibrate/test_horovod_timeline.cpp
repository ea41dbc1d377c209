// Horovod timeline importer (include/vgsim/calibrate/horovod_timeline_import.hpp) on a timeline in Horovod's format
// (tests/calibrate/data/horovod_timeline_2ranks.json: 2 ranks, fc weights + bias fused into one response, conv1
// alone in fp16; written like Horovod 0.9-0.15, '[' and records with trailing commas, no closing ']').
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "vgsim/calibrate/horovod_timeline_import.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim;
using namespace vgsim::calibrate;

namespace {
const std::string kTimeline = std::string(VGSIM_CALIBRATE_TEST_DATA) + "/horovod_timeline_2ranks.json";
}

TEST_CASE("Horovod timeline: fused responses become one allreduce of the summed bytes", "[calibrate][horovod]") {
  REQUIRE(std::filesystem::exists(kTimeline));
  REQUIRE(looks_like_horovod_timeline(kTimeline));
  ImportHints h;
  h.nnodes = 2;
  HorovodPhaseTotals t;
  const auto recs = import_horovod_timeline(kTimeline, h, &t);
  REQUIRE(recs.size() == 2);
  const auto& fused = std::get<CollectiveMeasurement>(recs[0]);
  // fc weights [1000, 2048] + bias [1000], float32: (2,048,000 + 1,000) x 4 B = 8,196,000 B, one NCCL_ALLREDUCE
  // interval 1250 -> 2850 us shared by both tensors = 1,600 us; 2 ranks (the NEGOTIATE ticks "0" and "1").
  CHECK(fused.size_bytes == 8196000);
  CHECK(fused.dtype == "float");
  CHECK(fused.time_us == 1600.0);
  CHECK(fused.nranks == 2);
  CHECK(fused.nnodes == 2);
  CHECK(fused.gpus_per_node == 1);
  // busbw = algbw x 2(n-1)/n = algbw for 2 ranks = 8,196,000 B / 1,600 us = 5.1225 GB/s.
  CHECK(fused.busbw_GBps == Approx(5.1225));
  const auto& conv = std::get<CollectiveMeasurement>(recs[1]);
  // conv1 [64, 3, 7, 7] float16 = 9,408 x 2 B = 18,816 B over 3100 -> 3180 us.
  CHECK(conv.size_bytes == 18816);
  CHECK(conv.dtype == "half");
  CHECK(conv.time_us == 80.0);
  // Phase totals summed over tensors: NCCL_ALLREDUCE 1600 x 2 + 80 = 3,280 us.
  double nccl = 0;
  for (const auto& [name, us] : t.phase_us)
    if (name == "NCCL_ALLREDUCE") nccl = us;
  CHECK(nccl == 3280.0);
  CHECK(t.tensors == 3);
}

TEST_CASE("Horovod timeline: layout and malformed events are input errors", "[calibrate][horovod]") {
  CHECK_THROWS_AS(import_horovod_timeline(kTimeline, ImportHints{}), InputError);  // nodes not stated
  ImportHints wrong;
  wrong.nranks = 4;
  wrong.nnodes = 4;
  CHECK_THROWS_AS(import_horovod_timeline(kTimeline, wrong), InputError);  // contradicts the 2 rank ticks
  const auto bad = (std::filesystem::temp_directory_path() / "vgsim_bad_timeline.json").string();
  std::ofstream(bad) << "[{\"ph\": \"E\", \"ts\": 5, \"pid\": 0}]";
  ImportHints h;
  h.nnodes = 1;
  h.nranks = 1;
  try {
    import_horovod_timeline(bad, h);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("vgsim_bad_timeline.json") != std::string::npos);
    CHECK(m.find("$[0]") != std::string::npos);
    CHECK(m.find("without a matching begin") != std::string::npos);
  }
}
