// JSON-lines storage of measurement records (calibrate/SCHEMA.md): one JSON object per line, validated with
// JsonReader, so errors read "<file>:<line>: $.<field>: <problem>: got <value>, expected <what>".
// Output is byte-stable: fixed key order per kind, shortest round-trip doubles, "\n" line ends, no trailing spaces.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vgsim/calibrate/measurement.hpp"

namespace vgsim::calibrate {

// One record <-> one JSON object (ordered keys as in SCHEMA.md). `where` labels errors (e.g. "runs.jsonl:12").
nlohmann::ordered_json to_json(const Measurement& m);
Measurement measurement_from_json(const nlohmann::json& j, const std::string& where);

// Text of a whole JSONL document; blank lines and lines starting with '#' are skipped on reading.
std::string to_jsonl(const std::vector<Measurement>& records);
std::vector<Measurement> parse_jsonl(const std::string& text, const std::string& file);

// Files. write_jsonl writes to "<path>.tmp" and renames, so a failed write never leaves a partial file in place.
std::vector<Measurement> read_jsonl(const std::string& path);
void write_jsonl(const std::string& path, const std::vector<Measurement>& records);

}  // namespace vgsim::calibrate
