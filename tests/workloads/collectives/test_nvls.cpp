// NVLS (NVLink SHARP) allreduce: the generator's switch legs carry S(1 + 1/n) up and down per GPU, the dependency
// rule (reduction waits for every input, multicast for the reducer's store), validation of bad NVLS schedules, and
// NCCL's NVLS cost model (lat = intraLat, busBw = intra bw x 0.85 x (nCh-1)/nCh x 2) in the argmin; the same for
// NVLS Tree (switch legs per node plus network legs S/n_l per direction on 2 nodes; lat = intraLat + 2 log2(N)
// interLat, [derived] bw).
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vgsim/workloads/collectives/algorithm_registry.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/nccl_tuning.hpp"
#include "vgsim/workloads/collectives/schedule_json.hpp"
#include "vgsim/workloads/collectives/validate.hpp"

using namespace vgsim;
using namespace vgsim::coll;

namespace {
struct Legs {
  std::vector<Bytes> up, down;         // per rank: bytes to the switch, bytes from the switch
  std::vector<Bytes> net_out, net_in;  // per rank: GPU-to-GPU (NVLS Tree network) bytes sent, received
};
Legs legs(const CollectiveSchedule& s) {
  const std::vector<Bytes> zero(s.ranks, 0);
  Legs l{zero, zero, zero, zero};
  for (const Transfer& t : s.transfers) {
    if (t.dst == kSwitchRank)
      l.up[t.src] += t.bytes;
    else if (t.src == kSwitchRank)
      l.down[t.dst] += t.bytes;
    else
      l.net_out[t.src] += t.bytes, l.net_in[t.dst] += t.bytes;
  }
  return l;
}
std::vector<std::uint32_t> deps_of(const CollectiveSchedule& s, std::size_t i) {
  const Transfer& t = s.transfers[i];
  return {s.deps.begin() + t.dep_begin, s.deps.begin() + t.dep_begin + t.dep_count};
}
}  // namespace

TEST_CASE("nvls allreduce: every GPU's UP and DOWN carry S(1 + 1/n) exactly; validation passes") {
  const std::uint32_t n = 8;
  GenOptions o;
  o.channels = 16;
  // S = 3 loops of channels x n x 128 KiB (NVLS chunk): every shard is S/n bytes, so S(1 + 1/n) is an integer.
  CHECK(default_chunk_bytes(Op::AllReduce, Algo::NVLS, Proto::Simple) == 128 * KiB);
  const Bytes S = 3 * Bytes{16} * n * 128 * KiB;
  const CollectiveSchedule s = generate(Op::AllReduce, Algo::NVLS, Proto::Simple, n, n, S, o);
  CHECK(s.algo == Algo::NVLS);
  CHECK(s.loops == 3u);
  // transfers = loops x channels x (n^2 up-reads + n reduced deliveries + n up-stores + n^2 multicast deliveries)
  CHECK(s.transfers.size() == std::size_t{3} * 16 * (2 * n * n + 2 * n));
  const Legs l = legs(s);
  for (std::uint32_t r = 0; r < n; ++r) {
    // UP_r = S (its part of every shard's reduction) + S/n (its reduced shard, stored once) = S(1 + 1/n)
    CHECK(l.up[r] == S + S / n);
    // DOWN_r = S/n (its reduced shard) + n x S/n (every multicast shard) = S(1 + 1/n)
    CHECK(l.down[r] == S + S / n);
  }
  CHECK(validate(s).empty());
  // total over all transfers = n x 2 S(1 + 1/n) = 2(n + 1) S
  CHECK(required_total_bytes(Op::AllReduce, n, S, Algo::NVLS) == 2 * Bytes{n + 1} * S);
}

