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

// A located input error: "<file>: <json path>: <problem>: got <value>, expected <expectation>". The message is
// built from excerpts (see excerpt()): a value is cut past 200 bytes, the whole message stays under about 2.5 kB, and
// raw control bytes or invalid UTF-8 are escaped, so a 100 kB value or a binary file never floods the terminal.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, std::string problem, std::string value = {},
             std::string expected = {});
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  // The same error at another place, e.g. a "--cluster" error raised while reading a jobs file's "$.jobs[0].cluster".
  InputError located(std::string file, std::string json_path) const;

 private:
  std::string file_, json_path_, problem_, value_, expected_;
};

// A printable excerpt of `text` for a message: control bytes (but newline and tab when `keep_newlines`), DEL and
// invalid UTF-8 become \xNN escapes, and text past `max` bytes is cut, ending in "...".
std::string excerpt(std::string_view text, std::size_t max = 200, bool keep_newlines = false);

// Levenshtein distance; used for did-you-mean suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is plausibly a typo (distance <= max(2, |word|/3)), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace vgsim
