// Errors for bad user input. Every error names where it happened (file and JSON path, or CLI option), the bad value
// and what was expected, so a user can fix the input without reading code. The program catches these at the top
// level, prints the message and exits with status 2; it never crashes on bad input.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vgsim {

// A malformed unit string or number, before its location is known.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A located input error: "<file>: <json path>: <problem>: got <value>, expected <expectation>".
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, std::string problem, std::string value = {},
             std::string expected = {});
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }

 private:
  std::string file_, json_path_;
};

// Levenshtein distance; used for did-you-mean suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is plausibly a typo (distance <= max(2, |word|/3)), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace vgsim