TEST_CASE("nvls allreduce: uneven sizes stay exact and valid; dependencies follow the switch rule") {
  GenOptions o;
  o.channels = 3;
  for (Bytes S : {Bytes{0}, Bytes{7}, Bytes{1000}, Bytes{5} * MiB + 3}) {
    const CollectiveSchedule s = nvls_allreduce(4, 4, S, Proto::Simple, o);
    INFO("S = " << S);
    CHECK(validate(s).empty());
    const Legs l = legs(s);
    Bytes up = 0, down = 0;
    for (std::uint32_t r = 0; r < 4; ++r) up += l.up[r], down += l.down[r];
    // sum over GPUs of UP = n S (reads) + S (stores) = (n + 1) S; the same for DOWN
    CHECK(up == 5 * S);
    CHECK(down == 5 * S);
  }
  // One loop, one channel, n = 2: U1(k, j) at k*n + j (0..3), D1(k) at 4 + k, U2(k) at 6 + k, D2(k, m) at 8 + k*n + m.
  const CollectiveSchedule s = nvls_allreduce(2, 2, 4 * KiB, Proto::Simple);
  REQUIRE(s.transfers.size() == 12u);
  CHECK(s.transfers[5].src == kSwitchRank);
  CHECK(s.transfers[5].dst == 1u);
  CHECK(deps_of(s, 5) == std::vector<std::uint32_t>{2, 3});  // shard 1's reduction reads both GPUs' inputs
  CHECK(dependency_kind(s.transfers[2], s.transfers[5]) == DepKind::Data);
  CHECK(deps_of(s, 7) == std::vector<std::uint32_t>{5});  // GPU 1 stores what it received
  CHECK(dependency_kind(s.transfers[5], s.transfers[7]) == DepKind::Data);
  CHECK(deps_of(s, 10) == std::vector<std::uint32_t>{7});  // multicast of shard 1 to GPU 0 after the store
  CHECK(dependency_kind(s.transfers[7], s.transfers[10]) == DepKind::Data);
}

TEST_CASE("nvls: bad requests and corrupted schedules are refused with the reason") {
  CHECK_THROWS_WITH(nvls_allreduce(8, 8, MiB, Proto::LL), Catch::Contains("Simple protocol only"));
  CHECK_THROWS_WITH(nvls_allreduce(16, 8, MiB, Proto::Simple), Catch::Contains("one node"));
  CHECK_THROWS_WITH(generate(Op::AllGather, Algo::NVLS, Proto::Simple, 8, 8, MiB),
                    Catch::Contains("only for allreduce"));
  CollectiveSchedule s = nvls_allreduce(4, 4, MiB, Proto::Simple);
  REQUIRE(validate(s).empty());
  s.transfers[0].dst = 1;  // a GPU-to-GPU transfer in an NVLS schedule
  CHECK(!validate(s).empty());
  CollectiveSchedule ring = generate(Op::AllReduce, Algo::Ring, Proto::Simple, 4, 4, MiB);
  ring.transfers[0].dst = kSwitchRank;  // the switch in a ring schedule
  const auto err = validate(ring);
  REQUIRE(!err.empty());
  CHECK(err[0].find("NVSwitch") != std::string::npos);
}

