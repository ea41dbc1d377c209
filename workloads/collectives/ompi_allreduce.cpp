// Open MPI allreduce algorithms as schedules (see include/vgsim/workloads/collectives/ompi_allreduce.hpp).
// Message structure follows ompi/mca/coll/base/coll_base_allreduce.c (v4/v5) and coll_base_reduce.c /
// coll_base_bcast.c for the linear and binomial parts. Ordering rule (one MPI process = one sequential program): a
// rank's send waits for the rank's previous send and for the receive it forwards or combines; a receive that is
// reduced completes only after its reduction (charged by the engine).
#include "vgsim/workloads/collectives/ompi_allreduce.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "ompi_builder.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/ompi_decision.hpp"

namespace vgsim::coll {

namespace {

using detail::OmpiBuilder;
using Builder = OmpiBuilder;
constexpr std::uint64_t kNone = OmpiBuilder::kNone;

std::uint32_t pof2_below(std::uint32_t p) {
  std::uint32_t x = 1;
  while (x * 2 <= p) x *= 2;
  return x;
}

// Elements of block b when `count` elements are split into `blocks` blocks (the first count % blocks get one more).
Bytes block_elems(Bytes count, std::uint32_t blocks, std::uint32_t b) {
  return count / blocks + (static_cast<Bytes>(b) < count % blocks ? 1 : 0);
}

void basic_linear(Builder& B, std::uint32_t p, Bytes n) {
  // coll_base_reduce_intra_basic_linear: the root receives from p-1, p-2, ..., 1 in turn, reducing each.
  std::uint64_t prev = kNone;
  for (std::uint32_t r = p - 1; r >= 1; --r) {
    prev = B.send(r, 0, n, true, p - 1 - r, prev);
    B.end_round();
  }
  // coll_base_bcast_intra_basic_linear: the root sends to every other rank (all posted at once).
  for (std::uint32_t r = 1; r < p; ++r) B.send(0, r, n, false, p, kNone, true);
  B.end_round();
}

void binomial_reduce_bcast(Builder& B, std::uint32_t p, Bytes n) {
  // Reduce to 0: at distance mask, ranks with that bit set send to rank - mask, which reduces.
  std::uint32_t step = 0;
  for (std::uint32_t mask = 1; mask < p; mask <<= 1, ++step) {
    for (std::uint32_t r = 0; r < p; ++r)
      if ((r & (2 * mask - 1)) == mask) B.send(r, r - mask, n, true, step);
    B.end_round();
  }
  // Bcast from 0: the reverse tree.
  std::uint32_t top = 1;
  while (top < p) top <<= 1;
  for (std::uint32_t mask = top >> 1; mask >= 1; mask >>= 1, ++step) {
    for (std::uint32_t r = 0; r < p; ++r)
      if ((r & (2 * mask - 1)) == 0 && r + mask < p) B.send(r, r + mask, n, false, step);
    B.end_round();
  }
}

// Folding of non-powers of two (coll_base recursive doubling and redscat_allgather): ranks < 2*rem pair up, the even
// one sends its vector to the odd one, which reduces and takes part as newrank r/2. Returns newrank -> rank.
std::vector<std::uint32_t> fold(Builder& B, std::uint32_t p, Bytes n, std::uint32_t& step) {
  const std::uint32_t pof2 = pof2_below(p), rem = p - pof2;
  for (std::uint32_t r = 0; r < 2 * rem; r += 2) B.send(r, r + 1, n, true, step);
  if (rem) B.end_round(), ++step;
  std::vector<std::uint32_t> real(pof2);
  for (std::uint32_t nr = 0; nr < pof2; ++nr) real[nr] = nr < rem ? 2 * nr + 1 : nr + rem;
  return real;
}
void unfold(Builder& B, std::uint32_t p, Bytes n, std::uint32_t step) {
  const std::uint32_t rem = p - pof2_below(p);
  for (std::uint32_t r = 0; r < 2 * rem; r += 2) B.send(r + 1, r, n, false, step);
  if (rem) B.end_round();
}

void recursive_doubling(Builder& B, std::uint32_t p, Bytes n) {
  std::uint32_t step = 0;
  const auto real = fold(B, p, n, step);
  const auto pof2 = static_cast<std::uint32_t>(real.size());
  for (std::uint32_t mask = 1; mask < pof2; mask <<= 1, ++step) {
    for (std::uint32_t nr = 0; nr < pof2; ++nr) B.send(real[nr], real[nr ^ mask], n, true, step);
    B.end_round();
  }
  unfold(B, p, n, step);
}

// Ring: reduce-scatter then allgather, p-1 steps each; at step k rank r sends block (r - k) mod p to r + 1
// (reduce-scatter, reduced on arrival) and block (r + 1 - k) mod p in the allgather. `seg_elems` > 0 pipelines the
// reduce-scatter in phases of at most seg_elems elements per block (segmented ring); the allgather moves whole blocks.
void ring(Builder& B, std::uint32_t p, Bytes count, Bytes eb, Bytes seg_elems) {
  Bytes max_block = block_elems(count, p, 0);
  const Bytes phases = seg_elems > 0 ? (max_block + seg_elems - 1) / seg_elems : 1;
  std::uint32_t step = 0;
  for (Bytes ph = 0; ph < phases; ++ph) {
    for (std::uint32_t k = 0; k + 1 < p; ++k, ++step) {
      for (std::uint32_t r = 0; r < p; ++r) {
        const std::uint32_t b = (r + p - k % p) % p;
        Bytes e = block_elems(count, p, b);
        if (seg_elems > 0) e = std::clamp<Bytes>(e - ph * seg_elems, 0, seg_elems);
        B.send(r, (r + 1) % p, e * eb, true, step);
      }
      B.end_round();
    }
  }
  for (std::uint32_t k = 0; k + 1 < p; ++k, ++step) {
    for (std::uint32_t r = 0; r < p; ++r) {
      const std::uint32_t b = (r + 1 + p - k % p) % p;
      B.send(r, (r + 1) % p, block_elems(count, p, b) * eb, false, step);
    }
    B.end_round();
  }
}

void rabenseifner(Builder& B, std::uint32_t p, Bytes count, Bytes eb) {
  std::uint32_t step = 0;
  const auto real = fold(B, p, count * eb, step);
  const auto pof2 = static_cast<std::uint32_t>(real.size());
  // Reduce-scatter by recursive halving (distance doubling, as coll_base): the lower newrank of a pair keeps the
  // lower half of the current window [lo, hi) (wsize / 2 elements), sends the upper half, and vice versa.
  std::vector<Bytes> lo(pof2, 0), hi(pof2, count);
  std::vector<std::vector<std::pair<Bytes, Bytes>>> history(pof2);
  for (std::uint32_t mask = 1; mask < pof2; mask <<= 1, ++step) {
    std::vector<Bytes> nlo = lo, nhi = hi;
    for (std::uint32_t nr = 0; nr < pof2; ++nr) {
      const std::uint32_t peer = nr ^ mask;
      const Bytes mid = lo[nr] + (hi[nr] - lo[nr]) / 2;
      const bool keep_low = nr < peer;
      const Bytes send_elems = keep_low ? hi[nr] - mid : mid - lo[nr];
      B.send(real[nr], real[peer], send_elems * eb, true, step);
      history[nr].emplace_back(lo[nr], hi[nr]);
      if (keep_low)
        nhi[nr] = mid;
      else
        nlo[nr] = mid;
    }
    lo = nlo, hi = nhi;
    B.end_round();
  }
  // Allgather by recursive doubling in reverse: each rank sends what it owns to the partner of that step.
  std::uint32_t level = 0;
  for (std::uint32_t m = 1; m < pof2; m <<= 1) ++level;
  for (std::uint32_t mask = pof2 >> 1; mask >= 1; mask >>= 1, ++step) {
    --level;
    for (std::uint32_t nr = 0; nr < pof2; ++nr) B.send(real[nr], real[nr ^ mask], (hi[nr] - lo[nr]) * eb, false, step);
    for (std::uint32_t nr = 0; nr < pof2; ++nr) lo[nr] = history[nr][level].first, hi[nr] = history[nr][level].second;
    B.end_round();
  }
  unfold(B, p, count * eb, step);
}

}  // namespace

const char* to_string(OmpiAllreduce a) {
  switch (a) {
    case OmpiAllreduce::BasicLinear:
      return "basic_linear";
    case OmpiAllreduce::Nonoverlapping:
      return "nonoverlapping";
    case OmpiAllreduce::RecursiveDoubling:
      return "recursive_doubling";
    case OmpiAllreduce::Ring:
      return "ring";
    case OmpiAllreduce::SegmentedRing:
      return "segmented_ring";
    case OmpiAllreduce::Rabenseifner:
      return "rabenseifner";
  }
  return "?";
}

OmpiAllreduce parse_ompi_allreduce(const std::string& s) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int k = 1; k <= 6; ++k) {
    const auto a = static_cast<OmpiAllreduce>(k);
    if (l == to_string(a) || l == std::to_string(k)) return a;
  }
  throw UnitError("unknown Open MPI allreduce algorithm '" + s +
                  "': expected basic_linear, nonoverlapping, recursive_doubling, ring, segmented_ring, rabenseifner "
                  "or 1..6");
}

