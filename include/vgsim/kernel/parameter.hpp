// A model parameter declared once, beside the code that owns it (in the manner of ns-3 attributes and SimGrid's
// config::Flag): one dotted name, its type, unit, bounds or choices, help and the source of its default. The same name
// is used by `--set name=value`, scenario files, sweep plans, `vgsim params` and reports. A ParamRegistry holds the
// declarations a command accepts; values given as text or JSON are checked against their declaration here, and an
// unknown name gets a did-you-mean over the registry. Domain-free: the owners (training settings, compute model, NCCL,
// vGPU, ...) declare their parameters in their own folders.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/kernel/json_input.hpp"

namespace vgsim {

enum class ParamType {
  Number,   // a finite real within [min, max] (or (min, max] with min_open)
  Integer,  // a whole number within [min, max]
  Boolean,  // true / false
  Choice,   // one of `choices`
  Text,     // any text the owner validates itself (e.g. an NCCL release "2.18.3", a path level "PHB" or "3")
  Bytes,    // a size with unit ("64MiB", "0"): kept as text, checked with parse_bytes
  Time,     // a time with unit ("5ms"): kept as text, checked with parse_time
};
const char* to_string(ParamType t);

struct ParamDecl {
  std::string name;  // dotted, e.g. "horovod.cycle_time", "compute.eff_compute", "nccl.gdr_level"
  ParamType type = ParamType::Number;
  std::string unit;  // "", "samples", "fraction", "MiB", "us", ... (Bytes/Time carry theirs in the value)
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;             // min itself excluded
  std::vector<std::string> choices;  // ParamType::Choice
  std::string help;                  // what it means, one line
  std::string source;                // where its default comes from (file, citation or "[assumption]")

  // Range or choices in words, e.g. "a number in (0, 1]", "one of fp32, amp".
  std::string expectation() const;
};

// Reads `text` (the right side of --set name=value) as a value of `d`: a JSON number, integer, boolean or string.
// Throws InputError(origin, d.name, ..., expectation) when it does not fit.
Json read_param(const ParamDecl& d, const std::string& text, const std::string& origin);
// Same for a value given in JSON (a scenario or plan); `path` is its JSON path for the error.
Json read_param(const ParamDecl& d, const Json& value, const std::string& origin, const std::string& path);
// Splits "name=value" at the first '=' (InputError naming `origin` when there is none or the name is empty).
std::pair<std::string, std::string> split_assignment(const std::string& kv, const std::string& origin);
// The value as `vgsim params` prints it: strings bare, numbers in %g, booleans true/false.
std::string param_text(const Json& value);

class ParamRegistry {
 public:
  // Adds a declaration; a second declaration of one name is a programming error (std::logic_error).
  void add(ParamDecl d);
  void add(const std::vector<ParamDecl>& ds);
  // A legacy spelling (older sweep plans) read as `canonical`; not listed.
  void alias(const std::string& legacy, const std::string& canonical);
  const ParamDecl* find(const std::string& name) const;  // through aliases; nullptr when unknown
  // The declaration of `name`; an unknown name is an InputError naming `origin`, with a did-you-mean.
  const ParamDecl& require(const std::string& name, const std::string& origin) const;
  const std::vector<ParamDecl>& all() const { return decls_; }  // in declaration order
  std::vector<std::string> names() const;

 private:
  std::vector<ParamDecl> decls_;
  std::map<std::string, std::size_t> index_;
  std::map<std::string, std::string> aliases_;
};

}  // namespace vgsim