TEST_CASE("NCCL's NVLS model: lat = intraLat, busBw = intra x 0.85 x 15/16 x 2, picked only where supported") {
  const NcclTuning t = NcclTuning::defaults();
  CommShape c;  // 8 x H100 SXM on one NVSwitch: 7 channels x 52.97 GB/s = 370.8 GB/s
  c.ranks = 8;
  c.nodes = 1;
  c.arch = GpuArch::Hopper;
  c.channels = 7;
  c.bw_intra_GBps = c.bw_inter_GBps = 370.8 / 7;
  c.nvlink_p2p = c.on_nvswitch = true;  // the NVLS facts: NVLink P2P, every rank a whole GPU on the NVSwitch
  c.nvls_channels = 16;
  // 1.4: NVLS lat = base (0) + hwLatency NVLINK/NVLS/Simple (25 us)
  CHECK(latency_us(t, Op::AllReduce, Algo::NVLS, Proto::Simple, c) == Approx(25.0));
  // 1.5: busBw = 370.8 x 0.85 x 15/16 x 2; 1.1: algBw = busBw x n / (2(n-1)) = busBw x 8/14
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLS, Proto::Simple, c) ==
        Approx(370.8 * 0.85 * 15.0 / 16.0 * 2.0 * 8.0 / 14.0));
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLS, Proto::LL, c) == 0.0);      // Simple only
  CHECK(bandwidth_GBps(t, Op::AllGather, Algo::NVLS, Proto::Simple, c) == 0.0);  // not modelled
  // the engine's per-leg latency: 25 us / 4 legs along a chunk's chain
  CHECK(hop_latency_us(t, Link::NVLink, Algo::NVLS, Proto::Simple) == Approx(25.0 / kNvlsChainLegs));
  // 8 B: Ring/LL (6.6 + 14 x 0.6 = 15 us) beats NVLS's 25 us; 256 MiB: NVLS.
  CHECK(select(t, Op::AllReduce, 8, c).algo == Algo::Ring);
  CHECK(select(t, Op::AllReduce, 256 * MiB, c).algo == Algo::NVLS);
  CHECK(select(t, Op::AllReduce, 256 * MiB, c).proto == Proto::Simple);
  CHECK(select(t, Op::AllReduce, 256 * MiB, c).launch.channels == 16u);
  CHECK(select(t, Op::AllGather, 256 * MiB, c).algo == Algo::Ring);
  CommShape no = c;
  no.on_nvswitch = false;
  no.off_nvswitch = "endpoint gpu0 (vgpu)";
  CHECK(why_unavailable(Algo::NVLS, no) == "endpoint gpu0 (vgpu) is not a whole GPU on an NVSwitch");
  for (Bytes b = 8; b <= (Bytes{1} << 33); b *= 4) CHECK(select(t, Op::AllReduce, b, no).algo != Algo::NVLS);
  // parameters are named, sourced and overridable
  NcclTuning u = t;
  CHECK(u.get("nccl.hw_latency.nvlink.nvls.simple") == 25.0);
  CHECK(u.get("nccl.nvls_efficiency.hopper") == 0.85);
  CHECK(u.get("nccl.nvls_efficiency.blackwell") == 0.74);
  CHECK(u.get("nccl.nvls.max_channels") == 16.0);
  u.set("nccl.hw_latency.nvlink.nvls.simple", 5.0);
  CHECK(latency_us(u, Op::AllReduce, Algo::NVLS, Proto::Simple, c) == Approx(5.0));
  const auto params = t.list();
  CHECK(std::any_of(params.begin(), params.end(), [](const NcclTuning::Param& p) {
    return p.name == "nccl.nvls_efficiency.hopper" && p.source.find("docs/SOURCES.md#nccl-tuning") != std::string::npos;
  }));
}

TEST_CASE("nvls: the JSON dump names the switch endpoint instead of printing the sentinel") {
  GenOptions o;
  o.channels = 1;
  const CollectiveSchedule s = generate(Op::AllReduce, Algo::NVLS, Proto::Simple, 2, 2, 4096, o);
  const auto j = nlohmann::json::parse(to_json(s));
  // transfer 0 is rank 0's read up to the switch (dst = switch); some transfer comes from the switch (src = switch)
  CHECK(j["transfers"][0]["dst"] == "switch");
  bool from_switch = false;
  for (const auto& t : j["transfers"]) from_switch = from_switch || (t["src"] == "switch" && t["dst"].is_number());
  CHECK(from_switch);
}

TEST_CASE("nvlstree allreduce, 2 x 8: UP = DOWN = S(1 + 1/n_l), network S/n_l per direction; validation passes") {
  const std::uint32_t nl = 8, n = 16;
  GenOptions o;
  o.channels = 16;
  o.chunk_bytes = 128 * KiB;  // pinned (NCCL would adapt it to 64 KiB at this size: see the chunk test below)
  // S = 3 loops of channels x n_l x 128 KiB: every shard is S/n_l bytes
  const Bytes S = 3 * Bytes{16} * nl * 128 * KiB;
  const CollectiveSchedule s = generate(Op::AllReduce, Algo::NVLSTree, Proto::Simple, n, nl, S, o);
  CHECK(s.algo == Algo::NVLSTree);
  CHECK(s.loops == 3u);
  // transfers = loops x channels x (N n_l^2 reads + N n_l deliveries + (N-1) n_l up + (N-1) n_l down + N n_l stores
  //             + N n_l^2 multicasts), N = 2
  CHECK(s.transfers.size() == std::size_t{3} * 16 * (2 * 2 * nl * nl + 2 * 2 * nl + 2 * nl));
  const Legs g = legs(s);
  for (std::uint32_t r = 0; r < n; ++r) {
    INFO("rank " << r);
    // UP_r = S (its part of every shard's node reduction) + S/n_l (its result shard, stored once) = S(1 + 1/n_l)
    CHECK(g.up[r] == S + S / nl);
    // DOWN_r = S/n_l (its node-partial shard) + n_l x S/n_l (every multicast shard) = S(1 + 1/n_l)
    CHECK(g.down[r] == S + S / nl);
    // network, 2 nodes: per channel half the GPU is the child (sends its partial shard up) and half the root (sends
    // the sum down), so out = in = S/n_l
    CHECK(g.net_out[r] == S / nl);
    CHECK(g.net_in[r] == S / nl);
  }
  CHECK(validate(s).empty());
  // total = N x 2(n_l + 1) S (switch legs) + 2(N - 1) S (tree edges) = 2 x 18 S + 2 S
  CHECK(required_total_bytes(Op::AllReduce, n, S, Algo::NVLSTree, nl) == 38 * S);
}

