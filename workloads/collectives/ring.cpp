// Ring allreduce (reduce-scatter then allgather, 2(n-1) steps), ring allgather and ring reduce-scatter (n-1 steps).
// At step j of a loop, ring position p sends block (p - j) mod n to position p+1 (NCCL's ring prims). Transfers are
// laid out by (global step g = loop * nsteps + j, channel, position): index = (g * channels + ch) * n + p, which is
// a topological order because every dependency (generators.hpp rule) points to step g-1 or earlier.
#include "builder.hpp"

namespace vgsim::coll {

namespace {
CollectiveSchedule ring_common(Op op, std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  CollectiveSchedule s;
  const auto order = detail::check_and_init(s, op, Algo::Ring, proto, n, ppn, size, o);
  const std::uint32_t c = s.channels;
  const detail::Partition part(size, s.chunk_bytes, static_cast<std::uint64_t>(c) * n);
  s.loops = part.loops;
  const std::uint32_t nsteps = ring_steps(op, n);
  if (nsteps == 0) return s;  // one rank: nothing moves
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * nsteps * c * n;
  if (total >= 0xffffffffull) throw std::invalid_argument("ring: more than 2^32 transfers; raise chunk_bytes");
  detail::Appender app(s, total, total * 3);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  const std::uint32_t slots = s.slots;
  auto idx = [&](std::uint64_t g, std::uint32_t ch, std::uint32_t p) -> std::uint64_t { return (g * c + ch) * n + p; };
  for (std::uint32_t l = 0; l < part.loops; ++l) {
    for (std::uint32_t j = 0; j < nsteps; ++j) {
      const std::uint64_t g = static_cast<std::uint64_t>(l) * nsteps + j;
      for (std::uint32_t ch = 0; ch < c; ++ch) {
        for (std::uint32_t p = 0; p < n; ++p) {
          const std::uint32_t prev = p == 0 ? n - 1 : p - 1;
          const std::uint32_t next = p + 1 == n ? 0 : p + 1;
          const std::uint32_t block = static_cast<std::uint32_t>((p + static_cast<std::uint64_t>(n) * 2 - j % n) % n);
          // (a) data: the chunk received at step j-1 from the previous position (none at a loop's first step).
          const std::uint64_t a = j > 0 ? idx(g - 1, ch, prev) : kNone;
          // (b) order: this connection's previous send.
          const std::uint64_t b = g > 0 ? idx(g - 1, ch, p) : kNone;
          // (c) buffer: chunk g-slots must have been forwarded by the receiver (at its step g-slots+1) unless it was
          //     the last step of its loop (stored, not forwarded).
          std::uint64_t cdep = kNone;
          if (g >= slots) {
            const std::uint64_t gp = g - slots;
            if (gp % nsteps != nsteps - 1) cdep = idx(gp + 1, ch, next);
          }
          app.add(order[p], order[next], ch, j, part.piece(l, static_cast<std::uint64_t>(ch) * n + block), {a, b, cdep});
        }
      }
    }
  }
  return s;
}
}  // namespace

CollectiveSchedule ring_allreduce(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  return ring_common(Op::AllReduce, n, ppn, size, proto, o);
}
CollectiveSchedule ring_allgather(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  return ring_common(Op::AllGather, n, ppn, size, proto, o);
}
CollectiveSchedule ring_reducescatter(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  return ring_common(Op::ReduceScatter, n, ppn, size, proto, o);
}

}  // namespace vgsim::coll
