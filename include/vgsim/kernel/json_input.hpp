// Validating reader for JSON inputs (clusters, catalogs, workloads, plans, profiles). It remembers the file and the
// JSON path of every value, so each error says "<file>: <path>: <problem>: got <value>, expected <what>". Quantities
// with units are strings ("100Gbps", "1.5us", "64MiB") and are parsed here. finish() rejects unknown keys with a
// did-you-mean. The keys "source", "sources", "note", "notes" and "comment" are accepted on every object: they carry
// provenance and are never interpreted.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim {

using Json = nlohmann::json;

// Reads and parses a JSON file; syntax errors become InputError with the line and column.
Json load_json_file(const std::string& path);
// Parses JSON text; `file` only labels errors.
Json parse_json_text(const std::string& text, const std::string& file);

class JsonReader {
 public:
  // `j` must outlive the reader. `path` is the JSON path of `j` itself ("" for the root, shown as "$").
  JsonReader(const Json& j, std::string file, std::string path = "");

  const std::string& file() const { return file_; }
  std::string path() const { return path_.empty() ? "$" : path_; }
  std::string path_of(const std::string& key) const;
  bool has(const std::string& key) const;
  const Json& json() const { return *j_; }

  // Required values (error if missing or of the wrong type / range).
  std::string string(const std::string& key);
  double number(const std::string& key, double min = -1e300, double max = 1e300);
  std::int64_t integer(const std::string& key, std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);
  bool boolean(const std::string& key);
  Bandwidth bandwidth(const std::string& key);
  Time time(const std::string& key);
  Bytes bytes(const std::string& key);
  JsonReader object(const std::string& key);
  std::vector<JsonReader> objects(const std::string& key);  // array of objects
  std::vector<std::string> strings(const std::string& key);

  // Optional values: nullopt when absent.
  std::optional<std::string> opt_string(const std::string& key);
  std::optional<double> opt_number(const std::string& key, double min = -1e300, double max = 1e300);
  std::optional<std::int64_t> opt_integer(const std::string& key, std::int64_t min = INT64_MIN,
                                          std::int64_t max = INT64_MAX);
  std::optional<bool> opt_boolean(const std::string& key);
  std::optional<Bandwidth> opt_bandwidth(const std::string& key);
  std::optional<Time> opt_time(const std::string& key);
  std::optional<Bytes> opt_bytes(const std::string& key);
  std::optional<JsonReader> opt_object(const std::string& key);
  std::vector<JsonReader> opt_objects(const std::string& key);  // empty when absent

  // A string restricted to `allowed`; the error lists them and suggests the closest.
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed);
  std::optional<std::string> opt_one_of(const std::string& key, const std::vector<std::string>& allowed);

  // Marks a key as known without reading it (for keys read through json()).
  void allow(const std::string& key) { known_.insert(key); }
  // Throws InputError naming the first key that was never read or allowed, with a did-you-mean.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& problem, const std::string& expected) const;

 private:
  const Json& at(const std::string& key);    // marks known; throws if missing
  const Json* find(const std::string& key);  // marks known; nullptr if missing or null

  const Json* j_;
  std::string file_;
  std::string path_;
  std::set<std::string> known_;
};

// Short printable form of a JSON value for error messages (truncated past 60 characters).
std::string json_snippet(const Json& v);

}  // namespace vgsim