TEST_CASE("nvlstree chunk: one Simple step, lowered per call as enqueue.cc's NVLS_TREE rule (recalled)") {
  // The largest chunk: BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB (chunkSteps 1 outside the ring), 8 slots.
  CHECK(default_chunk_bytes(Op::AllReduce, Algo::NVLSTree, Proto::Simple) == 512 * KiB);
  CHECK(default_slots(Op::AllReduce, Algo::NVLSTree, Proto::Simple) == 8u);
  // concurrentOps = channels x local ranks = 16 x 8 = 128. size >= 32 x 128 x 512 KiB = 2 GiB keeps 512 KiB; below,
  // 256 KiB while size >= 16 x 128 x 256 KiB = 512 MiB; 128 KiB while >= 4 x 128 x 128 KiB = 64 MiB; 64 KiB while
  // >= 1 x 128 x 64 KiB = 8 MiB; 32 KiB below.
  auto chunk = [](Bytes size, std::uint32_t channels = 16, std::uint32_t ppn = 8) {
    return call_chunk_bytes(Op::AllReduce, Algo::NVLSTree, Proto::Simple, size, channels, ppn);
  };
  CHECK(chunk(16 * GiB) == 512 * KiB);
  CHECK(chunk(2 * GiB) == 512 * KiB);
  CHECK(chunk(2 * GiB - 1) == 256 * KiB);
  CHECK(chunk(512 * MiB) == 256 * KiB);
  CHECK(chunk(512 * MiB - 1) == 128 * KiB);
  CHECK(chunk(64 * MiB) == 128 * KiB);
  CHECK(chunk(64 * MiB - 1) == 64 * KiB);
  CHECK(chunk(8 * MiB) == 64 * KiB);
  CHECK(chunk(8 * MiB - 1) == 32 * KiB);
  CHECK(chunk(8) == 32 * KiB);
  // concurrentOps scales the thresholds: 4 channels x 4 local ranks = 16, so 512 KiB from 32 x 16 x 512 KiB = 256 MiB.
  CHECK(chunk(256 * MiB, 4, 4) == 512 * KiB);
  CHECK(chunk(256 * MiB - 1, 4, 4) == 256 * KiB);
  // Other algorithms keep their geometry's chunk at every size, and the generator takes the call's chunk unless one is
  // given.
  CHECK(call_chunk_bytes(Op::AllReduce, Algo::Tree, Proto::Simple, 8, 16, 8) == 512 * KiB);
  CHECK(call_chunk_bytes(Op::AllReduce, Algo::NVLS, Proto::Simple, 8, 16, 8) == 128 * KiB);
  GenOptions o;
  o.channels = 16;
  CHECK(generate(Op::AllReduce, Algo::NVLSTree, Proto::Simple, 16, 8, 64 * MiB - 1, o).chunk_bytes == 64 * KiB);
  o.chunk_bytes = 128 * KiB;
  CHECK(generate(Op::AllReduce, Algo::NVLSTree, Proto::Simple, 16, 8, 64 * MiB - 1, o).chunk_bytes == 128 * KiB);
}

