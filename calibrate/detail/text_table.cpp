// Private text helpers for the importers (see detail/text_table.hpp).
#include "text_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"

namespace vgsim::calibrate::detail {

std::vector<std::string> split_ws(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<std::int64_t> parse_int_token(std::string_view tok) {
  std::string digits;
  for (std::size_t i = 0; i < tok.size(); ++i) {
    const char c = tok[i];
    if (c == '_') {
      // A separator must sit between digits.
      if (i == 0 || i + 1 == tok.size() || !std::isdigit(static_cast<unsigned char>(tok[i - 1])) ||
          !std::isdigit(static_cast<unsigned char>(tok[i + 1])))
        return std::nullopt;
      continue;
    }
    digits += c;
  }
  if (digits.empty()) return std::nullopt;
  std::int64_t v = 0;
  const auto* b = digits.data();
  const auto* e = digits.data() + digits.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e) return std::nullopt;
  return v;
}

std::optional<double> parse_double_token(std::string_view tok) {
  if (tok.empty()) return std::nullopt;
  double v = 0;
  const char* b = tok.data();
  const char* e = tok.data() + tok.size();
  if (*b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

double half_unit(std::string_view tok) {
  int exponent = 0;
  const auto epos = tok.find_first_of("eE");
  std::string_view mant = tok.substr(0, epos);
  if (epos != std::string_view::npos) {
    if (auto e = parse_int_token(tok.substr(epos + 1 + (tok.size() > epos + 1 && tok[epos + 1] == '+' ? 1 : 0))))
      exponent = static_cast<int>(*e);
    else if (tok.size() > epos + 1 && tok[epos + 1] == '-')
      if (auto e2 = parse_int_token(tok.substr(epos + 2))) exponent = -static_cast<int>(*e2);
  }
  const auto dot = mant.find('.');
  const int decimals = dot == std::string_view::npos ? 0 : static_cast<int>(mant.size() - dot - 1);
  return 0.5 * std::pow(10.0, exponent - decimals);
}

std::string basename_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in = open_input(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file", "", what);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace vgsim::calibrate::detail
