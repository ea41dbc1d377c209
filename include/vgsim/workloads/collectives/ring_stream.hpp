// A ring schedule (allreduce, allgather, reducescatter) as arithmetic instead of stored transfers: the transfer at
// (send u, channel ch, ring position p), its bytes and its dependencies are computed from the schedule's header (op,
// ranks, channels, size, chunk_bytes, slots, slices, loops, ring_order). ring.cpp materializes a schedule from these
// same functions, and the engine (sim/ring_run) streams them, so both forms have one definition.
// A connection's sends: u = g * S + s, slice s of global step g (loops x steps per loop), S = header.slices (NCCL's
// SlicePerChunk: a chunk leaves as S slices, each forwarded as soon as it has arrived, prims_simple.h genericOp).
// Index: (u * channels + ch) * ranks + p (a topological order; 64 bits: a 16,384-rank ring of 8 channels has more
// than 2^32 transfers). Dependencies of (u, ch, p), the generators.hpp rule at slice granularity:
//   (a) data:   (u-S, ch, p-1) when the step inside the loop j = g mod nsteps is > 0 (the same slice of the chunk
//               received at j-1);
//   (b) order:  (u-1, ch, p) when u > 0 (this connection's previous send);
//   (c) buffer: (u-slots*S+S, ch, p+1) when u >= slots*S and step (u-slots*S)/S was not the last of its loop (the
//               receiver forwarded slice u-slots*S, freeing its room: NCCL's buffer holds NCCL_STEPS steps, slots
//               chunks of S slices; a last step's slice is stored, not forwarded).
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

class RingStream {
 public:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  // Sends per connection (loops x steps per loop x slices) a streamed ring may have: the engine packs a send into a
  // 64-bit event tag with 31 bits for it (sim/ring_run.hpp). The generator refuses a larger streamed ring as an
  // input error.
  static constexpr std::uint64_t kMaxSends = (std::uint64_t{1} << 31) - 2;

  // `header`: a ring allreduce / allgather / reducescatter schedule (its transfers are not read).
  explicit RingStream(const CollectiveSchedule& header);

  std::uint32_t ranks() const { return n_; }
  std::uint32_t channels() const { return c_; }
  std::uint32_t slices() const { return s_; }
  std::uint32_t steps_per_loop() const { return nsteps_; }
  std::uint64_t sends() const { return sends_; }  // per connection: loops x steps per loop x slices
  std::uint64_t count() const { return sends_ * c_ * n_; }
  std::uint64_t index(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const { return (u * c_ + ch) * n_ + p; }
  std::uint32_t next(std::uint32_t p) const { return p + 1 == n_ ? 0 : p + 1; }
  std::uint32_t prev(std::uint32_t p) const { return p == 0 ? n_ - 1 : p - 1; }
  // Rank at ring position p.
  std::uint32_t rank_at(std::uint32_t p) const { return order_[p]; }

  // Send u's step inside its loop, j = (u / S) mod nsteps (S a power of two, and Lemire, Kaser and Kurz's remainder
  // by multiplication, "Faster remainder by direct computation", 2019: no division on the engine's hot path; valid
  // for the < 2^32 steps the engine accepts).
  std::uint32_t step_in_loop(std::uint64_t u) const {
    const std::uint64_t low = mod_magic_ * static_cast<std::uint32_t>(u >> shift_);
    return static_cast<std::uint32_t>((static_cast<unsigned __int128>(low) * nsteps_) >> 64);
  }
  // The send of the data dependency (a) of send u (at position p-1), or kNone.
  std::uint64_t data_dep_send(std::uint64_t u) const { return step_in_loop(u) != 0 ? u - s_ : kNone; }
  bool has_order_dep(std::uint64_t u) const { return u > 0; }
  // The send of the buffer dependency (c) of send u (at position p+1), or kNone.
  std::uint64_t buffer_dep_send(std::uint64_t u) const {
    return u >= room_ && step_in_loop(u - room_) != nsteps_ - 1 ? u - room_ + s_ : kNone;
  }
  // The receiver's buffer in sends (slots x slices).
  std::uint32_t room() const { return room_; }
  // Payload bytes of (u, ch, p): slice u mod S of block (p - j) mod n of channel ch in loop g / nsteps.
  Bytes bytes(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const;
  // The transfer (u, ch, p) without its dependency fields.
  Transfer transfer(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const;

 private:
  std::uint32_t n_ = 0, c_ = 1, s_ = 1, shift_ = 0, room_ = 2, nsteps_ = 1;
  std::uint64_t sends_ = 0;
  std::uint64_t mod_magic_ = 0;   // 2^64 / nsteps rounded up (step_in_loop)
  std::uint64_t full_sends_ = 0;  // sends of the full loops (every loop but the last): their slices are full_slice_
  Bytes full_slice_[2] = {0, 0};  // bytes of slice 0 and 1 of a full chunk
  Bytes last_slice_[2][2] = {};   // [one more byte or not][slice] of a last-loop piece
  Bytes header_chunk_ = 0;        // the header's chunk_bytes (ring_slice_bytes' floor)
  Bytes slow_bytes(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const;  // a last-loop send's bytes
  std::vector<std::uint32_t> order_;
  // The byte partition (builder.hpp Partition): full loops carry chunk_ per piece; the last loop base_ bytes, the
  // first extra_ of its channels x ranks pieces one byte more.
  std::uint32_t loops_ = 1;
  Bytes chunk_ = 0, last_base_ = 0;
  std::uint64_t last_extra_ = 0;
};

// Bytes of slice `slice` (0-based) of a `piece`-byte chunk sent as `slices` slices, NCCL's rule (prims_simple.h
// genericOp): sliceSize = max(divUp(nelem, 16 x slices) x 16, stepSize x StepPerSlice / 32) elements, slices taken
// in turn, those past the end empty (NCCL still posts them). Elements are 4 bytes (nccl-tests' default float; an
// assumption for other types), so 16 elements are 64 bytes; `chunk_bytes` is the header's full chunk (slices x
// stepSize x StepPerSlice). slices == 1: the piece.
Bytes ring_slice_bytes(Bytes piece, std::uint32_t slice, std::uint32_t slices, Bytes chunk_bytes);

// True when `s` is a ring the stream describes (allreduce, allgather or reducescatter on the Ring algorithm).
bool ring_streamable(const CollectiveSchedule& s);

}  // namespace vgsim::coll
