// JSON-lines reading and writing of measurement records (include/vgsim/calibrate/jsonl.hpp, calibrate/SCHEMA.md).
// Every field is validated through JsonReader; key order on output is fixed per kind so files are byte-stable.
#include "vgsim/calibrate/jsonl.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_files.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace vgsim::calibrate {

using OJson = nlohmann::ordered_json;

namespace {

struct ToJson {
  OJson operator()(const CollectiveMeasurement& c) const {
    OJson j;
    j["kind"] = "collective";
    j["op"] = c.op;
    j["algo"] = c.algo;
    j["proto"] = c.proto;
    j["size_bytes"] = c.size_bytes;
    j["count"] = c.count;
    j["dtype"] = c.dtype;
    j["redop"] = c.redop;
    j["root"] = c.root;
    j["nranks"] = c.nranks;
    j["nnodes"] = c.nnodes;
    j["gpus_per_node"] = c.gpus_per_node;
    j["in_place"] = c.in_place;
    j["time_us"] = c.time_us;
    j["algbw_GBps"] = c.algbw_GBps;
    j["busbw_GBps"] = c.busbw_GBps;
    j["wrong"] = c.wrong ? OJson(*c.wrong) : OJson(nullptr);
    j["library"] = c.library;
    j["source"] = c.source;
    j["usable"] = c.usable;
    if (c.mpi_dynamic_rules) j["mpi_dynamic_rules"] = *c.mpi_dynamic_rules;  // written only when stated
    if (!c.benchmark.empty()) j["benchmark"] = c.benchmark;
    return j;
  }
  OJson operator()(const CopyMeasurement& c) const {
    OJson j;
    j["kind"] = "copy";
    j["direction"] = c.direction;
    j["src_device"] = c.src_device;
    j["dst_device"] = c.dst_device;
    j["size_bytes"] = c.size_bytes;
    j["time_us"] = c.time_us;
    j["bandwidth_GBps"] = c.bandwidth_GBps;
    j["source"] = c.source;
    return j;
  }
  OJson operator()(const GemmMeasurement& g) const {
    OJson j;
    j["kind"] = "gemm";
    j["precision"] = g.precision;
    j["m"] = g.m;
    j["n"] = g.n;
    j["k"] = g.k;
    j["time_us"] = g.time_us;
    j["tflops"] = g.tflops;
    j["source"] = g.source;
    return j;
  }
  OJson operator()(const EnvironmentRecord& e) const {
    OJson j;
    j["kind"] = "environment";
    for (auto it = e.fields.begin(); it != e.fields.end(); ++it) j[it.key()] = OJson::parse(it.value().dump());
    j["source"] = e.source;
    return j;
  }
};

std::string nonempty(JsonReader& r, const std::string& key) {
  std::string s = r.string(key);
  if (s.empty()) r.fail(key, "empty string", "a non-empty name");
  return s;
}

}  // namespace

OJson to_json(const Measurement& m) { return std::visit(ToJson{}, m); }

Measurement measurement_from_json(const Json& j, const std::string& where) {
  JsonReader r(j, where);
  const std::string kind = r.one_of("kind", {"collective", "copy", "gemm", "environment"});
  if (kind == "collective") {
    CollectiveMeasurement c;
    c.op = r.one_of("op", collective_ops());
    c.algo = nonempty(r, "algo");
    c.proto = r.one_of("proto", collective_protos());
    c.size_bytes = r.integer("size_bytes", 0);
    c.count = r.integer("count", 0);
    c.dtype = r.one_of("dtype", collective_dtypes());
    c.redop = r.one_of("redop", collective_redops());
    c.root = r.integer("root", -1);
    c.nranks = r.integer("nranks", 1);
    c.nnodes = r.integer("nnodes", 1);
    c.gpus_per_node = r.integer("gpus_per_node", 1);
    c.in_place = r.boolean("in_place");
    c.time_us = r.number("time_us", 0.0);
    c.algbw_GBps = r.number("algbw_GBps", 0.0);
    c.busbw_GBps = r.number("busbw_GBps", 0.0);
    c.wrong = r.opt_integer("wrong", 0);
    r.allow("wrong");
    c.library = r.one_of("library", collective_libraries());
    c.source = r.string("source");
    c.usable = r.opt_boolean("usable").value_or(true);
    c.mpi_dynamic_rules = r.opt_boolean("mpi_dynamic_rules");
    c.benchmark = r.opt_string("benchmark").value_or("");
    if (c.nnodes > c.nranks)
      r.fail("nnodes", "more nodes than ranks", "nnodes <= nranks (" + std::to_string(c.nranks) + ")");
    if (c.root >= c.nranks) r.fail("root", "root is not a rank", "-1 or 0.." + std::to_string(c.nranks - 1));
    r.finish();
    return c;
  }
  if (kind == "copy") {
    CopyMeasurement c;
    c.direction = r.one_of("direction", copy_directions());
    c.src_device = r.integer("src_device", -1);
    c.dst_device = r.integer("dst_device", -1);
    c.size_bytes = r.integer("size_bytes", 0);
    c.time_us = r.number("time_us", 0.0);
    c.bandwidth_GBps = r.number("bandwidth_GBps", 0.0);
    c.source = r.string("source");
    r.finish();
    return c;
  }
  if (kind == "gemm") {
    GemmMeasurement g;
    g.precision = r.one_of("precision", gemm_precisions());
    g.m = r.integer("m", 1);
    g.n = r.integer("n", 1);
    g.k = r.integer("k", 1);
    g.time_us = r.number("time_us", 0.0);
    g.tflops = r.number("tflops", 0.0);
    g.source = r.string("source");
    r.finish();
    return g;
  }
  EnvironmentRecord e;
  e.source = r.string("source");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "kind" || it.key() == "source") continue;
    e.fields[it.key()] = it.value();
  }
  return e;
}

std::string to_jsonl(const std::vector<Measurement>& records) {
  std::string out;
  for (const auto& m : records) {
    out += to_json(m).dump();
    out += '\n';
  }
  return out;
}

std::vector<Measurement> parse_jsonl(const std::string& text, const std::string& file) {
  std::vector<Measurement> out;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = file + ":" + std::to_string(lineno);
    const Json j = parse_json_text(line, where);
    out.push_back(measurement_from_json(j, where));
  }
  return out;
}

std::vector<Measurement> read_jsonl(const std::string& path) {
  std::ifstream in = open_input(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file", "", "a readable JSON-lines file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_jsonl(ss.str(), path);
}

void write_jsonl(const std::string& path, const std::vector<Measurement>& records) {
  write_file_atomically(path, to_jsonl(records));  // temp file + rename: never a half-written file
}

}  // namespace vgsim::calibrate
