// Validating JSON reader (see include/vgsim/kernel/json_input.hpp).
#include "vgsim/kernel/json_input.hpp"

#include <fstream>
#include <sstream>

#include "vgsim/kernel/input_files.hpp"

namespace vgsim {

namespace {
const std::set<std::string> kProvenanceKeys = {"source", "sources", "note", "notes", "comment"};

std::string type_name(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}
}  // namespace

std::string json_snippet(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

Json parse_json_text(const std::string& text, const std::string& file) {
  // Turns a byte offset into "line L, column C".
  auto where = [&](std::size_t byte) {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
      if (text[i] == '\n')
        ++line, col = 1;
      else
        ++col;
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
  };
  // Duplicate keys: nlohmann keeps the last one silently (a GPU with "model" twice became another GPU; issue 40).
  // The parser callback sees every key of every object in order; a second one in the same object is refused with
  // the JSON path of the object and the key.
  struct Level {
    std::string path;
    std::set<std::string> keys;
    std::string last_key;
    bool is_array = false;
    std::size_t index = 0;
  };
  std::vector<Level> stack;
  auto child_path = [&]() {
    if (stack.empty()) return std::string("$");
    Level& top = stack.back();
    return top.is_array ? top.path + "[" + std::to_string(top.index++) + "]" : top.path + "." + top.last_key;
  };
  const Json::parser_callback_t check = [&](int, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        stack.push_back(Level{child_path(), {}, "", event == E::array_start, 0});
        break;
      case E::object_end:
      case E::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case E::key: {
        Level& top = stack.back();
        const std::string key = parsed.get<std::string>();
        if (!top.keys.insert(key).second)
          throw InputError(file, top.path + "." + key, "duplicate key (JSON keeps only one of them)", key,
                           "each key once per object");
        top.last_key = key;
        break;
      }
      case E::value:
        if (!stack.empty() && stack.back().is_array) ++stack.back().index;
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, check);
  } catch (const Json::parse_error& e) {
    throw InputError(file, where(e.byte), "not valid JSON (" + std::string(e.what()) + ")");
  } catch (const Json::out_of_range& e) {
    // A number too large for a double ("1e400"): out_of_range.406 "number overflow parsing '<token>'", no offset.
    const std::string msg = e.what();
    const std::size_t open = msg.find('\''), close = msg.rfind('\'');
    const std::string token = open < close ? msg.substr(open + 1, close - open - 1) : "";
    const std::size_t at = token.empty() ? std::string::npos : text.find(token);
    throw InputError(file, at == std::string::npos ? "" : where(at), "not valid JSON (" + msg + ")",
                     token.size() > 60 ? token.substr(0, 57) + "..." : token, "a number within the range of a double");
  }
}

Json load_json_file(const std::string& path) {
  std::ifstream in = open_input(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file", "", "a readable JSON file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
}

JsonReader::JsonReader(const Json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)) {
  if (!j.is_object()) throw InputError(file_, this->path(), "wrong type", type_name(j), "an object");
}

std::string JsonReader::path_of(const std::string& key) const {
  return (path_.empty() ? std::string("$") : path_) + "." + key;
}

bool JsonReader::has(const std::string& key) const {
  auto it = j_->find(key);
  return it != j_->end() && !it->is_null();
}

void JsonReader::fail(const std::string& key, const std::string& problem, const std::string& expected) const {
  auto it = j_->find(key);
  const std::string value = it == j_->end() ? std::string() : json_snippet(*it);
  throw InputError(file_, key.empty() ? path() : path_of(key), problem, value, expected);
}

const Json* JsonReader::find(const std::string& key) {
  known_.insert(key);
  auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) return nullptr;
  return &*it;
}

const Json& JsonReader::at(const std::string& key) {
  const Json* v = find(key);
  if (!v) throw InputError(file_, path_of(key), "missing required key", "", "key '" + key + "' in " + path());
  return *v;
}

std::string JsonReader::string(const std::string& key) {
  const Json& v = at(key);
  if (!v.is_string()) fail(key, "wrong type (" + type_name(v) + ")", "a string");
  return v.get<std::string>();
}

double JsonReader::number(const std::string& key, double min, double max) {
  const Json& v = at(key);
  if (!v.is_number()) fail(key, "wrong type (" + type_name(v) + ")", "a number");
  const double d = v.get<double>();
  if (d < min || d > max)
    fail(key, "out of range", "a number in [" + json_snippet(Json(min)) + ", " + json_snippet(Json(max)) + "]");
  return d;
}

