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
  SECTION("one loop, S divisible: c*n*2(n-1)*2 slice transfers, each rank sends 2(n-1)/n * S") {
    const Bytes S = 8 * MiB;  // per-channel per-rank piece S/(c*n) = 1 MiB <= 2 MiB chunk -> 1 loop, 2 slices
    auto s = ring_allreduce(n, 4, S, Proto::Simple, o);
    CHECK(s.loops == 1u);
    CHECK(s.slices == 2u);
    CHECK(s.transfers.size() == std::size_t{c * n * 2 * (n - 1) * 2});  // 2*4*6*2 = 96
    CHECK(validate(s).empty());
    for (Bytes b : sent_per_rank(s)) CHECK(b == 2 * (n - 1) * S / n);  // 12 MiB
    // Transfer index (u*c + ch)*n + p, send u = step x 2 + slice, room = 2 slots x 2 slices = 4. Send u=2 (step 1,
    // slice 0), channel 0, position 1 (index 17) waits for (a) position 0's slice 0 of step 0 (u=0: index 0) and
    // (b) its own send u=1 (index 9); (c) does not apply yet: the receiver's room is not full (u < 4).
    CHECK(deps_of(s, (2 * c + 0) * n + 1) == std::vector<std::uint32_t>{0, 9});
    // Send u=4 (step 2, slice 0), position 1: (a) u-2 at position 0, (2c+0)n+0 = 16, (b) u-1, (3c+0)n+1 = 25,
    // (c) slice u-4 = 0 must have been forwarded by the receiver (position 2) at its send u-4+2 = 2: (2c+0)n+2 = 18.
    CHECK(deps_of(s, (4 * c + 0) * n + 1) == std::vector<std::uint32_t>{16, 18, 25});
    // First send: no dependency at all.
    CHECK(deps_of(s, 0).empty());
    // Step j sends block (p - j) mod n in two slices: all equal here (S/(c*n)/2 = 512 KiB, ring_slice_bytes).
    for (const auto& t : s.transfers) CHECK(t.bytes == S / (c * n) / 2);
  }
  SECTION("several loops with a remainder: no byte lost") {
    o.chunk_bytes = 1000;
    const Bytes S = 3 * c * n * 1000 + 17;  // loops = ceil(S / (c*n*chunk)) = 4
    auto s = ring_allreduce(n, 2, S, Proto::Simple, o);
    CHECK(s.loops == 4u);
    CHECK(s.transfers.size() == std::size_t{4 * c * n * 2 * (n - 1) * 2});
    CHECK(validate(s).empty());
    Bytes total = 0;
    for (const auto& t : s.transfers) total += t.bytes;
    CHECK(total == 2 * (n - 1) * S);  // required_total_bytes
    // A 1000-byte chunk's slices: max(ceil(1000 / 128) x 64, 1000 / 2 / 32) = 512 and 488 bytes.
    CHECK(s.transfers[0].bytes == 512);
    CHECK(s.transfers[c * n].bytes == 488);
    // Room dependency across loops: send u=12 (step 6 = loop 1, j=0, slice 0), ch 0, p 0 waits (b) u-1 = 11 itself
    // and (c) the receiver's send u-4+2 = 10 (slice u-4 = 8 is of step 4, not a loop's last step 5, so it is
    // forwarded at step 5) -> {(10c)n+1, (11c)n+0}.
    CHECK(deps_of(s, (12 * c + 0) * n + 0) == std::vector<std::uint32_t>{(10 * c) * n + 1, (11 * c) * n + 0});
    // u=14 (step 7 = loop 1, j=1, slice 0), p=0: (a) u-2 position 3, (b) u-1 position 0, (c) slice u-4 = 10 was of a
    // loop's last step (stored, not forwarded): no room dependency.
    CHECK(deps_of(s, (14 * c) * n + 0) == std::vector<std::uint32_t>{(12 * c) * n + 3, (13 * c) * n + 0});
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

TEST_CASE("ring allgather and reducescatter: c*n*(n-1)*loops*2 slice transfers, (n-1)/n * S per rank") {
  const std::uint32_t n = 8, c = 4;
  GenOptions o;
  o.channels = c;
  const Bytes S = 64 * MiB;  // slice S/(c*n) = 2 MiB = one chunk -> 1 loop
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    auto s = generate(op, Algo::Ring, Proto::Simple, n, 8, S, o);
    CHECK(s.loops == 1u);
    CHECK(s.transfers.size() == std::size_t{c * n * (n - 1) * 2});
    CHECK(validate(s).empty());
    for (Bytes b : sent_per_rank(s)) CHECK(b == (n - 1) * S / n);
  }
  o.chunk_bytes = 1 * MiB;  // 2 loops
  auto s = ring_allgather(n, 8, S, Proto::Simple, o);
  CHECK(s.loops == 2u);
  CHECK(s.transfers.size() == std::size_t{2 * c * n * (n - 1) * 2});
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
  CHECK(j["slices"] == 2);
  CHECK(j["transfers_total"] == 8);  // 1 channel * 2 ranks * 2(n-1) steps * 2 slices = 8
  CHECK(j["transfers"][2]["deps"].size() == s.transfers[2].dep_count);
  CHECK(to_json(s) == to_json(s));
}

