// Tests of the measurement records and their JSON-lines storage: exact round trips (records -> JSONL -> records ->
// JSONL byte-identical), validation errors naming file:line and the JSON path.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "vgsim/calibrate/jsonl.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/osu_import.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim::calibrate;
namespace fs = std::filesystem;

namespace {
std::vector<Measurement> sample_records() {
  CollectiveMeasurement c;
  c.op = "allreduce", c.algo = "ring", c.proto = "simple", c.size_bytes = 1048576, c.count = 262144;
  c.dtype = "float", c.redop = "sum", c.root = -1, c.nranks = 16, c.nnodes = 2, c.gpus_per_node = 8;
  c.in_place = true, c.time_us = 309.4, c.algbw_GBps = 3.39, c.busbw_GBps = 6.35, c.wrong = 0;
  c.library = "nccl", c.source = "probe-run-7";
  CollectiveMeasurement d = c;
  d.wrong.reset(), d.in_place = false, d.time_us = 0.1 + 0.2;  // a double with a long shortest representation
  CopyMeasurement cp{"h2d", -1, 0, 33554432, 2750.5, 12.2, "probe-run-7"};
  GemmMeasurement g{"bf16", 8192, 8192, 8192, 1650.25, 666.4, "probe-run-7"};
  EnvironmentRecord e;
  e.fields = nlohmann::json::parse(R"({"gpu":"H100","nccl_version":"2.26.2","topology":{"nvlink":true}})");
  e.source = "probe-run-7";
  return {c, d, cp, g, e};
}
}  // namespace

TEST_CASE("JSONL round trip of every record kind is exact and byte-stable", "[calibrate][jsonl]") {
  const auto recs = sample_records();
  const std::string text = to_jsonl(recs);
  const auto back = parse_jsonl(text, "mem.jsonl");
  // Records survive unchanged (doubles are written in shortest round-trip form) ...
  REQUIRE(back == recs);
  // ... and writing them again gives the same bytes.
  CHECK(to_jsonl(back) == text);
  // Key order is the schema's: kind first, source last.
  CHECK(text.rfind("{\"kind\":\"collective\",\"op\":\"allreduce\",\"algo\":\"ring\"", 0) == 0);
  CHECK(text.find("\"wrong\":null") != std::string::npos);
  CHECK(kind_name(back[4]) == "environment");
}

TEST_CASE("JSONL file round trip of every imported data/measured file is byte-identical", "[calibrate][jsonl]") {
  const fs::path shared = fs::path(VGSIM_MEASURED_DIR);
  std::vector<Measurement> all;
  for (const auto& e : fs::directory_iterator(shared / "nccl-tests")) {
    ImportHints h;
    if (e.path().filename().string().find("nccl-1161") != std::string::npos) h.nranks = 2;
    auto r = import_nccl_tests(e.path().string(), h);
    all.insert(all.end(), r.begin(), r.end());
  }
  for (const auto& e : fs::directory_iterator(shared / "osu-openmpi")) {
    if (e.path().extension() != ".txt") continue;  // the folder's README.md is no measurement
    auto r = import_osu(e.path().string());
    all.insert(all.end(), r.begin(), r.end());
  }
  // 404 nccl-tests records + 34x256 + 12x26 + 175 + 3 OSU records (see test_importers.cpp for the per-file counts).
  REQUIRE(all.size() == 404u + 34u * 256u + 12u * 26u + 175u + 3u);
  const fs::path out = fs::path(VGSIM_BINARY_DIR) / "test_calibrate_roundtrip.jsonl";
  write_jsonl(out.string(), all);
  const auto back = read_jsonl(out.string());
  REQUIRE(back == all);
  const std::string first = to_jsonl(all);
  CHECK(to_jsonl(back) == first);
  CHECK(!fs::exists(out.string() + ".tmp"));
  fs::remove(out);
}

