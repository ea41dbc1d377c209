// Open MPI coll/tuned decisions (include/vgsim/workloads/collectives/ompi_decision.hpp). Sources (strength A, the
// docs/SOURCES.md#open-mpi, read from ompi git at the tags named): allreduce fixed rules
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c v3.1.6 l.43-86 (= v4.0.x) and v4.1.6 l.55-218 (= v5.0.x);
// forcing coll_tuned_component.c v4.1.6 l.177-183 and coll_tuned_decision_dynamic.c l.55-93; fallbacks
// coll_base_allreduce.c v4.1.6 l.371 (ring), l.653-660 (segmented ring), l.988-995 (rabenseifner). Allgather's
// fixed rule is grade D (recalled from coll_tuned_decision_fixed.c v3.1, not checked against the source).
#include "vgsim/workloads/collectives/ompi_decision.hpp"

#include <cctype>
#include <string>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::coll {

namespace {

using A = OmpiAllreduce;
constexpr Bytes kMiB = 1 << 20;

std::uint32_t pof2_floor(std::uint32_t p) {
  std::uint32_t x = 1;
  while (x * 2 <= p) x *= 2;
  return x;
}

std::string lower(const std::string& s) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

// v3.1.6 l.43-86 (identical in v3.0.x and v4.0.x).
OmpiAllreduceChoice fixed_v31(std::uint32_t p, Bytes m, Bytes count, bool commutative) {
  OmpiAllreduceChoice c;
  if (m < 10000) {
    c.requested = A::RecursiveDoubling, c.reason = "v3.1/4.0 fixed rule: M < 10000 B -> recursive_doubling";
  } else if (commutative && count > static_cast<Bytes>(p)) {
    if (static_cast<Bytes>(p) * kMiB >= m) {
      c.requested = A::Ring, c.reason = "v3.1/4.0 fixed rule: commutative, count > p, p x 1 MiB >= M -> ring";
    } else {
      c.requested = A::SegmentedRing, c.segment_bytes = kMiB;
      c.reason = "v3.1/4.0 fixed rule: commutative, count > p, M > p x 1 MiB -> segmented_ring (1 MiB segments)";
    }
  } else {
    c.requested = A::Nonoverlapping, c.reason = "v3.1/4.0 fixed rule: non-commutative or count <= p -> nonoverlapping";
  }
  return c;
}

// v4.1.6 l.80-119: non-commutative ops.
A fixed_v41_noncommutative(std::uint32_t p, Bytes m) {
  if (p < 4) return m < 131072 ? A::RecursiveDoubling : A::BasicLinear;
  if (p < 8) return A::RecursiveDoubling;
  if (p < 16) return m < kMiB ? A::RecursiveDoubling : A::Nonoverlapping;
  if (p < 128) return A::RecursiveDoubling;
  if (p < 256) return m < 131072 ? A::Nonoverlapping : m < 524288 ? A::RecursiveDoubling : A::Nonoverlapping;
  if (p < 512) return m < 4096 ? A::Nonoverlapping : m < 524288 ? A::RecursiveDoubling : A::Nonoverlapping;
  return m < 2048 ? A::Nonoverlapping : A::RecursiveDoubling;
}

// v4.1.6 l.120-213: commutative ops (MPI_SUM on floats).
A fixed_v41_commutative(std::uint32_t p, Bytes m) {
  constexpr A RD = A::RecursiveDoubling, R = A::Ring, S = A::SegmentedRing, RB = A::Rabenseifner, N = A::Nonoverlapping;
  if (p < 4) return m < 8 ? R : m < 4096 ? RD : m < 8192 ? R : m < 16384 ? RD : m < 65536 ? R : m < 262144 ? S : RB;
  if (p < 8) return m < 16 ? R : m < 8192 ? RD : RB;
  if (p < 16) return m < 8192 ? RD : RB;
  if (p < 32) return m < 64 ? S : m < 4096 ? RD : RB;
  if (p < 64) return m < 128 ? S : RB;
  if (p < 128) return m < 262144 ? RD : RB;
  if (p < 256) return m < 131072 ? N : m < 262144 ? RD : RB;
  if (p < 512) return m < 4096 ? N : RB;
  if (p < 2048) return m < 2048 ? N : m < 16384 ? RD : RB;
  if (p < 4096) return m < 2048 ? N : m < 4096 ? S : m < 16384 ? RD : RB;
  return m < 2048 ? N : m < 16384 ? S : m < 32768 ? RD : RB;
}

}  // namespace