TEST_CASE("large ring: 1024 ranks x 2 channels is ~8 M slice transfers, 32 B each") {
  GenOptions o;
  o.channels = 2;
  auto s = ring_allreduce(1024, 8, 1 * GiB, Proto::Simple, o);  // piece 1 GiB/2048 = 512 KiB -> 1 loop
  // c*n*2(n-1)*2 slices = 2*1024*2046*2 = 8,380,416
  CHECK(s.transfers.size() == 8380416u);
  CHECK(sizeof(Transfer) == 32u);
  CHECK(validate(s).empty());
}

TEST_CASE("dependency kinds: data waits for delivery, order and buffer for the bytes to leave") {
  // Ring allreduce on 4 ranks, one channel, 2 loops (S = 2 x 4 x 2 MiB), 2 slices: transfer (u, p) has index u*4 + p
  // (ring.cpp layout, send u = step x 2 + slice). At u = 2, p = 1: (a) data from (0, 0) [0 -> 1 delivers to rank 1,
  // the sender], (b) order (1, 1). At u = 4, p = 1: also (c) buffer (2, 2) [rank 2, the receiver, forwarded slice 0
  // at its send 2].
  const CollectiveSchedule s = ring_allreduce(4, 4, 16 * MiB, Proto::Simple);
  REQUIRE(s.loops == 2);
  REQUIRE(s.slots == 2);
  REQUIRE(s.slices == 2);
  auto kind_of = [&](std::uint32_t t, std::uint32_t dep) {
    const Transfer& tr = s.transfers[t];
    for (std::uint32_t d = 0; d < tr.dep_count; ++d)
      if (s.deps[tr.dep_begin + d] == dep) return static_cast<int>(dependency_kind(s.transfers[dep], tr));
    return -1;  // not a dependency
  };
  const int data = static_cast<int>(DepKind::Data), sent = static_cast<int>(DepKind::Sent);
  CHECK(kind_of(2 * 4 + 1, 0 * 4 + 0) == data);
  CHECK(kind_of(2 * 4 + 1, 1 * 4 + 1) == sent);
  CHECK(kind_of(4 * 4 + 1, 2 * 4 + 2) == sent);
  CHECK(kind_of(4 * 4 + 1, 2 * 4 + 0) == data);
  // Two ranks: the receiver's forwarding send is also the data this send forwards; data wins (delivery).
  const CollectiveSchedule two = ring_allreduce(2, 2, 16 * MiB, Proto::Simple);
  CHECK(dependency_kind(two.transfers[0], two.transfers[5]) == DepKind::Data);  // 0 -> 1 feeds 1 -> 0 at step 1
}
