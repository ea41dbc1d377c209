// Parameter declarations, value checking and the registry (see include/vgsim/kernel/parameter.hpp).
#include "vgsim/kernel/parameter.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Number:
      return "number";
    case ParamType::Integer:
      return "integer";
    case ParamType::Boolean:
      return "boolean";
    case ParamType::Choice:
      return "choice";
    case ParamType::Text:
      return "text";
    case ParamType::Bytes:
      return "size";
    case ParamType::Time:
      return "time";
  }
  return "?";
}

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool in_range(const ParamDecl& d, double v) {
  return std::isfinite(v) && (d.min_open ? v > d.min : v >= d.min) && v <= d.max;
}

}  // namespace

std::string ParamDecl::expectation() const {
  switch (type) {
    case ParamType::Boolean:
      return "true or false";
    case ParamType::Choice:
      return "one of " + joined(choices);
    case ParamType::Text:
      return help.empty() ? "text" : help;
    case ParamType::Bytes:
      return "a size such as 64MiB (0 allowed)";
    case ParamType::Time:
      return "a time such as 5ms";
    case ParamType::Number:
    case ParamType::Integer:
      break;
  }
  const std::string what = type == ParamType::Integer ? "an integer" : "a number";
  const bool lo = std::isfinite(min), hi = std::isfinite(max);
  if (lo && hi) return what + " in " + (min_open ? "(" : "[") + num(min) + ", " + num(max) + "]";
  if (lo) return what + (min_open ? " > " : " >= ") + num(min);
  if (hi) return what + " <= " + num(max);
  return what;
}

Json read_param(const ParamDecl& d, const std::string& text, const std::string& origin) {
  auto bad = [&](const std::string& problem) {
    return InputError(origin, d.name, problem, "'" + text + "'", d.expectation());
  };
  switch (d.type) {
    case ParamType::Boolean:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      throw bad("not a boolean");
    case ParamType::Choice:
      for (const auto& c : d.choices)
        if (c == text) return text;
      throw bad("not an accepted value");
    case ParamType::Text:
      if (text.empty()) throw bad("empty value");
      return text;
    case ParamType::Bytes:
      try {
        (void)parse_bytes(text);
      } catch (const UnitError& e) {
        throw InputError(origin, d.name, "bad size", "'" + text + "'", e.what());
      }
      return text;
    case ParamType::Time:
      try {
        (void)parse_time(text);
      } catch (const UnitError& e) {
        throw InputError(origin, d.name, "bad time", "'" + text + "'", e.what());
      }
      return text;
    case ParamType::Integer: {
      std::int64_t i = 0;
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
      if (ec != std::errc() || p != text.data() + text.size()) throw bad("not an integer");
      if (!in_range(d, static_cast<double>(i))) throw bad("out of range");
      return i;
    }
    case ParamType::Number: {
      double v = 0.0;
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) throw bad("not a number");
      if (!in_range(d, v)) throw bad("out of range");
      return v;
    }
  }
  throw bad("unreadable value");
}

Json read_param(const ParamDecl& d, const Json& value, const std::string& origin, const std::string& path) {
  auto bad = [&](const std::string& problem) {
    return InputError(origin, path, problem, json_snippet(value), d.expectation());
  };
  switch (d.type) {
    case ParamType::Boolean:
      if (!value.is_boolean()) throw bad("wrong type");
      return value;
    case ParamType::Integer:
      if (!value.is_number_integer() || !in_range(d, value.get<double>())) throw bad("bad value");
      return value;
    case ParamType::Number:
      if (!value.is_number() || !in_range(d, value.get<double>())) throw bad("bad value");
      return value;
    case ParamType::Text:
      // Owners that take a name or a number (NCCL's legacy path levels) read the text of either.
      if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
      [[fallthrough]];
    case ParamType::Choice:
    case ParamType::Bytes:
    case ParamType::Time:
      if (!value.is_string()) throw bad("wrong type");
      try {
        return read_param(d, value.get<std::string>(), origin);
      } catch (const InputError& e) {
        throw e.located(origin, path);
      }
  }
  throw bad("unreadable value");
}

std::pair<std::string, std::string> split_assignment(const std::string& kv, const std::string& origin) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(origin, "", "not a key=value pair", "'" + kv + "'",
                     "key=value with a name `vgsim params` lists, e.g. batch_per_gpu=256, compute.eff_compute=0.5, "
                     "nccl.base_latency.ring.simple=8.4");
  return {kv.substr(0, eq), kv.substr(eq + 1)};
}

std::string param_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return num(v.get<double>());
  return v.dump();
}

void ParamRegistry::add(ParamDecl d) {
  if (index_.count(d.name) || aliases_.count(d.name)) throw std::logic_error("parameter declared twice: " + d.name);
  index_[d.name] = decls_.size();
  decls_.push_back(std::move(d));
}

void ParamRegistry::add(const std::vector<ParamDecl>& ds) {
  for (const auto& d : ds) add(d);
}

void ParamRegistry::alias(const std::string& legacy, const std::string& canonical) {
  if (!index_.count(canonical) || index_.count(legacy))
    throw std::logic_error("bad parameter alias " + legacy + " -> " + canonical);
  aliases_[legacy] = canonical;
}

const ParamDecl* ParamRegistry::find(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) {
    const auto a = aliases_.find(name);
    if (a == aliases_.end()) return nullptr;
    it = index_.find(a->second);
  }
  return &decls_[it->second];
}

const ParamDecl& ParamRegistry::require(const std::string& name, const std::string& origin) const {
  if (const ParamDecl* d = find(name)) return *d;
  std::string dym = did_you_mean(name, names());
  for (const auto& d : decls_)  // an old prefixed spelling ("settings.batch_per_gpu") of a listed name
    if (dym.empty() && name.size() > d.name.size() + 1 &&
        name.compare(name.size() - d.name.size(), d.name.size(), d.name) == 0 &&
        name[name.size() - d.name.size() - 1] == '.')
      dym = d.name;
  if (dym.empty()) {  // else the name sharing the longest head (4 characters or more): "batchsize" -> batch_per_gpu
    std::size_t best = 3;
    for (const auto& d : decls_) {
      std::size_t k = 0;
      while (k < name.size() && k < d.name.size() && name[k] == d.name[k]) ++k;
      if (k > best) best = k, dym = d.name;
    }
  }
  throw InputError(origin, name, "unknown parameter", "'" + name + "'",
                   (dym.empty() ? std::string() : "did you mean '" + dym + "'? ") +
                       "a name `vgsim params` lists for this job (" + std::to_string(decls_.size()) + " parameters)");
}

std::vector<std::string> ParamRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(decls_.size());
  for (const auto& d : decls_) out.push_back(d.name);
  return out;
}

}  // namespace vgsim
