// Private helpers shared by the generators: the exact byte partition (NCCL loop rule, remainders spread) and an
// appender that writes transfers and their CSR dependencies. Not a public header; no algorithm logic here.
// Invariant: pieces of one partition sum to the total exactly; dependencies are appended sorted and de-duplicated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/generators.hpp"

namespace vgsim::coll::detail {

// Refuses a schedule of `total` transfers beyond the caller's limit (GenOptions) or, when stored, the 32-bit index
// space, before anything is allocated. `what` names the algorithm ("ring allreduce"). A streamed ring stores no
// transfer, but the limit still bounds its work (about two engine events per transfer).
inline void check_transfers(std::uint64_t total, const GenOptions& o, const std::string& what, bool stored = true) {
  if (o.max_transfers > 0 && total > o.max_transfers)
    throw InputError(
        "", "--max-transfers",
        what + " needs " + std::to_string(total) + " step transfers" +
            (stored ? " (about " + std::to_string(total * 64 / (1024 * 1024)) + " MiB before the engine's own state)"
                    : " (streamed: about " + std::to_string(2 * total) + " engine events)"),
        std::to_string(o.max_transfers) + " allowed",
        "a smaller size or fewer ranks, or --max-transfers N to allow more (0 = no limit)");
  if (stored && total >= 0xffffffffull)
    throw InputError("", "size", what + " needs " + std::to_string(total) + " step transfers", "more than 2^32",
                     "a smaller size or fewer ranks (the executor indexes transfers with 32 bits)");
}

// Store the transfers of a streamed header (`s` is a copy of it with streamed cleared): ring.cpp, tree.cpp,
// nvls_tree.cpp.
void materialize_ring(CollectiveSchedule& s);
void materialize_tree(CollectiveSchedule& s);
void materialize_nvls_tree(CollectiveSchedule& s);

// Splits `total` bytes into loops of `per_loop_pieces` pieces of at most `chunk` bytes: all loops but the last are
// full; the last loop's remainder is spread evenly (first R % M pieces get one extra byte).
struct Partition {
  Bytes total = 0, chunk = 0;
  std::uint64_t pieces_per_loop = 1;
  std::uint32_t loops = 1;
  Bytes last_base = 0;           // bytes of a last-loop piece
  std::uint64_t last_extra = 0;  // the first last_extra pieces of the last loop carry one more byte

  Partition(Bytes total_bytes, Bytes chunk_bytes, std::uint64_t m)
      : total(total_bytes), chunk(chunk_bytes), pieces_per_loop(m) {
    const Bytes per_loop = chunk * static_cast<Bytes>(m);
    const Bytes l = total <= 0 ? 1 : (total + per_loop - 1) / per_loop;
    if (l > 0xffffffffLL / 4)
      throw InputError("", "size", "collective needs too many chunk loops", std::to_string(l), "a smaller size");
    loops = static_cast<std::uint32_t>(std::max<Bytes>(1, l));
    const Bytes rem = total - static_cast<Bytes>(loops - 1) * per_loop;
    last_base = rem / static_cast<Bytes>(m);
    last_extra = static_cast<std::uint64_t>(rem % static_cast<Bytes>(m));
  }
  // Bytes of piece `i` (0 <= i < pieces_per_loop) of loop `l`.
  Bytes piece(std::uint32_t l, std::uint64_t i) const {
    if (l + 1 < loops) return chunk;
    return last_base + (i < last_extra ? 1 : 0);
  }
};

class Appender {
 public:
  explicit Appender(CollectiveSchedule& s, std::size_t transfers, std::size_t deps) : s_(s) {
    s_.transfers.reserve(transfers);
    s_.deps.reserve(deps);
  }
  // Appends one transfer; `deps` are indices of earlier transfers (kNone entries are skipped).
  static constexpr std::uint64_t kNone = ~0ull;
  template <std::size_t N>
  void add(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint32_t step, Bytes bytes,
           const std::uint64_t (&deps)[N]) {
    Transfer t;
    t.src = src;
    t.dst = dst;
    t.channel = channel;
    t.step = step;
    t.bytes = bytes;
    t.dep_begin = static_cast<std::uint32_t>(s_.deps.size());
    std::uint64_t d[N];
    std::size_t k = 0;
    for (std::size_t i = 0; i < N; ++i)
      if (deps[i] != kNone) d[k++] = deps[i];
    for (std::size_t i = 1; i < k; ++i)  // insertion sort: at most a handful of entries
      for (std::size_t j = i; j > 0 && d[j - 1] > d[j]; --j) std::swap(d[j - 1], d[j]);
    for (std::size_t i = 0; i < k; ++i)
      if (i == 0 || d[i] != d[i - 1]) s_.deps.push_back(static_cast<std::uint32_t>(d[i]));
    t.dep_count = static_cast<std::uint32_t>(s_.deps.size() - t.dep_begin);
    s_.transfers.push_back(t);
  }
  void add_list(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint32_t step, Bytes bytes,
                std::vector<std::uint64_t>& deps) {
    Transfer t;
    t.src = src;
    t.dst = dst;
    t.channel = channel;
    t.step = step;
    t.bytes = bytes;
    t.dep_begin = static_cast<std::uint32_t>(s_.deps.size());
    std::sort(deps.begin(), deps.end());
    for (std::size_t i = 0; i < deps.size(); ++i)
      if (deps[i] != kNone && (i == 0 || deps[i] != deps[i - 1]))
        s_.deps.push_back(static_cast<std::uint32_t>(deps[i]));
    t.dep_count = static_cast<std::uint32_t>(s_.deps.size() - t.dep_begin);
    s_.transfers.push_back(t);
  }

