// The collective-algorithm registry (algorithm_registry.hpp): the table of records, the built-in list, lookups by
// id and by name, and the names' printing and parsing (coll::to_string(Algo), coll::parse_algo).
#include "vgsim/workloads/collectives/algorithm_registry.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <stdexcept>

#include "builtin_algorithms.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::coll {

namespace {
constexpr std::size_t kMaxAlgorithms = 64;  // Allowed keeps one bit per algorithm

std::string normalize(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

void check_record(const AlgorithmInfo& a, const std::deque<AlgorithmInfo>& table) {
  const std::string key = normalize(a.name);
  auto bad = [&](const std::string& why) {
    throw std::invalid_argument("register_algorithm '" + a.name + "': " + why);
  };
  if (key.empty()) bad("the name is empty");
  for (const AlgorithmInfo& o : table)
    if (normalize(o.name) == key) bad("the name is taken");
  if (!a.generate || !a.base_latency_us || !a.hop_latency_us || !a.latency_us || !a.bandwidth_GBps)
    bad("generate, base_latency_us, hop_latency_us, latency_us and bandwidth_GBps are required");
  if (a.ops.empty()) bad("it implements no collective");
  if (table.size() >= kMaxAlgorithms)
    bad("the registry holds " + std::to_string(kMaxAlgorithms) + " algorithms at most");
}

// The table. The built-in algorithms come first, in NCCL's order: their ids are the rows of NcclTuning's tables
// (Algo::Ring .. Algo::NVLSTree) and the argmin keeps the first of equal times. A new built-in: one line here.
std::deque<AlgorithmInfo>& table() {
  static std::deque<AlgorithmInfo> t = [] {
    std::deque<AlgorithmInfo> d;
    for (AlgorithmInfo a : {detail::ring_algorithm(), detail::tree_algorithm(), detail::nvls_algorithm(),
                            detail::nvls_tree_algorithm()}) {
      check_record(a, d);
      d.push_back(std::move(a));
    }
    return d;
  }();
  return t;
}
}  // namespace

bool AlgorithmInfo::supports(Op op) const { return std::find(ops.begin(), ops.end(), op) != ops.end(); }

Algo register_algorithm(AlgorithmInfo info) {
  std::deque<AlgorithmInfo>& t = table();
  check_record(info, t);
  t.push_back(std::move(info));
  return Algo{static_cast<std::uint8_t>(t.size() - 1)};
}

const AlgorithmInfo& algorithm(Algo a) {
  const std::deque<AlgorithmInfo>& t = table();
  if (a.id >= t.size()) throw std::invalid_argument("no collective algorithm has id " + std::to_string(a.id));
  return t[a.id];
}

std::vector<Algo> algorithms() {
  std::vector<Algo> out;
  for (std::size_t i = 0; i < table().size(); ++i) out.push_back(Algo{static_cast<std::uint8_t>(i)});
  return out;
}

std::optional<Algo> find_algorithm(const std::string& name) {
  const std::string key = normalize(name);
  const std::deque<AlgorithmInfo>& t = table();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (normalize(t[i].name) == key) return Algo{static_cast<std::uint8_t>(i)};
  return std::nullopt;
}

std::string why_unavailable(Algo a, const CommShape& c) {
  const AlgorithmInfo& info = algorithm(a);
  return info.unavailable ? info.unavailable(c) : std::string();
}

std::string algorithm_help() {
  std::string s = "force the algorithm like NCCL_ALGO: ";
  const std::deque<AlgorithmInfo>& t = table();
  for (std::size_t i = 0; i < t.size(); ++i) s += (i == 0 ? "" : i + 1 == t.size() ? " or " : ", ") + t[i].help;
  return s;
}

const char* to_string(Algo a) {
  const std::deque<AlgorithmInfo>& t = table();
  return a.id < t.size() ? t[a.id].name.c_str() : "?";
}

Algo parse_algo(const std::string& s) {
  if (const std::optional<Algo> a = find_algorithm(s)) return *a;
  std::string accepted;
  for (const AlgorithmInfo& a : table()) accepted += (accepted.empty() ? "" : ", ") + a.nccl_name;
  throw UnitError("unknown algorithm '" + s + "', expected one of: " + accepted +
                  " (CollNet and PAT are not modelled)");
}

}  // namespace vgsim::coll
