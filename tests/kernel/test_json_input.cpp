// The validating JSON reader: every error names file, JSON path, value and expectation.
#include <catch2/catch.hpp>

#include "vgsim/kernel/json_input.hpp"

using namespace vgsim;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("typed reads with units") {
  Json j = Json::parse(R"({"bw": "100Gbps", "lat": "1.5us", "size": "4MiB", "n": 3, "name": "x"})");
  JsonReader r(j, "c.json");
  CHECK(r.bandwidth("bw").Gbps() == Approx(100));
  CHECK(r.time("lat").ps == 1'500'000);
  CHECK(r.bytes("size") == 4 * MiB);
  CHECK(r.integer("n", 1, 8) == 3);
  CHECK(r.string("name") == "x");
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("errors name file, path, value and expectation") {
  Json j = Json::parse(R"({"hosts": [{"bandwith": "100Gbps"}], "bw": 100, "n": 99, "kind": "nvlnk"})");
  JsonReader r(j, "cluster.json");
  const std::string unknown = error_of([&] {
    auto hosts = r.objects("hosts");
    hosts[0].opt_bandwidth("bandwidth");
    hosts[0].finish();
  });
  CHECK(unknown.find("cluster.json: $.hosts[0].bandwith") != std::string::npos);
  CHECK(unknown.find("did you mean 'bandwidth'") != std::string::npos);

  const std::string no_unit = error_of([&] { r.bandwidth("bw"); });
  CHECK(no_unit.find("$.bw") != std::string::npos);
  CHECK(no_unit.find("got 100") != std::string::npos);
  CHECK(no_unit.find("100Gbps") != std::string::npos);

  const std::string range = error_of([&] { r.integer("n", 1, 8); });
  CHECK(range.find("got 99") != std::string::npos);
  CHECK(range.find("[1, 8]") != std::string::npos);

  const std::string enum_err = error_of([&] { r.one_of("kind", {"nvlink", "pcie"}); });
  CHECK(enum_err.find("did you mean 'nvlink'") != std::string::npos);

  const std::string missing = error_of([&] { r.string("absent"); });
  CHECK(missing.find("$.absent") != std::string::npos);
  CHECK(missing.find("missing required key") != std::string::npos);
}

TEST_CASE("syntax errors give line and column") {
  const std::string err = error_of([] { parse_json_text("{\n  \"a\": 1,\n  \"b\": ]\n}", "bad.json"); });
  CHECK(err.find("bad.json: line 3") != std::string::npos);
}

TEST_CASE("provenance keys are accepted everywhere") {
  Json j = Json::parse(R"({"x": 1, "source": "datasheet", "note": "n"})");
  JsonReader r(j, "f.json");
  r.number("x");
  CHECK_NOTHROW(r.finish());
}
