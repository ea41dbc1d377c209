// Unit tests of vgsim-probe's host-side pieces: nccl-tests shapes and bus-bandwidth factors, the input pattern, and
// the #wrong check (it must accept the exact expected result and count every corrupted element). No GPU needed.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "collective_shape.hpp"

using namespace vgsim::probe;

TEST_CASE("collective shapes follow nccl-tests sizes and busbw factors") {
  // nccl-tests (docs/SOURCES.md#nccl-tests): allreduce factor 2(n-1)/n = 2*7/8 = 1.75 for n = 8.
  const auto ar = collective_shape("allreduce", 1 << 20, 8);
  CHECK(ar.count == (1 << 20) / 4);
  CHECK(ar.size_bytes == 1 << 20);
  CHECK(ar.bus_factor == Approx(1.75));
  CHECK(ar.redop == "sum");
  CHECK(ar.root == -1);
  // allgather: size is the whole gathered array, count is per rank = 1 MiB / 4 / 8 = 32768; factor (n-1)/n = 0.875.
  const auto ag = collective_shape("allgather", 1 << 20, 8);
  CHECK(ag.count == 32768);
  CHECK(ag.send_count == 32768);
  CHECK(ag.recv_count == 32768 * 8);
  CHECK(ag.size_bytes == 1 << 20);
  CHECK(ag.bus_factor == Approx(0.875));
  CHECK(ag.redop == "none");
  // reducescatter: mirror image of allgather.
  const auto rs = collective_shape("reducescatter", 1 << 20, 8);
  CHECK(rs.send_count == 32768 * 8);
  CHECK(rs.recv_count == 32768);
  CHECK(rs.bus_factor == Approx(0.875));
  // allgather with 12 bytes over 8 ranks: 3 floats < 1 per rank -> count 0 (the size is skipped).
  CHECK(collective_shape("allgather", 12, 8).count == 0);
  // 100 bytes over 8 ranks: 25 floats -> 3 per rank, size rounded down to 3 * 8 * 4 = 96 bytes.
  CHECK(collective_shape("allgather", 100, 8).size_bytes == 96);
  // broadcast and sendrecv: factor 1; broadcast root 0.
  CHECK(collective_shape("broadcast", 64, 4).bus_factor == 1.0);
  CHECK(collective_shape("broadcast", 64, 4).root == 0);
  CHECK(collective_shape("sendrecv", 64, 4).bus_factor == 1.0);
}

TEST_CASE("input pattern is small integers in [-8, 7] with period 16") {
  for (int r = 0; r < 40; ++r) {
    for (std::int64_t i = 0; i < 64; ++i) {
      const float v = pattern_value(r, i);
      CHECK(v >= -8.0f);
      CHECK(v <= 7.0f);
      CHECK(v == std::floor(v));
      CHECK(v == pattern_value(r, i + 16));
    }
  }
  // Different ranks get different data (rank 0 vs 1 at element 0: 1 - 8 = -7 vs 14 - 8 = 6).
  CHECK(pattern_value(0, 0) == -7.0f);
  CHECK(pattern_value(1, 0) == 6.0f);
}

namespace {

// Host reference of each collective, written directly from its definition (not via the period-16 tables).
std::vector<float> reference(const CollectiveShape& s, int rank, int n) {
  std::vector<float> out(static_cast<std::size_t>(s.recv_count));
  for (std::int64_t i = 0; i < s.recv_count; ++i) {
    float v = 0;
    if (s.op == "allreduce") {
      for (int q = 0; q < n; ++q) v += pattern_value(q, i);
    } else if (s.op == "reducescatter") {
      for (int q = 0; q < n; ++q) v += pattern_value(q, rank * s.count + i);
    } else if (s.op == "allgather") {
      v = pattern_value(static_cast<int>(i / s.count), i % s.count);
    } else if (s.op == "broadcast") {
      v = pattern_value(s.root, i);
    } else {
      v = pattern_value((rank - 1 + n) % n, i);
    }
    out[static_cast<std::size_t>(i)] = v;
  }
  return out;
}

}  // namespace

TEST_CASE("count_wrong accepts the exact result and counts each corrupted element") {
  const int n = 5;
  for (const char* op : {"allreduce", "allgather", "reducescatter", "broadcast", "sendrecv"}) {
    // 4 KiB - 4 bytes: an element count that is not a multiple of 16, to exercise the period offsets.
    const auto s = collective_shape(op, 4092, n);
    REQUIRE(s.count > 0);
    for (int rank = 0; rank < n; ++rank) {
      std::vector<float> recv = reference(s, rank, n);
      INFO(op << " rank " << rank);
      CHECK(count_wrong(s, rank, n, recv.data()) == 0);
      // Corrupting 3 elements must give exactly 3 wrong; a NaN (the 0xFF fill) counts as wrong.
      recv[0] += 1.0f;
      recv[recv.size() / 2] = std::nanf("");
      recv.back() -= 2.0f;
      CHECK(count_wrong(s, rank, n, recv.data()) == 3);
    }
  }
  // fill_input writes exactly what the reference expects to come from that rank.
  const auto s = collective_shape("sendrecv", 400, n);
  std::vector<float> in(static_cast<std::size_t>(s.send_count));
  fill_input(s, 3, in.data());
  CHECK(count_wrong(s, 4, n, in.data()) == 0);  // rank 4 receives rank 3's input
  CHECK(count_wrong(s, 0, n, in.data()) > 0);   // rank 0 expects rank 4's input
}