TEST_CASE("JSONL validation errors name file:line and the JSON path", "[calibrate][jsonl]") {
  const std::string good = to_jsonl(sample_records());
  // Line 3 of this text is the copy record; break its time.
  std::string bad = "# comment line\n" + good;
  const auto pos = bad.find("\"time_us\":2750.5");
  REQUIRE(pos != std::string::npos);
  bad.replace(pos, 16, "\"time_us\":\"slow\"");
  try {
    parse_jsonl(bad, "runs.jsonl");
    FAIL("expected an InputError");
  } catch (const vgsim::InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("runs.jsonl:4") != std::string::npos);  // comment is line 1, the copy record line 4
    CHECK(msg.find("$.time_us") != std::string::npos);
  }
  // Unknown key with a did-you-mean; unknown op; nnodes > nranks.
  std::string typo = good;
  typo.replace(typo.find("\"busbw_GBps\""), 12, "\"bus_bw_GBps\"");
  CHECK_THROWS_WITH(parse_jsonl(typo, "t.jsonl"), Catch::Contains("t.jsonl:1") && Catch::Contains("busbw_GBps"));
  std::string op = good;
  op.replace(op.find("\"allreduce\""), 11, "\"allreduse\"");
  CHECK_THROWS_WITH(parse_jsonl(op, "o.jsonl"), Catch::Contains("o.jsonl:1") && Catch::Contains("$.op"));
  std::string nodes = good;
  nodes.replace(nodes.find("\"nnodes\":2"), 10, "\"nnodes\":99");
  CHECK_THROWS_WITH(parse_jsonl(nodes, "n.jsonl"), Catch::Contains("n.jsonl:1") && Catch::Contains("$.nnodes"));
  CHECK_THROWS_WITH(parse_jsonl("{\"kind\":\"collective\"\n", "s.jsonl"), Catch::Contains("s.jsonl:1"));
  CHECK_THROWS_AS(read_jsonl("/nonexistent/x.jsonl"), vgsim::InputError);
}

TEST_CASE("probe lines with \"usable\" are read; unusable records are kept but not grouped", "[calibrate][jsonl]") {
  // Two lines exactly as calibrate/probe writes them (README "Output schema": usable is the last key); the second was
  // checked wrong (wrong = 3 > 0), so the probe marked it unusable.
  const std::string probe =
      R"({"kind":"collective","op":"allreduce","algo":"ring","proto":"simple","size_bytes":1048576,"count":262144,)"
      R"("dtype":"float","redop":"sum","root":-1,"nranks":8,"nnodes":1,"gpus_per_node":8,"in_place":false,)"
      R"("time_us":52.125,"algbw_GBps":20.117,"busbw_GBps":35.204,"wrong":0,"library":"nccl",)"
      R"("source":"vgsim-probe 20260701T120000Z-node1","usable":true})"
      "\n"
      R"({"kind":"collective","op":"allreduce","algo":"ring","proto":"simple","size_bytes":2097152,"count":524288,)"
      R"("dtype":"float","redop":"sum","root":-1,"nranks":8,"nnodes":1,"gpus_per_node":8,"in_place":false,)"
      R"("time_us":90.5,"algbw_GBps":23.173,"busbw_GBps":40.553,"wrong":3,"library":"nccl",)"
      R"("source":"vgsim-probe 20260701T120000Z-node1","usable":false})"
      "\n";
  const auto recs = parse_jsonl(probe, "probe.jsonl");
  REQUIRE(recs.size() == 2);
  CHECK(std::get<CollectiveMeasurement>(recs[0]).usable);
  CHECK_FALSE(std::get<CollectiveMeasurement>(recs[1]).usable);
  // Our writer emits the same key order as the probe, so probe lines round-trip byte-identically.
  CHECK(to_jsonl(recs) == probe);
  // Only the usable 1 MiB point reaches a series (and so the fits and validation).
  const auto series = group_series(recs);
  REQUIRE(series.size() == 1);
  REQUIRE(series[0].points.size() == 1);
  CHECK(series[0].points[0].size_bytes == 1048576);
  // A line without "usable" (older files, the importers' records before this field) reads as usable.
  std::string old = probe.substr(0, probe.find('\n'));
  old.replace(old.find(",\"usable\":true"), 14, "");
  CHECK(std::get<CollectiveMeasurement>(parse_jsonl(old, "old.jsonl")[0]).usable);
  // A non-boolean value is an error naming the path.
  std::string bad = probe.substr(0, probe.find('\n'));
  bad.replace(bad.find("\"usable\":true"), 13, "\"usable\":\"yes\"");
  CHECK_THROWS_WITH(parse_jsonl(bad, "b.jsonl"), Catch::Contains("b.jsonl:1") && Catch::Contains("$.usable"));
}