std::int64_t JsonReader::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const Json& v = at(key);
  if (!(v.is_number_integer() || v.is_number_unsigned())) fail(key, "wrong type (" + type_name(v) + ")", "an integer");
  const std::int64_t d = v.get<std::int64_t>();
  if (d < min || d > max)
    fail(key, "out of range", "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return d;
}

bool JsonReader::boolean(const std::string& key) {
  const Json& v = at(key);
  if (!v.is_boolean()) fail(key, "wrong type (" + type_name(v) + ")", "true or false");
  return v.get<bool>();
}

#define VGSIM_UNIT_READER(NAME, TYPE, PARSE, EXAMPLE)                                                          \
  TYPE JsonReader::NAME(const std::string& key) {                                                              \
    const Json& v = at(key);                                                                                   \
    if (!v.is_string()) fail(key, "a quantity needs a unit (" + type_name(v) + ")", "a string like " EXAMPLE); \
    try {                                                                                                      \
      return PARSE(v.get<std::string>());                                                                      \
    } catch (const UnitError& e) {                                                                             \
      fail(key, "bad quantity", e.what());                                                                     \
    }                                                                                                          \
  }
VGSIM_UNIT_READER(bandwidth, Bandwidth, parse_bandwidth, "\"100Gbps\" or \"25GB/s\"")
VGSIM_UNIT_READER(time, Time, parse_time, "\"1.5us\"")
VGSIM_UNIT_READER(bytes, Bytes, parse_bytes, "\"64MiB\"")
#undef VGSIM_UNIT_READER

JsonReader JsonReader::object(const std::string& key) {
  const Json& v = at(key);
  if (!v.is_object()) fail(key, "wrong type (" + type_name(v) + ")", "an object");
  return JsonReader(v, file_, path_of(key));
}

std::vector<JsonReader> JsonReader::objects(const std::string& key) {
  const Json& v = at(key);
  if (!v.is_array()) fail(key, "wrong type (" + type_name(v) + ")", "an array of objects");
  std::vector<JsonReader> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = path_of(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_object())
      throw InputError(file_, p, "wrong type (" + type_name(v[i]) + ")", json_snippet(v[i]), "an object");
    out.emplace_back(v[i], file_, p);
  }
  return out;
}

std::vector<std::string> JsonReader::strings(const std::string& key) {
  const Json& v = at(key);
  if (!v.is_array()) fail(key, "wrong type (" + type_name(v) + ")", "an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      throw InputError(file_, path_of(key) + "[" + std::to_string(i) + "]", "wrong type (" + type_name(v[i]) + ")",
                       json_snippet(v[i]), "a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::optional<std::string> JsonReader::opt_string(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return string(key);
}
std::optional<double> JsonReader::opt_number(const std::string& key, double min, double max) {
  if (!find(key)) return std::nullopt;
  return number(key, min, max);
}
std::optional<std::int64_t> JsonReader::opt_integer(const std::string& key, std::int64_t min, std::int64_t max) {
  if (!find(key)) return std::nullopt;
  return integer(key, min, max);
}
std::optional<bool> JsonReader::opt_boolean(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return boolean(key);
}
std::optional<Bandwidth> JsonReader::opt_bandwidth(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return bandwidth(key);
}
std::optional<Time> JsonReader::opt_time(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return time(key);
}
std::optional<Bytes> JsonReader::opt_bytes(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return bytes(key);
}
std::optional<JsonReader> JsonReader::opt_object(const std::string& key) {
  if (!find(key)) return std::nullopt;
  return object(key);
}
std::vector<JsonReader> JsonReader::opt_objects(const std::string& key) {
  if (!find(key)) return {};
  return objects(key);
}

std::string JsonReader::one_of(const std::string& key, const std::vector<std::string>& allowed) {
  const std::string s = string(key);
  for (const auto& a : allowed)
    if (a == s) return s;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  const std::string hint = did_you_mean(s, allowed);
  fail(key, "unknown value" + (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)"), "one of " + list);
}

std::optional<std::string> JsonReader::opt_one_of(const std::string& key, const std::vector<std::string>& allowed) {
  if (!find(key)) return std::nullopt;
  return one_of(key, allowed);
}

void JsonReader::finish() const {
  std::vector<std::string> candidates(known_.begin(), known_.end());
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (known_.count(it.key()) || kProvenanceKeys.count(it.key())) continue;
    const std::string hint = did_you_mean(it.key(), candidates);
    std::string list;
    for (const auto& c : candidates) list += (list.empty() ? "" : ", ") + c;
    throw InputError(file_, path_of(it.key()),
                     "unknown key '" + it.key() + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), "",
                     "one of: " + list);
  }
}

}  // namespace vgsim