TEST_CASE("nvlstree allreduce: uneven sizes and N > 2 stay exact and valid; network stays within one local index") {
  for (std::uint32_t N : {2u, 3u, 4u, 5u})
    for (std::uint32_t c : {1u, 2u, 6u})
      for (Bytes S : {Bytes{0}, Bytes{7}, Bytes{1000}, Bytes{5} * MiB + 3}) {
        GenOptions o;
        o.channels = c;
        const std::uint32_t nl = 4;
        const CollectiveSchedule s = nvls_tree_allreduce(N * nl, nl, S, Proto::Simple, o);
        INFO("N = " << N << ", channels = " << c << ", S = " << S);
        const auto err = validate(s);
        CHECK(err.empty());
        if (!err.empty()) INFO(err[0]);
        const Legs g = legs(s);
        Bytes up = 0, down = 0, net = 0;
        for (std::uint32_t r = 0; r < N * nl; ++r) up += g.up[r], down += g.down[r], net += g.net_out[r];
        // per node: sum of UP = n_l S (reads) + S (stores) = (n_l + 1) S; the same for DOWN
        CHECK(up == Bytes{N} * (nl + 1) * S);
        CHECK(down == Bytes{N} * (nl + 1) * S);
        // network: every one of the N - 1 tree edges carries S up and S down (summed over the n_l local trees)
        CHECK(net == 2 * Bytes{N - 1} * S);
        for (const Transfer& t : s.transfers)
          if (t.src != kSwitchRank && t.dst != kSwitchRank) {
            CHECK(t.src % nl == t.dst % nl);
            CHECK(t.src / nl != t.dst / nl);
          }
      }
}

TEST_CASE("nvlstree: bad requests and corrupted schedules are refused with the reason") {
  CHECK_THROWS_WITH(nvls_tree_allreduce(16, 8, MiB, Proto::LL), Catch::Contains("Simple protocol only"));
  CHECK_THROWS_WITH(nvls_tree_allreduce(8, 8, MiB, Proto::Simple), Catch::Contains("2 or more nodes"));
  GenOptions odd;
  odd.channels = 3;
  CHECK_THROWS_WITH(nvls_tree_allreduce(16, 8, MiB, Proto::Simple, odd), Catch::Contains("even"));
  CHECK_THROWS_WITH(generate(Op::AllGather, Algo::NVLSTree, Proto::Simple, 16, 8, MiB),
                    Catch::Contains("only implements allreduce"));
  CollectiveSchedule s = nvls_tree_allreduce(8, 4, MiB, Proto::Simple);
  REQUIRE(validate(s).empty());
  auto net = std::find_if(s.transfers.begin(), s.transfers.end(),
                          [](const Transfer& t) { return t.src != kSwitchRank && t.dst != kSwitchRank; });
  REQUIRE(net != s.transfers.end());
  net->dst = (net->dst / 4) * 4 + (net->dst + 1) % 4;  // to another local index of the same node
  const auto err = validate(s);
  REQUIRE(!err.empty());
  CHECK(err[0].find("local index") != std::string::npos);
  CHECK(parse_algo("NVLSTree") == Algo::NVLSTree);
  CHECK(parse_algo("nvls_tree") == Algo::NVLSTree);
  CHECK(std::string(to_string(Algo::NVLSTree)) == "nvlstree");
}

