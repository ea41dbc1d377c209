// Located input errors and did-you-mean suggestions (see include/vgsim/kernel/input_error.hpp).
#include "vgsim/kernel/input_error.hpp"

#include <algorithm>
#include <numeric>

namespace vgsim {

namespace {
std::string compose(const std::string& file, const std::string& path, const std::string& problem,
                    const std::string& value, const std::string& expected) {
  // Bounds per part: the value is the user's (cut short); the expectation may list choices (preset names).
  // A command-line option alone names the place ("--op: ..."); "<input>" only stands in for an unnamed source.
  std::string m = !file.empty() ? excerpt(file, 300) : path.rfind('-', 0) == 0 ? std::string() : std::string("<input>");
  if (!path.empty()) m += (m.empty() ? "" : ": ") + excerpt(path, 300);
  m += ": " + excerpt(problem, 400, true);
  if (!value.empty()) m += ": got " + excerpt(value, 200);
  if (!expected.empty()) m += (value.empty() ? ": expected " : ", expected ") + excerpt(expected, 1600, true);
  return m;
}
}  // namespace

std::string excerpt(std::string_view text, std::size_t max, bool keep_newlines) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= max) return out + "...";
    const auto c = static_cast<unsigned char>(text[i]);
    // Length of a well-formed UTF-8 sequence starting here (0: not one).
    std::size_t n = c < 0x80                          ? 1
                    : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2
                    : (c & 0xF0) == 0xE0              ? 3
                    : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4
                                                      : 0;
    for (std::size_t k = 1; k < n; ++k)
      if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) n = 0;
    const bool control = c < 0x20 || c == 0x7F;
    if (n == 0 || (control && !(keep_newlines && (c == '\n' || c == '\t')))) {
      static const char* hex = "0123456789abcdef";
      const char esc[] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
      out.append(esc, sizeof esc);
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

InputError::InputError(std::string file, std::string json_path, std::string problem, std::string value,
                       std::string expected)
    : std::runtime_error(compose(file, json_path, problem, value, expected)),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      problem_(std::move(problem)),
      value_(std::move(value)),
      expected_(std::move(expected)) {}

InputError InputError::located(std::string file, std::string json_path) const {
  return InputError(std::move(file), std::move(json_path), problem_, value_, expected_);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace vgsim
