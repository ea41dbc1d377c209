// Ring allreduce (reduce-scatter then allgather, 2(n-1) steps), ring allgather and ring reduce-scatter (n-1 steps).
// At step j of a loop, ring position p sends block (p - j) mod n to position p+1 (NCCL's ring prims). The transfers,
// their bytes and dependencies are RingStream's arithmetic (ring_stream.hpp); this file either returns the header
// alone (GenOptions::steps: the engine streams the steps) or materializes every transfer in RingStream's
// index order, (u * channels + ch) * n + p over sends u (a step's slices), a topological order (every dependency
// points to send u-1 or earlier).
#include <algorithm>
#include <utility>

#include "builder.hpp"
#include "vgsim/workloads/collectives/ring_stream.hpp"

namespace vgsim::coll {

RingStream::RingStream(const CollectiveSchedule& header)
    : n_(header.ranks), c_(header.channels), s_(header.slices), order_(header.ring_order) {
  if (!ring_streamable(header)) throw std::invalid_argument("RingStream: not a ring allreduce/allgather/reducescatter");
  if (n_ == 0 || c_ == 0 || order_.size() != n_ || header.slots < 2 || (s_ != 1 && s_ != 2))
    throw std::invalid_argument("RingStream: header without ranks, channels, ring order, slots or 1 or 2 slices");
  shift_ = s_ == 2 ? 1 : 0;
  room_ = header.slots * s_;
  header_chunk_ = header.chunk_bytes;
  nsteps_ = ring_steps(header.op, n_);
  const detail::Partition part(header.size, header.chunk_bytes, static_cast<std::uint64_t>(c_) * n_);
  loops_ = part.loops;
  chunk_ = part.chunk;
  last_base_ = part.last_base;
  last_extra_ = part.last_extra;
  sends_ = nsteps_ == 0 ? 0 : static_cast<std::uint64_t>(loops_) * nsteps_ * s_;
  if (nsteps_ == 0) nsteps_ = 1;  // one rank: nothing moves (count() == 0); keeps the modulo arithmetic defined
  mod_magic_ = ~std::uint64_t{0} / nsteps_ + 1;
  full_sends_ = loops_ > 0 ? static_cast<std::uint64_t>(loops_ - 1) * nsteps_ * s_ : 0;
  for (std::uint32_t k = 0; k < s_; ++k) {
    full_slice_[k] = ring_slice_bytes(chunk_, k, s_, header_chunk_);
    for (int extra = 0; extra < 2; ++extra)
      last_slice_[extra][k] = ring_slice_bytes(last_base_ + extra, k, s_, header_chunk_);
  }
}

Bytes ring_slice_bytes(Bytes piece, std::uint32_t slice, std::uint32_t slices, Bytes chunk_bytes) {
  if (slices <= 1) return piece;
  constexpr Bytes kAlign = 16 * 4;  // 16 four-byte elements
  const Bytes per = static_cast<Bytes>(slices) * kAlign;
  const Bytes size = std::max((piece + per - 1) / per * kAlign, chunk_bytes / slices / 32);
  const Bytes offset = static_cast<Bytes>(slice) * size;
  return offset >= piece ? 0 : std::min(size, piece - offset);
}

Bytes RingStream::bytes(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const {
  // every loop but the last carries full chunks: no arithmetic on the engine's hot path
  return u < full_sends_ ? full_slice_[u & (s_ - 1)] : slow_bytes(u, ch, p);
}

Bytes RingStream::slow_bytes(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const {
  std::uint32_t j = step_in_loop(u);  // < 2n: j mod n without a division
  if (j >= n_) j -= n_;
  const std::uint32_t block = p >= j ? p - j : p + n_ - j;  // (p - j) mod n
  const std::uint64_t k = static_cast<std::uint64_t>(ch) * n_ + block;
  return last_slice_[k < last_extra_ ? 1 : 0][u & (s_ - 1)];
}

Transfer RingStream::transfer(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const {
  Transfer t;
  t.src = order_[p];
  t.dst = order_[next(p)];
  t.channel = ch;
  t.step = step_in_loop(u);
  t.bytes = bytes(u, ch, p);
  return t;
}

bool ring_streamable(const CollectiveSchedule& s) {
  return s.algo == Algo::Ring && (s.op == Op::AllReduce || s.op == Op::AllGather || s.op == Op::ReduceScatter);
}

namespace detail {
void materialize_ring(CollectiveSchedule& s) {
  const RingStream rs(s);
  const std::uint64_t total = rs.count();
  s.transfers.reserve(total);  // reserve, not resize: no zero-fill pass over hundreds of MB
  s.deps.reserve(total * 3);
  std::uint32_t nd = 0;
  for (std::uint64_t u = 0; u < rs.sends(); ++u) {
    const std::uint64_t ua = rs.data_dep_send(u), uc = rs.buffer_dep_send(u);
    for (std::uint32_t ch = 0; ch < rs.channels(); ++ch)
      for (std::uint32_t p = 0; p < rs.ranks(); ++p) {
        std::uint64_t d[3];
        std::uint32_t k = 0;
        if (ua != RingStream::kNone) d[k++] = rs.index(ua, ch, rs.prev(p));  // (a) data
        if (rs.has_order_dep(u)) d[k++] = rs.index(u - 1, ch, p);            // (b) order
        if (uc != RingStream::kNone) d[k++] = rs.index(uc, ch, rs.next(p));  // (c) buffer
        for (std::uint32_t x = 1; x < k; ++x)
          for (std::uint32_t y = x; y > 0 && d[y - 1] > d[y]; --y) std::swap(d[y - 1], d[y]);
        Transfer t = rs.transfer(u, ch, p);
        t.dep_begin = nd;
        std::uint32_t m = 0;
        for (std::uint32_t x = 0; x < k; ++x)
          if (x == 0 || d[x] != d[x - 1]) {
            s.deps.push_back(static_cast<std::uint32_t>(d[x]));
            ++m;
          }
        t.dep_count = m;
        nd += m;
        s.transfers.push_back(t);
      }
  }
}
}  // namespace detail

namespace {
CollectiveSchedule ring_common(Op op, std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto,
                               const GenOptions& o) {
  CollectiveSchedule s;
  s.ring_order = detail::check_and_init(s, op, Algo::Ring, proto, n, ppn, size, o);
  const detail::Partition part(size, s.chunk_bytes, static_cast<std::uint64_t>(s.channels) * n);
  s.loops = part.loops;
  if (ring_steps(op, n) == 0) return s;  // one rank: nothing moves
  const std::uint64_t sends = static_cast<std::uint64_t>(part.loops) * ring_steps(op, n) * s.slices;
  const bool stream = o.steps == StepStorage::Streamed;
  detail::check_transfers(sends * s.channels * n, o, std::string("ring ") + to_string(op), !stream);
  if (stream) {  // the engine generates the steps as it runs: memory O(ranks x channels), no 2^32 limit
    if (sends > RingStream::kMaxSends)
      throw InputError("", "size", "a streamed ring needs too many sends per connection (loops x steps x slices)",
                       std::to_string(sends), "at most " + std::to_string(RingStream::kMaxSends) + ": a smaller size");
    s.streamed = true;
    return s;
  }
  detail::materialize_ring(s);
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
