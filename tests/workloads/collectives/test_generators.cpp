// Ring, chain (broadcast/reduce) and sendrecv generators: transfer counts and byte totals as math, the dependency
// rule on concrete indices, topological order, validation, JSON dump and input errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/schedule_json.hpp"
#include "vgsim/workloads/collectives/validate.hpp"

using namespace vgsim;
using namespace vgsim::coll;

namespace {
std::vector<std::uint32_t> deps_of(const CollectiveSchedule& s, std::size_t i) {
  const Transfer& t = s.transfers[i];
  return {s.deps.begin() + t.dep_begin, s.deps.begin() + t.dep_begin + t.dep_count};
}
std::vector<Bytes> sent_per_rank(const CollectiveSchedule& s) {
  std::vector<Bytes> v(s.ranks, 0);
  for (const auto& t : s.transfers) v[t.src] += t.bytes;
  return v;
}
}  // namespace

TEST_CASE("enum names round-trip and parse errors list the accepted values") {
  for (Op o : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast, Op::Reduce, Op::SendRecv})
    CHECK(parse_op(to_string(o)) == o);
  CHECK(parse_op("all_reduce") == Op::AllReduce);
  CHECK(parse_op("ReduceScatter") == Op::ReduceScatter);
  CHECK(parse_algo("Ring") == Algo::Ring);
  CHECK(parse_proto("ll128") == Proto::LL128);
  CHECK(parse_proto("SIMPLE") == Proto::Simple);
  CHECK_THROWS_WITH(parse_proto("LL64"), Catch::Contains("LL, LL128, Simple"));
  CHECK(parse_algo("NVLS") == Algo::NVLS);
  CHECK(parse_algo(to_string(Algo::NVLS)) == Algo::NVLS);
  CHECK(parse_algo("NVLSTree") == Algo::NVLSTree);
  CHECK(parse_algo(to_string(Algo::NVLSTree)) == Algo::NVLSTree);
  CHECK_THROWS_WITH(parse_algo("collnetdirect"), Catch::Contains("Ring, Tree, NVLS, NVLSTree"));
  CHECK_THROWS_WITH(parse_algo("collnet"), Catch::Contains("'collnet'"));
  CHECK_THROWS_WITH(parse_op("alltoallv"), Catch::Contains("allreduce, allgather, reducescatter"));
  CHECK_THROWS_AS(parse_op("x"), UnitError);
}

TEST_CASE("NCCL default chunk geometry") {
  // Simple ring AR: 4 MiB / 8 steps * CHUNKSTEPS 4 = 2 MiB, 8/4 = 2 slots; broadcast: one 512 KiB step, 8 slots.
  CHECK(default_chunk_bytes(Op::AllReduce, Algo::Ring, Proto::Simple) == 2 * MiB);
  CHECK(default_slots(Op::AllReduce, Algo::Ring, Proto::Simple) == 2u);
  CHECK(default_chunk_bytes(Op::Broadcast, Algo::Ring, Proto::Simple) == 512 * KiB);
  CHECK(default_slots(Op::Broadcast, Algo::Ring, Proto::Simple) == 8u);
  // LL: 512 KiB / 8 = 64 KiB of lines, half payload = 32 KiB. LL128: 120*640*8*8/8 = 614400 B, * 15/16 = 576000 B.
  CHECK(default_chunk_bytes(Op::AllReduce, Algo::Ring, Proto::LL) == 32 * KiB);
  CHECK(default_chunk_bytes(Op::AllReduce, Algo::Ring, Proto::LL128) == 576000);
  CHECK(default_slots(Op::AllReduce, Algo::Ring, Proto::LL) == 8u);
}