 private:
  CollectiveSchedule& s_;
};

// Stores every transfer of a stream (tree_stream.hpp, nvls_tree_stream.hpp: count, step(i), index, transfer,
// each_dependency) in index order, with its dependencies; `deps` reserves the dependency list.
template <class Stream>
void store_stream(CollectiveSchedule& s, const Stream& stream, std::size_t deps) {
  const std::uint64_t total = stream.count();
  Appender app(s, total, deps);
  std::vector<std::uint64_t> list;
  for (std::uint64_t i = 0; i < total; ++i) {
    const auto st = stream.step(i);
    list.clear();
    stream.each_dependency(st, [&](const auto& d, bool) {
      list.push_back(stream.index(d));
      return true;
    });
    const Transfer x = stream.transfer(st);
    app.add_list(x.src, x.dst, x.channel, x.step, x.bytes, list);
  }
}

// The send order of a tree's reduce (non-root members by decreasing depth) and broadcast (by increasing depth), so
// every dependency points backwards, and each member's position in both orders.
struct TreeOrder {
  std::vector<std::uint32_t> up_order, down_order, up_pos, down_pos;
};
inline TreeOrder tree_order(const std::vector<std::uint32_t>& depth, std::uint32_t root) {
  const auto n = static_cast<std::uint32_t>(depth.size());
  TreeOrder o;
  std::vector<std::uint32_t> nonroot;
  for (std::uint32_t r = 0; r < n; ++r)
    if (r != root) nonroot.push_back(r);
  o.up_order = o.down_order = nonroot;
  std::stable_sort(o.up_order.begin(), o.up_order.end(), [&](auto a, auto b) { return depth[a] > depth[b]; });
  std::stable_sort(o.down_order.begin(), o.down_order.end(), [&](auto a, auto b) { return depth[a] < depth[b]; });
  o.up_pos.assign(n, 0);
  o.down_pos.assign(n, 0);
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    o.up_pos[o.up_order[i]] = i;
    o.down_pos[o.down_order[i]] = i;
  }
  return o;
}

// Common argument checks and schedule header; returns the ring order (identity when options give none), which the
// ring and chain generators keep in s.ring_order.
std::vector<std::uint32_t> check_and_init(CollectiveSchedule& s, Op op, Algo algo, Proto proto, std::uint32_t ranks,
                                          std::uint32_t ranks_per_node, Bytes size, const GenOptions& o);

}  // namespace vgsim::coll::detail