TEST_CASE("NCCL's NVLS Tree model: lat = intraLat + 2 log2(N) interLat, [derived] bw, picked only where supported") {
  const NcclTuning t = NcclTuning::defaults();
  CommShape c;  // 2 x 8 H100 SXM, 32 NIC channels: tree intra 370.8 / 32, network 400 GB/s / 32 per channel
  c.ranks = 16;
  c.nodes = 2;
  c.arch = GpuArch::Hopper;
  c.channels = 32;
  c.bw_intra_GBps = 370.8 / 32;
  c.tree_bw_intra_GBps = 370.8 / 32;
  c.bw_inter_GBps = 400.0 / 32;
  c.nvlink_p2p = c.on_nvswitch = true;
  c.nvls_channels = 16;
  // 1.4: lat = base (0) + NVLINK/NVLSTree/Simple 25 + 2 log2(2) x NET/NVLSTree/Simple 20.9 = 66.8 us
  CHECK(latency_us(t, Op::AllReduce, Algo::NVLSTree, Proto::Simple, c) == Approx(25.0 + 2 * 20.9));
  // [derived] algBw = min(NVLS on 8 GPUs: 370.8 x 0.85 x 15/16 x 2 x 8/14 = 337.7, network 32 x 12.5 = 400)
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLSTree, Proto::Simple, c) ==
        Approx(370.8 * 0.85 * 15.0 / 16.0 * 2.0 * 8.0 / 14.0));
  CommShape slow = c;
  slow.bw_inter_GBps = 100.0 / 32;  // a 100 GB/s node network bounds it: algBw = 100
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLSTree, Proto::Simple, slow) == Approx(100.0));
  CommShape four = slow;
  four.ranks = 32;
  four.nodes = 4;  // N > 2: NCCL 2.18.3's NVLSTree ratio .70 x 4 / (2 x 3) on the network bound: algBw = 46.67
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLSTree, Proto::Simple, four) == Approx(100.0 * 0.70 * 4.0 / 6.0));
  CommShape many = slow;  // 64 nodes: .70 x 64 / 126 = 0.356, below the ring's 1/2
  many.ranks = 512;
  many.nodes = 64;
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLSTree, Proto::Simple, many) == Approx(100.0 * 0.70 * 64.0 / 126.0));
  // 4 nodes: 25 + 2 x log2(4) x 20.9
  CHECK(latency_us(t, Op::AllReduce, Algo::NVLSTree, Proto::Simple, four) == Approx(25.0 + 4 * 20.9));
  CHECK(bandwidth_GBps(t, Op::AllReduce, Algo::NVLSTree, Proto::LL, c) == 0.0);  // Simple only
  // the engine's per-leg latencies: 25 us / 4 switch legs, 20.9 us per network hop
  CHECK(hop_latency_us(t, Link::NVLink, Algo::NVLSTree, Proto::Simple) == Approx(25.0 / kNvlsChainLegs));
  CHECK(hop_latency_us(t, Link::Net, Algo::NVLSTree, Proto::Simple) == Approx(20.9));
  // 1 GiB: NVLS Tree (66.8 us + 1 GiB / 337.7 GB/s) beats the ring (370.8 x 16/30 = 197.8 GB/s)
  // NVLS Tree is in the default set (its record), as NCCL's argmin offers it; NCCL_ALGO can leave it out.
  CHECK(select(t, Op::AllReduce, GiB, c).algo == Algo::NVLSTree);
  CHECK(select(t, Op::AllReduce, GiB, c, parse_allowed("^nvlstree", "")).algo != Algo::NVLSTree);
  const Allowed named = parse_allowed("ring,tree,nvls,nvlstree", "");
  const Selection big = select(t, Op::AllReduce, GiB, c, named);
  CHECK(big.algo == Algo::NVLSTree);
  CHECK(big.proto == Proto::Simple);
  CHECK(big.launch.channels == 16u);
  CHECK(select(t, Op::AllReduce, 8, c, named).algo != Algo::NVLSTree);  // 8 B: LL's few us beat 66.8 us
  CommShape no = c;
  no.nvlink_p2p = false;
  CHECK(why_unavailable(Algo::NVLSTree, no) == "the GPUs of a node do not talk over NVLink P2P");
  for (Bytes b = 8; b <= (Bytes{1} << 33); b *= 4) CHECK(select(t, Op::AllReduce, b, no, named).algo != Algo::NVLSTree);
  // parameters are named, sourced and overridable
  NcclTuning u = t;
  CHECK(u.get("nccl.hw_latency.nvlink.nvlstree.simple") == 25.0);
  CHECK(u.get("nccl.hw_latency.net.nvlstree.simple") == 20.9);
  CHECK(u.get("nccl.base_latency.nvlstree.simple") == 0.0);
  u.set("nccl.hw_latency.net.nvlstree.simple", 10.0);
  CHECK(latency_us(u, Op::AllReduce, Algo::NVLSTree, Proto::Simple, c) == Approx(25.0 + 2 * 10.0));
  const auto params = t.list();
  CHECK(std::any_of(params.begin(), params.end(), [](const NcclTuning::Param& p) {
    return p.name == "nccl.hw_latency.net.nvlstree.simple" &&
           p.source.find("docs/SOURCES.md#nccl-tuning") != std::string::npos;
  }));
}
