// alltoall schedule (workloads/collectives/alltoall.cpp): names, NCCL's p2p round order, exact bytes per rank and per
// pair, the channel of each round's parts, and that serialized p2p batches lengthen the contention-free time.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "vgsim/workloads/collectives/analytical.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"
#include "vgsim/workloads/collectives/validate.hpp"

using namespace vgsim;
using namespace vgsim::coll;

TEST_CASE("alltoall: names nccl-tests and NCCL use") {
  CHECK(parse_op("alltoall") == Op::AllToAll);
  CHECK(parse_op("all_to_all") == Op::AllToAll);
  CHECK(parse_op("AllToAll") == Op::AllToAll);
  CHECK(std::string(to_string(Op::AllToAll)) == "alltoall");
  // nccl-tests alltoall.cu AlltoAllGetBw: busbw = algbw x (n-1)/n; S = count (per peer) x n x type size.
  CHECK(busbw_factor(Op::AllToAll, 16) == Approx(15.0 / 16));
  CHECK(busbw_factor(Op::AllToAll, 2) == Approx(0.5));
  CHECK(nccl_tests_size(Op::AllToAll, 4 * 1024, 16) == 16 * 4 * 1024);
}

TEST_CASE("alltoall: NCCL's p2p rounds (quadratic delta order, node-major)") {
  // init.cc's own example for 16 ranks on one node: 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8.
  const auto r16 = p2p_rounds(1, 16);
  const std::vector<std::uint32_t> want{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8};
  REQUIRE(r16.size() == 16);
  for (std::size_t i = 0; i < 16; ++i) {
    CHECK(r16[i].first == 0);
    CHECK(r16[i].second == want[i]);
  }
  // Not a power of two: pow2Up(6) = 8 deltas, those >= 6 skipped; still every delta once.
  for (auto [nodes, ppn] : {std::pair{3u, 6u}, std::pair{5u, 1u}, std::pair{2u, 8u}}) {
    const auto r = p2p_rounds(nodes, ppn);
    REQUIRE(r.size() == nodes * ppn);
    CHECK(r[0] == std::pair<std::uint32_t, std::uint32_t>{0, 0});  // round 0: the rank itself
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen(r.begin(), r.end());
    CHECK(seen.size() == r.size());
    // Node-major: all rounds of one node delta are consecutive (every rank of a node talks to one node at a time).
    for (std::size_t i = 0; i < r.size(); ++i) CHECK(r[i].first == r[i / ppn * ppn].first);
  }
}

TEST_CASE("alltoall: every rank sends (n-1)/n S and receives as much; each pair carries S/n") {
  for (auto [n, ppn, C] :
       {std::tuple{8u, 4u, 4u}, std::tuple{16u, 8u, 16u}, std::tuple{6u, 1u, 2u}, std::tuple{5u, 5u, 8u}}) {
    for (Bytes S : {Bytes{0}, Bytes{8} * n, Bytes{3} * MiB * n, Bytes{1000003}}) {
      GenOptions o;
      o.channels = C;
      const CollectiveSchedule s = alltoall(n, ppn, S, Proto::Simple, o);
      INFO("n=" << n << " ppn=" << ppn << " S=" << S);
      const auto errors = validate(s);
      CHECK(errors.empty());
      if (!errors.empty()) FAIL(errors.front());
      std::vector<Bytes> out(n, 0), in(n, 0);
      std::map<std::pair<std::uint32_t, std::uint32_t>, Bytes> pair;
      for (const Transfer& t : s.transfers) {
        CHECK(t.src != t.dst);
        out[t.src] += t.bytes;
        in[t.dst] += t.bytes;
        pair[{t.src, t.dst}] += t.bytes;
      }
      for (std::uint32_t r = 0; r < n; ++r) {
        const Bytes block = S / n + (static_cast<Bytes>(r) < S % n ? 1 : 0);
        CHECK(out[r] == S - block);
        CHECK(in[r] == (n - 1) * block);
        if (S % n == 0) {
          CHECK(out[r] * n == (n - 1) * S);  // exactly (n-1)/n x S
          CHECK(in[r] * n == (n - 1) * S);
        }
      }
      if (S > 0) CHECK(pair.size() == static_cast<std::size_t>(n) * (n - 1));  // every ordered pair talks
    }
  }
}

