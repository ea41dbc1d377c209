// Private helpers for the text-table importers (nccl-tests, OSU): whitespace tokenising, strict number parsing,
// the rounding half-unit of a printed number, file reading. Not a public header; errors are reported by the callers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vgsim::calibrate::detail {

std::vector<std::string> split_ws(std::string_view line);
// Whole-token integer; '_' digit separators allowed ("1048_576"). nullopt if not an integer.
std::optional<std::int64_t> parse_int_token(std::string_view tok);
// Whole-token finite double ("12.25", "1e+05"). nullopt otherwise.
std::optional<double> parse_double_token(std::string_view tok);
// Half of one unit in the last printed digit: "12.25" -> 0.005, "16801" -> 0.5, "1.5e+03" -> 50.
double half_unit(std::string_view tok);
std::string basename_of(const std::string& path);
// Whole file as text; throws InputError(path, "", "cannot open file") when unreadable.
std::string read_text_file(const std::string& path, const std::string& what);
// Lines without their '\n' (and a trailing '\r').
std::vector<std::string> split_lines(const std::string& text);
std::string to_lower(std::string s);

}  // namespace vgsim::calibrate::detail
