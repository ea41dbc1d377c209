// nccl-tests sendrecv: every rank r sends `size` bytes to (r+1) % n (and receives as much from r-1), split over
// channels and p2p chunks. Each connection is FIFO (rule (b)); the receiver copies a chunk out on arrival, so no slot
// dependency arises. Layout: index = (loop * channels + ch) * n + r. One rank: nothing moves.
#include "builder.hpp"

namespace vgsim::coll {

CollectiveSchedule sendrecv(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  CollectiveSchedule s;
  detail::check_and_init(s, Op::SendRecv, Algo::Ring, proto, n, ppn, size, o);
  const std::uint32_t c = s.channels;
  const detail::Partition part(size, s.chunk_bytes, c);
  s.loops = part.loops;
  if (n <= 1) return s;
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * c * n;
  detail::check_transfers(total, o, "sendrecv");
  detail::Appender app(s, total, total);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t ch = 0; ch < c; ++ch)
      for (std::uint32_t r = 0; r < n; ++r) {
        const std::uint64_t b = l > 0 ? (static_cast<std::uint64_t>(l - 1) * c + ch) * n + r : kNone;
        app.add(r, (r + 1) % n, ch, 0, part.piece(l, ch), {b});
      }
  return s;
}

}  // namespace vgsim::coll
