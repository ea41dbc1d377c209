// Located input errors and did-you-mean suggestions (see include/vgsim/kernel/input_error.hpp).
#include "vgsim/kernel/input_error.hpp"

#include <algorithm>
#include <numeric>

namespace vgsim {

namespace {
std::string compose(const std::string& file, const std::string& path, const std::string& problem,
                    const std::string& value, const std::string& expected) {
  std::string m = file.empty() ? std::string("<input>") : file;
  if (!path.empty()) m += ": " + path;
  m += ": " + problem;
  if (!value.empty()) m += ": got " + value;
  if (!expected.empty()) m += (value.empty() ? ": expected " : ", expected ") + expected;
  return m;
}
}  // namespace

InputError::InputError(std::string file, std::string json_path, std::string problem, std::string value,
                       std::string expected)
    : std::runtime_error(compose(file, json_path, problem, value, expected)),
      file_(std::move(file)),
      json_path_(std::move(json_path)) {}

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