TEST_CASE("ring allreduce: counts, exact bytes, dependency rule") {
  const std::uint32_t n = 4, c = 2;
  GenOptions o;
  o.channels = c;
  SECTION("one loop, S divisible: c*n*2(n-1) transfers, each rank sends 2(n-1)/n * S") {
    const Bytes S = 8 * MiB;  // per-channel per-rank slice S/(c*n) = 1 MiB <= 2 MiB chunk -> 1 loop
    auto s = ring_allreduce(n, 4, S, Proto::Simple, o);
    CHECK(s.loops == 1u);
    CHECK(s.transfers.size() == std::size_t{c * n * 2 * (n - 1)});  // 2*4*6 = 48
    CHECK(validate(s).empty());
    for (Bytes b : sent_per_rank(s)) CHECK(b == 2 * (n - 1) * S / n);  // 12 MiB
    // Transfer index (g*c + ch)*n + p. Step g=1, channel 0, position 1 (index 9) waits for (a) position 0's send at
    // g=0 (index 0) and (b) its own send at g=0 (index 1); (c) does not apply yet: with 2 slots the receiver's
    // buffer still has room (chunk g-2 does not exist).
    CHECK(deps_of(s, (1 * c + 0) * n + 1) == std::vector<std::uint32_t>{0, 1});
    // Step g=2, position 1: (a) index (1c+0)n+0 = 8, (b) (1c+0)n+1 = 9, (c) chunk g-2 = 0 must have been forwarded
    // by the receiver (position 2) at step 1: (1c+0)n+2 = 10.
    CHECK(deps_of(s, (2 * c + 0) * n + 1) == std::vector<std::uint32_t>{8, 9, 10});
    // First step: no dependency at all.
    CHECK(deps_of(s, 0).empty());
    // Step j sends block (p - j) mod n: bytes are all equal here (S/(c*n) = 1 MiB).
    for (const auto& t : s.transfers) CHECK(t.bytes == S / (c * n));
  }
  SECTION("several loops with a remainder: no byte lost") {
    o.chunk_bytes = 1000;
    const Bytes S = 3 * c * n * 1000 + 17;  // loops = ceil(S / (c*n*chunk)) = 4
    auto s = ring_allreduce(n, 2, S, Proto::Simple, o);
    CHECK(s.loops == 4u);
    CHECK(s.transfers.size() == std::size_t{4 * c * n * 2 * (n - 1)});
    CHECK(validate(s).empty());
    Bytes total = 0;
    for (const auto& t : s.transfers) total += t.bytes;
    CHECK(total == 2 * (n - 1) * S);  // required_total_bytes
    // slot dependency across loops: g=6 (loop 1, j=0), ch 0, p 0 waits (b) g=5 itself and (c) receiver's send of
    // g-2+1 = 5 (chunk g-2 = 4 is not a loop's last step 5, so it is forwarded at step 5) -> {(5c)n+0, (5c)n+1}.
    const std::size_t i = (6 * c + 0) * n + 0;
    CHECK(deps_of(s, i) == std::vector<std::uint32_t>{(5 * c) * n + 0, (5 * c) * n + 1});
    // g=7 (loop 1, j=1), p=0: (a) g=6 position 3, (b) g=6 position 0, (c) chunk g-2=5 was a loop's last step
    // (stored, not forwarded): no slot dependency.
    CHECK(deps_of(s, (7 * c) * n + 0) == std::vector<std::uint32_t>{(6 * c) * n + 0, (6 * c) * n + 3});
  }
  SECTION("tiny message: zero-byte pieces still exist, bytes exact") {
    auto s = ring_allreduce(n, 4, 5, Proto::LL, o);
    CHECK(s.transfers.size() == std::size_t{c * n * 2 * (n - 1)});
    CHECK(validate(s).empty());
  }
  SECTION("ring order is followed") {
    o.ring_order = {2, 0, 3, 1};
    auto s = ring_allreduce(n, 1, 4096, Proto::Simple, o);
    CHECK(s.transfers[0].src == 2u);
    CHECK(s.transfers[0].dst == 0u);
    CHECK(validate(s).empty());
  }
  SECTION("one rank moves nothing") { CHECK(ring_allreduce(1, 1, 1 * MiB, Proto::Simple).transfers.empty()); }
}

TEST_CASE("ring allgather and reducescatter: c*n*(n-1)*loops transfers, (n-1)/n * S per rank") {
  const std::uint32_t n = 8, c = 4;
  GenOptions o;
  o.channels = c;
  const Bytes S = 64 * MiB;  // slice S/(c*n) = 2 MiB = one chunk -> 1 loop
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    auto s = generate(op, Algo::Ring, Proto::Simple, n, 8, S, o);
    CHECK(s.loops == 1u);
    CHECK(s.transfers.size() == std::size_t{c * n * (n - 1)});
    CHECK(validate(s).empty());
    for (Bytes b : sent_per_rank(s)) CHECK(b == (n - 1) * S / n);
  }
  o.chunk_bytes = 1 * MiB;  // 2 loops
  auto s = ring_allgather(n, 8, S, Proto::Simple, o);
  CHECK(s.loops == 2u);
  CHECK(s.transfers.size() == std::size_t{2 * c * n * (n - 1)});
}

TEST_CASE("ring broadcast and reduce: chains of n-1 hops") {
  const std::uint32_t n = 6, c = 2;
  GenOptions o;
  o.channels = c;
  o.root = 3;
  const Bytes S = 10 * MiB + 3;  // loops = ceil(S / (c * 512 KiB)) = 11
  auto b = ring_broadcast(n, 3, S, Proto::Simple, o);
  CHECK(b.loops == 11u);
  CHECK(b.transfers.size() == std::size_t{11 * c * (n - 1)});
  CHECK(validate(b).empty());
  CHECK(b.transfers[0].src == 3u);  // the chain starts at the root
  // hop h of loop l waits for hop h-1 (a), loop l-1 (b) and, l >= 8 slots, hop h+1 of loop l-8 (c).
  const std::size_t hops = n - 1;
  const std::size_t i = (8 * c + 0) * hops + 2;
  CHECK(deps_of(b, i) == std::vector<std::uint32_t>{std::uint32_t((0 * c) * hops + 3),
                                                    std::uint32_t((7 * c) * hops + 2), std::uint32_t(i - 1)});
  auto r = ring_reduce(n, 3, S, Proto::Simple, o);
  CHECK(validate(r).empty());
  CHECK(r.transfers[hops - 1].dst == 3u);  // the chain ends at the root
}

