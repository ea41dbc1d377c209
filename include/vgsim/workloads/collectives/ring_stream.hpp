// A ring schedule (allreduce, allgather, reducescatter) as arithmetic instead of stored transfers: the transfer at
// (global step g, channel ch, ring position p), its bytes and its dependencies are computed from the schedule's
// header (op, ranks, channels, size, chunk_bytes, slots, loops, ring_order). ring.cpp materializes a schedule from
// these same functions, and the engine (sim/ring_run) streams them, so both forms have one definition.
// Index: (g * channels + ch) * ranks + p (a topological order; 64 bits: a 16,384-rank ring of 8 channels has more
// than 2^32 transfers). Dependencies of (g, ch, p), the generators.hpp rule:
//   (a) data:   (g-1, ch, p-1) when the step inside the loop j = g mod nsteps is > 0 (the chunk received at j-1);
//   (b) order:  (g-1, ch, p) when g > 0 (this connection's previous send);
//   (c) buffer: (g-slots+1, ch, p+1) when g >= slots and step g-slots was not the last of its loop (the receiver
//               forwarded chunk g-slots, freeing its slot; a last step's chunk is stored, not forwarded).
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

class RingStream {
 public:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  // Global steps (loops x steps per loop) a streamed ring may have: the engine packs a step into a 64-bit event tag
  // with 31 bits for it (sim/ring_run.hpp). The generator refuses a larger streamed ring as an input error.
  static constexpr std::uint64_t kMaxGlobalSteps = (std::uint64_t{1} << 31) - 2;

  // `header`: a ring allreduce / allgather / reducescatter schedule (its transfers are not read).
  explicit RingStream(const CollectiveSchedule& header);

  std::uint32_t ranks() const { return n_; }
  std::uint32_t channels() const { return c_; }
  std::uint32_t slots() const { return slots_; }
  std::uint32_t steps_per_loop() const { return nsteps_; }
  std::uint64_t global_steps() const { return global_steps_; }  // loops x steps per loop
  std::uint64_t count() const { return global_steps_ * c_ * n_; }
  std::uint64_t index(std::uint64_t g, std::uint32_t ch, std::uint32_t p) const { return (g * c_ + ch) * n_ + p; }
  std::uint32_t next(std::uint32_t p) const { return p + 1 == n_ ? 0 : p + 1; }
  std::uint32_t prev(std::uint32_t p) const { return p == 0 ? n_ - 1 : p - 1; }
  // Rank at ring position p.
  std::uint32_t rank_at(std::uint32_t p) const { return order_[p]; }

  bool has_data_dep(std::uint64_t g) const { return g % nsteps_ != 0; }
  bool has_order_dep(std::uint64_t g) const { return g > 0; }
  // The global step of the buffer dependency (c) of step g, or kNone.
  std::uint64_t buffer_dep_step(std::uint64_t g) const {
    return g >= slots_ && (g - slots_) % nsteps_ != nsteps_ - 1 ? g - slots_ + 1 : kNone;
  }
  // Payload bytes of (g, ch, p): block (p - j) mod n of channel ch in loop g / nsteps.
  Bytes bytes(std::uint64_t g, std::uint32_t ch, std::uint32_t p) const;
  // The transfer (g, ch, p) without its dependency fields.
  Transfer transfer(std::uint64_t g, std::uint32_t ch, std::uint32_t p) const;

 private:
  std::uint32_t n_ = 0, c_ = 1, slots_ = 2, nsteps_ = 1;
  std::uint64_t global_steps_ = 0;
  std::vector<std::uint32_t> order_;
  // The byte partition (builder.hpp Partition): full loops carry chunk_ per piece; the last loop base_ bytes, the
  // first extra_ of its channels x ranks pieces one byte more.
  std::uint32_t loops_ = 1;
  Bytes chunk_ = 0, last_base_ = 0;
  std::uint64_t last_extra_ = 0;
};

// True when `s` is a ring the stream describes (allreduce, allgather or reducescatter on the Ring algorithm).
bool ring_streamable(const CollectiveSchedule& s);

}  // namespace vgsim::coll