TEST_CASE("alltoall: a round's parts go to base + bit-reversed part, chunks of the p2p chunk size") {
  // 2 nodes x 1 GPU, 4 p2p channels, 2 channels per peer: one real round (i = 1, node delta 1) with base
  // 1 x ceil(1/8) + 0 = 1; part 0 on channel 1, part 1 on 1 + bitreverse(1, 2 bits) = 1 + 2 = 3.
  GenOptions o;
  o.channels = 4;
  o.p2p_channels_per_peer = 2;
  const Bytes S = 2 * MiB;  // 1 MiB per peer: 2 parts of 512 KiB, 4 chunks of 128 KiB each
  const CollectiveSchedule s = alltoall(2, 1, S, Proto::Simple, o);
  std::set<std::uint32_t> channels;
  for (const Transfer& t : s.transfers) {
    channels.insert(t.channel);
    CHECK(t.bytes == 128 * KiB);
    CHECK(t.step == 1);
  }
  CHECK(channels == std::set<std::uint32_t>{1, 3});
  CHECK(s.transfers.size() == 2u * 2 * 4);  // 2 senders x 2 parts x 4 chunks
  // Larger communicators trim the parts: nChannelsMax halves while parts x n > 16 C (64 ranks, C = 2: 1 part).
  GenOptions big;
  big.channels = 2;
  big.p2p_channels_per_peer = 2;
  const CollectiveSchedule b = alltoall(64, 8, 64 * MiB, Proto::Simple, big);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<std::uint32_t>> chans;
  for (const Transfer& t : b.transfers) chans[{t.src, t.dst}].insert(t.channel);
  for (const auto& [p, c] : chans) CHECK(c.size() == 1);
}

TEST_CASE("alltoall: p2p batches on a channel run one after the other") {
  // One node of 16 ranks, 2 p2p channels: nChannelsMin halves to 1 (16 > 4 x 2) and 128 KiB per peer is one chunk,
  // so one part per operation: round i on channel i mod 2, 8 works (rounds 1, 3, .., 15) on channel 1. With 8 works
  // per batch that is one batch; with 1 work per batch 8 batches in a row, each waiting for the previous one.
  // Contention-free (each connection alone at B): T(batch = 8) = base + (a + x/B), T(batch = 1) = base + 8 (a + x/B).
  PathCosts costs;
  costs.base = Time::from_us(8.4);
  costs.intra = {Time::from_us(3.4), Bandwidth::from_GBps(20)};
  costs.inter = costs.intra;
  GenOptions o;
  o.channels = 2;
  o.p2p_channels_per_peer = 2;
  const Bytes S = 16 * 128 * KiB;  // 128 KiB per peer
  o.p2p_ops_per_batch = 8;
  const Time t8 = contention_free_time(alltoall(16, 16, S, Proto::Simple, o), costs);
  o.p2p_ops_per_batch = 1;
  const Time t1 = contention_free_time(alltoall(16, 16, S, Proto::Simple, o), costs);
  const double step_us = 3.4 + 128.0 * 1024 / 20e9 * 1e6;  // a + x/B for one 128 KiB work
  CHECK(t8.us() == Approx(8.4 + 1 * step_us).epsilon(0.01));
  CHECK(t1.us() == Approx(8.4 + 8 * step_us).epsilon(0.01));
  // No closed form on the planning path (training collectives only): refused, not guessed.
  CHECK_THROWS_AS(analytical_time(Op::AllToAll, Algo::Ring, Proto::Simple, 16, 16, S, o, costs), std::invalid_argument);
}

TEST_CASE("alltoall: refuses what NCCL cannot do") {
  GenOptions o;
  o.channels = 3;  // p2pnChannels is a power of two
  CHECK_THROWS_AS(alltoall(4, 4, MiB, Proto::Simple, o), std::invalid_argument);
  CHECK_THROWS_AS(generate(Op::AllToAll, Algo::Tree, Proto::Simple, 4, 4, MiB), std::invalid_argument);
  GenOptions g;
  g.max_transfers = 10;
  CHECK_THROWS_WITH(alltoall(8, 8, 64 * MiB, Proto::Simple, g), Catch::Contains("--max-transfers"));
}