const char* to_string(OmpiRelease r) {
  switch (r) {
    case OmpiRelease::V3_1:
      return "3.1";
    case OmpiRelease::V4_0:
      return "4.0";
    case OmpiRelease::V4_1:
      return "4.1";
    case OmpiRelease::V5_0:
      return "5.0";
  }
  return "?";
}

OmpiRelease parse_ompi_release(const std::string& s) {
  std::string l = lower(s);
  if (!l.empty() && l[0] == 'v') l = l.substr(1);
  for (OmpiRelease r : {OmpiRelease::V3_1, OmpiRelease::V4_0, OmpiRelease::V4_1, OmpiRelease::V5_0}) {
    const std::string k = to_string(r);
    if (l == k || l.rfind(k + ".", 0) == 0) return r;
  }
  if (l == "3.0" || l.rfind("3.0.", 0) == 0) return OmpiRelease::V3_1;  // v3.0.x has v3.1's table (l.43-86)
  throw UnitError("unknown Open MPI release '" + s + "': expected 3.1, 4.0, 4.1 or 5.0 (patch levels accepted)");
}

bool has_op_avx(OmpiRelease r) { return r == OmpiRelease::V4_1 || r == OmpiRelease::V5_0; }

OmpiAllreduceChoice ompi_allreduce_fixed(OmpiRelease release, std::uint32_t p, Bytes m, Bytes eb, bool commutative) {
  const Bytes count = eb > 0 ? m / eb : m;
  if (release == OmpiRelease::V3_1 || release == OmpiRelease::V4_0) return fixed_v31(p, m, count, commutative);
  OmpiAllreduceChoice c;
  c.requested = commutative ? fixed_v41_commutative(p, m) : fixed_v41_noncommutative(p, m);
  c.reason = std::string("v4.1/5.0 fixed rule (") + (commutative ? "commutative" : "non-commutative") + ", p " +
             std::to_string(p) + ", M " + std::to_string(m) + " B) -> " + to_string(c.requested) + " with segsize 0";
  return c;  // v4.1.6 passes segsize = 0 to every algorithm (docs/SOURCES.md#open-mpi)
}

OmpiAllreduceChoice ompi_allreduce_fallbacks(OmpiAllreduceChoice c, std::uint32_t p, Bytes m, Bytes eb,
                                             bool commutative) {
  const Bytes count = eb > 0 ? m / eb : m;
  c.runs = c.requested;
  if (p <= 1) return c;
  if (c.runs == A::SegmentedRing) {
    const Bytes segcount = c.segment_bytes >= eb && c.segment_bytes < m ? c.segment_bytes / eb : count;
    if (count < static_cast<Bytes>(p) * segcount) {
      c.runs = A::Ring, c.segment_bytes = 0;
      c.reason += "; segmented_ring: count < p x segcount -> ring (coll_base_allreduce.c v4.1.6 l.653-660)";
    }
  }
  if (c.runs == A::Ring && count < static_cast<Bytes>(p)) {
    c.runs = A::RecursiveDoubling;
    c.reason += "; ring: count < p -> recursive_doubling (l.371)";
  }
  if (c.runs == A::Rabenseifner && (count < static_cast<Bytes>(pof2_floor(p)) || !commutative)) {
    c.runs = A::BasicLinear;
    c.reason += "; rabenseifner: count < p' or non-commutative -> basic_linear (l.988-995)";
  }
  if (c.runs != A::SegmentedRing) c.segment_bytes = 0;
  return c;
}

