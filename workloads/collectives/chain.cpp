// Ring broadcast and reduce: every chunk is pipelined along the ring as a chain of n-1 hops, from the root
// (broadcast: root, root+1, ..., root-1) or to the root (reduce: root+1, ..., root), positions in ring order.
// Layout: index = (loop * channels + ch) * (n-1) + hop, topological because dependencies point to an earlier hop of
// the same chunk or to an earlier loop. Data: loopSize = channels * chunk_bytes (broadcast uses 1 chunk step).
#include "builder.hpp"

namespace vgsim::coll {

namespace {
CollectiveSchedule chain_common(Op op, std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto,
                                const GenOptions& o) {
  CollectiveSchedule s;
  const auto order = detail::check_and_init(s, op, Algo::Ring, proto, n, ppn, size, o);
  s.ring_order = order;
  const std::uint32_t c = s.channels;
  const detail::Partition part(size, s.chunk_bytes, c);
  s.loops = part.loops;
  if (n <= 1) return s;
  std::uint32_t root_pos = 0;
  for (std::uint32_t p = 0; p < n; ++p)
    if (order[p] == s.root) root_pos = p;
  // chain[h] = rank at chain position h.
  std::vector<std::uint32_t> chain(n);
  const std::uint32_t start = op == Op::Broadcast ? root_pos : (root_pos + 1) % n;
  for (std::uint32_t h = 0; h < n; ++h) chain[h] = order[(start + h) % n];
  const std::uint32_t hops = n - 1;
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * c * hops;
  detail::check_transfers(total, o, std::string("chain ") + to_string(op));
  detail::Appender app(s, total, total * 3);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  auto idx = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t h) -> std::uint64_t {
    return (l * c + ch) * hops + h;
  };
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t ch = 0; ch < c; ++ch)
      for (std::uint32_t h = 0; h < hops; ++h) {
        const std::uint64_t a = h > 0 ? idx(l, ch, h - 1) : kNone;  // (a) previous hop of the chunk
        const std::uint64_t b = l > 0 ? idx(l - 1, ch, h) : kNone;  // (b) connection order
        const std::uint64_t cd = (l >= s.slots && h + 1 < hops) ? idx(l - s.slots, ch, h + 1) : kNone;  // (c) slot
        app.add(chain[h], chain[h + 1], ch, h, part.piece(l, ch), {a, b, cd});
      }
  return s;
}
}  // namespace

CollectiveSchedule ring_broadcast(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  return chain_common(Op::Broadcast, n, ppn, size, proto, o);
}
CollectiveSchedule ring_reduce(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  return chain_common(Op::Reduce, n, ppn, size, proto, o);
}

}  // namespace vgsim::coll
