// Validation of collective schedules (see validate.hpp): the structure every schedule must have (indices, CSR
// dependencies in topological order, switch legs only where the algorithm has them, byte totals) is checked here;
// the collective's per-rank semantics are the algorithm's (AlgorithmInfo::check_bytes, in its file). Expected bytes
// are derived from the collective's semantics and the documented data split (generators.hpp), not from the
// generator code paths.
#include "vgsim/workloads/collectives/validate.hpp"

#include "builtin_algorithms.hpp"

namespace vgsim::coll {

namespace detail {
std::vector<Bytes> blocks(const CollectiveSchedule& s, std::uint32_t n) {
  const Partition part(s.size, s.chunk_bytes, static_cast<std::uint64_t>(s.channels) * n);
  std::vector<Bytes> block(n, 0);
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t c = 0; c < s.channels; ++c)
      for (std::uint32_t b = 0; b < n; ++b) block[b] += part.piece(l, static_cast<std::uint64_t>(c) * n + b);
  return block;
}
}  // namespace detail

Bytes required_total_bytes(Op op, std::uint32_t n, Bytes S, Algo algo, std::uint32_t ppn) {
  if (n <= 1) return 0;
  const AlgorithmInfo& a = algorithm(algo);
  if (a.required_bytes) return a.required_bytes(op, n, S, ppn);
  const Bytes k = static_cast<Bytes>(n - 1);
  switch (op) {
    case Op::AllReduce:
      return 2 * k * S;
    case Op::SendRecv:
      return static_cast<Bytes>(n) * S;
    default:
      return k * S;
  }
}

namespace {
// "NVLS and NVLS Tree": the titles of the algorithms whose schedules may name the switch.
std::string switch_algorithms() {
  std::vector<std::string> titles;
  for (Algo a : algorithms())
    if (algorithm(a).switch_legs) titles.push_back(algorithm(a).title);
  std::string out;
  for (std::size_t i = 0; i < titles.size(); ++i)
    out += (i == 0 ? "" : i + 1 == titles.size() ? " and " : ", ") + titles[i];
  return out;
}

// The per-transfer structure: endpoints, channel, bytes, CSR dependencies. Fills the tally and returns the total.
Bytes check_transfers(const CollectiveSchedule& s, const AlgorithmInfo& info, ByteTally& tally, const Fail& fail) {
  const std::uint32_t n = s.ranks;
  std::uint64_t expect_begin = 0;
  Bytes total = 0;
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    const bool to_sw = t.dst == kSwitchRank, from_sw = t.src == kSwitchRank;
    auto at = [i] { return "transfer " + std::to_string(i); };  // built only on failure
    if (to_sw || from_sw) {
      if (!info.switch_legs) {
        fail(at() + " names the NVSwitch in a " + info.name + " schedule (only " + switch_algorithms() + " may)");
        continue;
      }
      if (to_sw && from_sw) {
        fail(at() + " goes from the switch to the switch");
        continue;
      }
    } else if (info.check_gpu_transfer) {
      const std::string m = info.check_gpu_transfer(s, t, i);
      if (!m.empty()) {
        fail(m);
        continue;
      }
    }
    if ((!from_sw && t.src >= n) || (!to_sw && t.dst >= n)) {
      fail(at() + " names a rank outside 0.." + std::to_string(n - 1));
      continue;
    }
    if (t.src == t.dst) fail(at() + " sends to itself");
    if (t.channel >= s.channels) fail(at() + " uses channel " + std::to_string(t.channel));
    if (t.bytes < 0) fail(at() + " has negative bytes");
    if (t.dep_begin != expect_begin) fail(at() + ": dependencies are not contiguous CSR");
    expect_begin = static_cast<std::uint64_t>(t.dep_begin) + t.dep_count;
    if (expect_begin > s.deps.size()) {
      fail(at() + ": dependency range past the end");
      continue;
    }
    for (std::uint32_t d = 0; d < t.dep_count; ++d)
      if (s.deps[t.dep_begin + d] >= i)
        fail(at() + " depends on " + std::to_string(s.deps[t.dep_begin + d]) + " (not topological)");
    if (!to_sw) tally.recv[t.dst] += t.bytes;
    if (!from_sw) tally.sent[t.src] += t.bytes;
    total += t.bytes;
  }
  if (expect_begin != s.deps.size()) fail("deps has entries no transfer uses");
  return total;
}
}  // namespace

std::vector<std::string> validate(const CollectiveSchedule& s, std::size_t max_errors) {
  std::vector<std::string> err;
  const Fail fail = [&](const std::string& m) {
    if (err.size() < max_errors) err.push_back(m);
  };
  const AlgorithmInfo& info = algorithm(s.algo);
  const std::uint32_t n = s.ranks;
  const std::uint32_t ppn = s.ranks_per_node == 0 ? n : s.ranks_per_node;
  if (info.check_layout) {
    const std::string m = info.check_layout(s);
    if (!m.empty()) {
      fail(m);
      return err;
    }
  }
  ByteTally tally{std::vector<Bytes>(n, 0), std::vector<Bytes>(n, 0)};
  const Bytes total = check_transfers(s, info, tally, fail);
  if (!err.empty()) return err;
  const Bytes required = required_total_bytes(s.op, n, s.size, s.algo, ppn);
  if (total != required) fail("total bytes " + std::to_string(total) + " != required " + std::to_string(required));
  if (n <= 1) return err;
  if (info.check_bytes) info.check_bytes(s, tally, fail);
  return err;
}

}  // namespace vgsim::coll
