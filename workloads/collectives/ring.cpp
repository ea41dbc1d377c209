// Ring allreduce (reduce-scatter then allgather, 2(n-1) steps), ring allgather and ring reduce-scatter (n-1 steps).
// At step j of a loop, ring position p sends block (p - j) mod n to position p+1 (NCCL's ring prims). Transfers are
// laid out by (global step g = loop * nsteps + j, channel, position): index = (g * channels + ch) * n + p, which is
// a topological order because every dependency (generators.hpp rule) points to step g-1 or earlier.
#include <utility>

#include "builder.hpp"

namespace vgsim::coll {

namespace {
CollectiveSchedule ring_common(Op op, std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto,
                               const GenOptions& o) {
  CollectiveSchedule s;
  const auto order = detail::check_and_init(s, op, Algo::Ring, proto, n, ppn, size, o);
  s.ring_order = order;
  const std::uint32_t c = s.channels;
  const detail::Partition part(size, s.chunk_bytes, static_cast<std::uint64_t>(c) * n);
  s.loops = part.loops;
  const std::uint32_t nsteps = ring_steps(op, n);
  if (nsteps == 0) return s;  // one rank: nothing moves
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * nsteps * c * n;
  detail::check_transfers(total, o, std::string("ring ") + to_string(op));
  // Hot loop (millions of transfers): write straight into pre-sized arrays; dependencies are emitted in ascending
  // index order without sorting: (c) -> position p+1, (a) -> p-1, (b) -> p, all at step g-1 when slots == 2.
  s.transfers.reserve(total);  // reserve, not resize: no zero-fill pass over hundreds of MB
  s.deps.reserve(total * 3);
  std::uint32_t nd = 0;
  const std::uint32_t slots = s.slots;
  auto idx = [&](std::uint64_t g, std::uint32_t ch, std::uint32_t p) -> std::uint32_t {
    return static_cast<std::uint32_t>((g * c + ch) * n + p);
  };
  std::vector<Bytes> piece(static_cast<std::size_t>(c) * n);
  for (std::uint32_t l = 0; l < part.loops; ++l) {
    for (std::uint64_t i = 0; i < piece.size(); ++i) piece[i] = part.piece(l, i);
    for (std::uint32_t j = 0; j < nsteps; ++j) {
      const std::uint64_t g = static_cast<std::uint64_t>(l) * nsteps + j;
      // (c) buffer: chunk g-slots must have been forwarded by the receiver at its step g-slots+1, unless it was
      //     the last step of its loop (stored, not forwarded).
      const bool has_c = g >= slots && (g - slots) % nsteps != nsteps - 1;
      const std::uint64_t gc = has_c ? g - slots + 1 : 0;
      const std::uint32_t jm = j % n;
      for (std::uint32_t ch = 0; ch < c; ++ch) {
        const Bytes* pc = piece.data() + static_cast<std::size_t>(ch) * n;
        std::uint32_t block = n - jm;  // block sent by position p: (p - j) mod n
        if (block == n) block = 0;
        for (std::uint32_t p = 0; p < n; ++p) {
          const std::uint32_t prev = p == 0 ? n - 1 : p - 1;
          const std::uint32_t next = p + 1 == n ? 0 : p + 1;
          std::uint32_t d[3];
          std::uint32_t k = 0;
          if (j > 0) d[k++] = idx(g - 1, ch, prev);  // (a) data: the chunk received at step j-1
          if (g > 0) d[k++] = idx(g - 1, ch, p);     // (b) order: this connection's previous send
          if (has_c) d[k++] = idx(gc, ch, next);     // (c) buffer slot at the receiver
          for (std::uint32_t x = 1; x < k; ++x)
            for (std::uint32_t y = x; y > 0 && d[y - 1] > d[y]; --y) std::swap(d[y - 1], d[y]);
          Transfer t;
          t.src = order[p];
          t.dst = order[next];
          t.channel = ch;
          t.step = j;
          t.bytes = pc[block];
          t.dep_begin = nd;
          std::uint32_t m = 0;
          for (std::uint32_t x = 0; x < k; ++x)
            if (x == 0 || d[x] != d[x - 1]) {
              s.deps.push_back(d[x]);
              ++m;
            }
          t.dep_count = m;
          nd += m;
          s.transfers.push_back(t);
          block = block + 1 == n ? 0 : block + 1;
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
CollectiveSchedule ring_reducescatter(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto,
                                      const GenOptions& o) {
  return ring_common(Op::ReduceScatter, n, ppn, size, proto, o);
}

}  // namespace vgsim::coll