OmpiSchedule ompi_allreduce(OmpiAllreduce algorithm, std::uint32_t p, Bytes size, Bytes eb, Bytes segment_bytes) {
  if (p == 0) throw std::invalid_argument("ompi_allreduce: no ranks");
  if (eb <= 0) throw std::invalid_argument("ompi_allreduce: element size must be > 0");
  if (size < 0 || segment_bytes < 0) throw std::invalid_argument("ompi_allreduce: negative size");
  OmpiSchedule out;
  out.algorithm = algorithm;
  CollectiveSchedule& s = out.schedule;
  s.op = Op::AllReduce;
  s.algo = Algo::Ring;
  s.proto = Proto::Simple;
  s.ranks = p;
  s.ranks_per_node = 1;
  s.size = size;
  s.chunk_bytes = size;
  s.slots = 2;
  s.loops = 1;
  if (p == 1) return out;
  Builder B(out, p);
  const Bytes count = size / eb;
  switch (algorithm) {
    case OmpiAllreduce::BasicLinear:
      basic_linear(B, p, size);
      break;
    case OmpiAllreduce::Nonoverlapping:
      binomial_reduce_bcast(B, p, size);
      break;
    case OmpiAllreduce::RecursiveDoubling:
      recursive_doubling(B, p, size);
      break;
    case OmpiAllreduce::Ring:
    case OmpiAllreduce::SegmentedRing:
    case OmpiAllreduce::Rabenseifner: {
      // coll_base's fallbacks (ompi_decision.hpp): ring -> recursive doubling when count < p; segmented ring -> ring
      // unless count >= p * segcount; rabenseifner -> basic_linear when count < p'.
      OmpiAllreduceChoice c;
      c.requested = algorithm;
      c.segment_bytes = algorithm == OmpiAllreduce::SegmentedRing ? segment_bytes : 0;
      c = ompi_allreduce_fallbacks(c, p, size, eb);
      if (c.runs == OmpiAllreduce::RecursiveDoubling)
        recursive_doubling(B, p, size);
      else if (c.runs == OmpiAllreduce::BasicLinear)
        basic_linear(B, p, size);
      else if (c.runs == OmpiAllreduce::Rabenseifner)
        rabenseifner(B, p, count, eb);
      else
        ring(B, p, count, eb, c.runs == OmpiAllreduce::SegmentedRing ? c.segment_bytes / eb : 0);
      break;
    }
  }
  return out;
}

}  // namespace vgsim::coll