TEST_CASE("sendrecv: r -> r+1, S per rank, FIFO per connection") {
  GenOptions o;
  o.channels = 2;
  auto s = sendrecv(4, 4, 3 * MiB, Proto::Simple, o);  // loops = ceil(3 MiB / (2 * 512 KiB)) = 3
  CHECK(s.transfers.size() == std::size_t{3 * 2 * 4});
  CHECK(validate(s).empty());
  CHECK(deps_of(s, (1 * 2 + 1) * 4 + 2) == std::vector<std::uint32_t>{(0 * 2 + 1) * 4 + 2});
}

TEST_CASE("validate catches broken schedules") {
  auto s = ring_allreduce(4, 4, 1 * MiB, Proto::Simple);
  auto bad = s;
  bad.transfers[3].bytes += 1;  // one byte too many
  CHECK_FALSE(validate(bad).empty());
  bad = s;
  bad.deps[bad.transfers[10].dep_begin] = 11;  // forward dependency
  CHECK_FALSE(validate(bad).empty());
}

TEST_CASE("generator argument errors") {
  GenOptions o;
  o.slots = 1;
  CHECK_THROWS_WITH(ring_allreduce(4, 4, 1024, Proto::Simple, o), Catch::Contains("slots must be >= 2"));
  CHECK_THROWS_WITH(ring_allreduce(6, 4, 1024, Proto::Simple), Catch::Contains("must divide"));
  CHECK_THROWS_WITH(generate(Op::Broadcast, Algo::Tree, Proto::Simple, 4, 4, 1024),
                    Catch::Contains("only implements allreduce"));
  GenOptions ro;
  ro.ring_order = {0, 1, 1, 2};
  CHECK_THROWS_WITH(ring_allgather(4, 4, 1024, Proto::Simple, ro), Catch::Contains("permutation"));
}

TEST_CASE("JSON dump lists transfers and their deps") {
  auto s = ring_allreduce(2, 2, 4096, Proto::Simple);
  auto j = nlohmann::json::parse(to_json(s));
  CHECK(j["op"] == "allreduce");
  CHECK(j["transfers_total"] == 4);  // 1 channel * 2 ranks * 2(n-1) = 4
  CHECK(j["transfers"][2]["deps"].size() == s.transfers[2].dep_count);
  CHECK(to_json(s) == to_json(s));
}

TEST_CASE("large ring: 1024 ranks x 2 channels is ~4 M transfers, 32 B each") {
  GenOptions o;
  o.channels = 2;
  auto s = ring_allreduce(1024, 8, 1 * GiB, Proto::Simple, o);  // slice 1 GiB/2048 = 512 KiB -> 1 loop
  // c*n*2(n-1) = 2*1024*2046 = 4,190,208
  CHECK(s.transfers.size() == 4190208u);
  CHECK(sizeof(Transfer) == 32u);
  CHECK(validate(s).empty());
}

TEST_CASE("dependency kinds: data waits for delivery, order and buffer for the bytes to leave") {
  // Ring allreduce on 4 ranks, one channel, 2 loops (S = 2 x 4 x 2 MiB): transfer (g, p) has index g*4 + p (ring.cpp
  // layout). At g = 1, p = 1: (a) data from (0, 0) [0 -> 1 delivers to rank 1, the sender], (b) order (0, 1).
  // At g = 2, p = 1: also (c) buffer (1, 2) [rank 2, the receiver, forwarded chunk 0 at step 1].
  const CollectiveSchedule s = ring_allreduce(4, 4, 16 * MiB, Proto::Simple);
  REQUIRE(s.loops == 2);
  REQUIRE(s.slots == 2);
  auto kind_of = [&](std::uint32_t t, std::uint32_t dep) {
    const Transfer& tr = s.transfers[t];
    for (std::uint32_t d = 0; d < tr.dep_count; ++d)
      if (s.deps[tr.dep_begin + d] == dep) return static_cast<int>(dependency_kind(s.transfers[dep], tr));
    return -1;  // not a dependency
  };
  const int data = static_cast<int>(DepKind::Data), sent = static_cast<int>(DepKind::Sent);
  CHECK(kind_of(1 * 4 + 1, 0 * 4 + 0) == data);
  CHECK(kind_of(1 * 4 + 1, 0 * 4 + 1) == sent);
  CHECK(kind_of(2 * 4 + 1, 1 * 4 + 2) == sent);
  CHECK(kind_of(2 * 4 + 1, 1 * 4 + 0) == data);
  // Two ranks: the receiver's forwarding send is also the data this send forwards; data wins (delivery).
  const CollectiveSchedule two = ring_allreduce(2, 2, 16 * MiB, Proto::Simple);
  CHECK(dependency_kind(two.transfers[0], two.transfers[3]) == DepKind::Data);  // 0 -> 1 feeds 1 -> 0 at step 1
}
