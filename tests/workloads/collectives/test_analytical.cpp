// The analytical fidelity level: closed forms agree with the contention-free longest path through the generated
// schedules within 1 % (docs/SOURCES.md#design-rules), and the ring allreduce form is 2(n-1)(a + S/(nB)) + base.
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

TEST_CASE("ring allreduce closed form: 2(n-1)(a + S/(nB)) + base") {
  // n = 8 on one node, one channel, one loop (S/n = 1 MiB <= 2 MiB chunk): 14 x (3.4 us + 1 MiB / 20 GB/s) + 8.4 us.
  const Bytes S = 8 * MiB;
  const double expect_us = 8.4 + 14 * (3.4 + (1 << 20) / 20e9 * 1e6);
  const Time t = analytical_time(Op::AllReduce, Algo::Ring, Proto::Simple, 8, 8, S, {}, costs());
  CHECK(t.us() == Catch::Detail::Approx(expect_us).epsilon(1e-9));
  // The DAG has exactly this critical path.
  CHECK(contention_free_time(ring_allreduce(8, 8, S, Proto::Simple), costs()).us() ==
        Catch::Detail::Approx(expect_us).epsilon(1e-9));
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