OmpiAllreduceChoice ompi_allreduce_decide(OmpiRelease release, bool dynamic_rules, std::optional<OmpiAllreduce> forced,
                                          Bytes forced_segment, std::uint32_t p, Bytes m, Bytes eb, bool commutative) {
  if (forced && *forced == A::Rabenseifner && release == OmpiRelease::V3_1)
    throw UnitError(
        "Open MPI 3.1 has no allreduce algorithm 6 (rabenseifner; coll_tuned_allreduce_algorithm is 0-5 "
        "there, added in v4.0.0)");
  OmpiAllreduceChoice c;
  if (forced && dynamic_rules) {
    c.requested = *forced, c.segment_bytes = forced_segment;
    c.reason = std::string("forced ") + to_string(*forced) + " (coll_tuned_use_dynamic_rules=1, segmentsize " +
               std::to_string(forced_segment) + ")";
  } else {
    c = ompi_allreduce_fixed(release, p, m, eb, commutative);
    if (forced)
      c.reason = std::string("forced ") + to_string(*forced) +
                 " ignored (coll_tuned_use_dynamic_rules=0, Open MPI's default); " + c.reason;
  }
  return ompi_allreduce_fallbacks(c, p, m, eb, commutative);
}

const char* to_string(OmpiAllgather a) {
  switch (a) {
    case OmpiAllgather::Linear:
      return "linear";
    case OmpiAllgather::Bruck:
      return "bruck";
    case OmpiAllgather::RecursiveDoubling:
      return "recursive_doubling";
    case OmpiAllgather::Ring:
      return "ring";
    case OmpiAllgather::NeighborExchange:
      return "neighbor_exchange";
    case OmpiAllgather::TwoProcs:
      return "two_proc";
  }
  return "?";
}

OmpiAllgather parse_ompi_allgather(const std::string& s) {
  const std::string l = lower(s);
  for (int k = 1; k <= 6; ++k) {
    const auto a = static_cast<OmpiAllgather>(k);
    if (l == to_string(a) || l == std::to_string(k)) return a;
  }
  throw UnitError("unknown Open MPI allgather algorithm '" + s +
                  "': expected linear, bruck, recursive_doubling, ring, neighbor_exchange, two_proc or 1..6");
}

// Fixed rule, grade D (recalled from ompi_coll_tuned_allgather_intra_dec_fixed, v3.1; the v4.1 table differs and is
// not in the reference): p = 2 -> two_proc; total (block x p) < 50000 B -> recursive doubling (p a power of two) or
// bruck; else ring (odd p) or neighbor exchange (even p). Forced algorithms need dynamic rules, as allreduce;
// coll_base falls back from recursive doubling to bruck for non-powers of two, from neighbor exchange to ring for odd
// p and from two_proc to the fixed rule for p != 2 (also recalled).
OmpiAllgatherChoice ompi_allgather_decide(OmpiRelease, bool dynamic_rules, std::optional<OmpiAllgather> forced,
                                          std::uint32_t p, Bytes block) {
  OmpiAllgatherChoice c;
  const bool pow2 = (p & (p - 1)) == 0;
  auto fixed = [&] {
    const Bytes total = block * static_cast<Bytes>(p);
    if (p == 2) return OmpiAllgather::TwoProcs;
    if (total < 50000) return pow2 ? OmpiAllgather::RecursiveDoubling : OmpiAllgather::Bruck;
    return p % 2 ? OmpiAllgather::Ring : OmpiAllgather::NeighborExchange;
  };
  if (forced && dynamic_rules) {
    c.runs = *forced;
    c.reason = std::string("forced ") + to_string(*forced) + " (coll_tuned_use_dynamic_rules=1)";
  } else {
    c.runs = fixed();
    c.reason = std::string(forced ? "forced algorithm ignored (dynamic rules off); " : "") +
               "fixed rule (grade D, v3.1 recalled): p = 2 two_proc; block x p < 50000 B recursive_doubling / bruck; "
               "else ring (odd p) / neighbor_exchange (even p)";
  }
  if (c.runs == OmpiAllgather::RecursiveDoubling && !pow2) c.runs = OmpiAllgather::Bruck, c.reason += "; -> bruck";
  if (c.runs == OmpiAllgather::NeighborExchange && p % 2) c.runs = OmpiAllgather::Ring, c.reason += "; -> ring";
  if (c.runs == OmpiAllgather::TwoProcs && p != 2) c.runs = fixed(), c.reason += "; two_proc needs p = 2";
  return c;
}

}  // namespace vgsim::coll
