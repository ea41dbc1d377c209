// The analytical fidelity level: closed forms agree with the contention-free longest path through the generated
// schedules within 1 % (docs/SOURCES.md#design-rules), and the ring allreduce form is 2(n-1)(a + S/(nB)) + base.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "vgsim/workloads/collectives/analytical.hpp"

using namespace vgsim;
using namespace vgsim::coll;

namespace {
// Illustrative costs (assumptions for the test, shaped like NCCL's NVLink/NET Simple hop latencies 3.4/14 us).
PathCosts costs(double eff = 1.0) {
  PathCosts c;
  c.base = us(8.4);
  c.intra = {us(3.4), Bandwidth::from_GBps(20.0)};
  c.inter = {us(14.0), Bandwidth::from_GBps(6.0)};
  c.payload_efficiency = eff;
  return c;
}
void agree(Op op, Algo algo, Proto proto, std::uint32_t n, std::uint32_t ppn, Bytes S, GenOptions o, PathCosts pc) {
  const auto s = generate(op, algo, proto, n, ppn, S, o);
  const double dag = contention_free_time(s, pc).us();
  const double closed = analytical_time(op, algo, proto, n, ppn, S, o, pc).us();
  INFO(to_string(algo) << " " << to_string(op) << " n=" << n << " ppn=" << ppn << " S=" << S << " ch=" << o.channels
                       << " dag=" << dag << " closed=" << closed);
  CHECK(std::abs(closed - dag) <= 0.01 * dag);
}
}  // namespace

TEST_CASE("ring allreduce closed form: 2(n-1) max(x/B, a + x/(kB)) + a + base, x = S/n in k slices") {
  // n = 8 on one node, one channel, one loop (x = S/n = 1 MiB <= 2 MiB chunk), sent as k = 2 slices of 512 KiB
  // (ring_slice_bytes: max(ceil(x / 128) x 64, 2 MiB / 2 / 32)). Slice 0 of a step waits for slice 0 of the step
  // before (a + x/(2B) after that step began) and the connection sends both slices in turn (x/B per step): here
  // a = 3.4 us < x/(2B) = 26.2 us, so each of the 14 steps takes x/B = 1 MiB / 20 GB/s, then the last slice's latency
  // and the base: 8.4 + 3.4 + 14 x 52.4288 us.
  const Bytes S = 8 * MiB;
  const double expect_us = 8.4 + 3.4 + 14 * ((1 << 20) / 20e9 * 1e6);
  const Time t = analytical_time(Op::AllReduce, Algo::Ring, Proto::Simple, 8, 8, S, {}, costs());
  CHECK(t.us() == Catch::Detail::Approx(expect_us).epsilon(1e-9));
  // The DAG has exactly this critical path.
  CHECK(contention_free_time(ring_allreduce(8, 8, S, Proto::Simple), costs()).us() ==
        Catch::Detail::Approx(expect_us).epsilon(1e-9));
}

TEST_CASE("a ring's slices hide the step latency up to half a chunk's time (NCCL's SlicePerChunk 2)") {
  // 2 ranks across nodes, one channel, 64 loops of 2 MiB chunks (1 MiB slices, t = 1 MiB / B), the closed form's
  // semantics (a buffer dependency waits for the receiver's send to leave). A loop has 2 steps: the first has no data
  // dependency (2t on the connection); in the second, slice 0 may go once the peer's slice 0 of the first has
  // arrived (t + a after it began) and the connection is busy 2t, so it takes max(2t, t + a) where whole-chunk steps
  // take 2t + a. Over 64 loops: 64 (2t + max(2t, t + a)) within the fill (t + a) and the base.
  const double t_us = (1 << 20) / 6e9 * 1e6;  // inter hop of costs(): 6 GB/s
  const Bytes S = 2 * 2 * MiB * 64;
  for (const double a_over_t : {0.5, 3.0}) {
    PathCosts pc = costs();
    pc.inter.latency = Time::from_s(a_over_t * t_us * 1e-6);
    const double a_us = a_over_t * t_us;
    const double loop_us = 2 * t_us + std::max(2 * t_us, t_us + a_us);
    const double got = analytical_time(Op::AllReduce, Algo::Ring, Proto::Simple, 2, 1, S, {}, pc).us() - 8.4;
    INFO("a/t = " << a_over_t << ": " << got << " us, loops of " << loop_us << " us");
    CHECK(got >= 64 * loop_us);
    CHECK(got <= 64 * loop_us + t_us + a_us + 1e-3);
    CHECK(got < 64 * (4 * t_us + a_us));  // faster than whole-chunk steps
  }
}

TEST_CASE("closed forms agree with the schedule's contention-free time within 1%") {
  GenOptions one, two;
  two.channels = 2;
  for (Bytes S : {Bytes{1000}, Bytes{3} * MiB + 5, Bytes{64} * MiB + 999}) {
    for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast, Op::Reduce, Op::SendRecv}) {
      agree(op, Algo::Ring, Proto::Simple, 8, 8, S, one, costs());   // one node
      agree(op, Algo::Ring, Proto::LL, 8, 8, S, two, costs(0.5));    // LL, 2 channels
      agree(op, Algo::Ring, Proto::Simple, 16, 4, S, two, costs());  // 4 nodes: mixed hop classes
    }
    agree(Op::AllReduce, Algo::Tree, Proto::Simple, 8, 8, S, one, costs());      // one node: a chain
    agree(Op::AllReduce, Algo::Tree, Proto::Simple, 8, 1, S, two, costs());      // 8 nodes x 1 GPU
    agree(Op::AllReduce, Algo::Tree, Proto::LL128, 32, 4, S, two, costs(0.92));  // 8 nodes x 4 GPUs
  }
}
