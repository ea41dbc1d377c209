// Validation of collective schedules (see validate.hpp). Expected bytes are derived from the collective's semantics
// and the documented data split (generators.hpp), not from the generator code paths.
#include "vgsim/workloads/collectives/validate.hpp"

#include <map>

#include "builder.hpp"

namespace vgsim::coll {

namespace {
// Bytes of block b (ring position b's slice, or NVLS shard b) under the documented split: loopSize = channels * n *
// chunk, piece c * n + b of each loop belongs to block b. NVLS Tree splits over the n = ranks_per_node local shards.
std::vector<Bytes> blocks(const CollectiveSchedule& s, std::uint32_t n) {
  const detail::Partition part(s.size, s.chunk_bytes, static_cast<std::uint64_t>(s.channels) * n);
  std::vector<Bytes> block(n, 0);
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t c = 0; c < s.channels; ++c)
      for (std::uint32_t b = 0; b < n; ++b) block[b] += part.piece(l, static_cast<std::uint64_t>(c) * n + b);
  return block;
}
}  // namespace

Bytes required_total_bytes(Op op, std::uint32_t n, Bytes S, Algo algo, std::uint32_t ppn) {
  if (n <= 1) return 0;
  if (algo == Algo::NVLS) return 2 * static_cast<Bytes>(n + 1) * S;  // up and down legs, each (n+1)S in all
  if (algo == Algo::NVLSTree) {
    if (ppn == 0 || n % ppn != 0)
      throw std::invalid_argument("required_total_bytes: NVLS Tree needs ranks_per_node dividing the ranks");
    const Bytes N = n / ppn;
    return N * 2 * static_cast<Bytes>(ppn + 1) * S + 2 * (N - 1) * S;  // switch legs per node + tree edges
  }
  const Bytes k = static_cast<Bytes>(n - 1);
  switch (op) {
    case Op::AllReduce: return 2 * k * S;
    case Op::SendRecv: return static_cast<Bytes>(n) * S;
    default: return k * S;
  }
}

std::vector<std::string> validate(const CollectiveSchedule& s, std::size_t max_errors) {
  std::vector<std::string> err;
  auto fail = [&](const std::string& m) {
    if (err.size() < max_errors) err.push_back(m);
  };
  const std::uint32_t n = s.ranks;
  const bool nvls_like = s.algo == Algo::NVLS || s.algo == Algo::NVLSTree;
  const std::uint32_t ppn = s.ranks_per_node == 0 ? n : s.ranks_per_node;
  if (s.algo == Algo::NVLSTree && (ppn == 0 || n % ppn != 0)) {
    fail("NVLS Tree schedule: ranks_per_node " + std::to_string(ppn) + " does not divide " + std::to_string(n) + " ranks");
    return err;
  }
  std::uint64_t expect_begin = 0;
  std::vector<Bytes> recv(n, 0), sent(n, 0);
  Bytes total = 0;
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    const bool to_sw = t.dst == kSwitchRank, from_sw = t.src == kSwitchRank;
    if (to_sw || from_sw) {
      if (!nvls_like) { fail("transfer " + std::to_string(i) + " names the NVSwitch in a " + to_string(s.algo) + " schedule (only NVLS and NVLS Tree may)"); continue; }
      if (to_sw && from_sw) { fail("transfer " + std::to_string(i) + " goes from the switch to the switch"); continue; }
    } else if (s.algo == Algo::NVLS) {
      fail("NVLS transfer " + std::to_string(i) + " goes GPU to GPU; every NVLS transfer has the switch on one side");
      continue;
    } else if (s.algo == Algo::NVLSTree && (t.src >= n || t.dst >= n || t.src / ppn == t.dst / ppn || t.src % ppn != t.dst % ppn)) {
      fail("NVLS Tree transfer " + std::to_string(i) + " goes GPU to GPU but not between one local index on two nodes");
      continue;
    }
    if ((!from_sw && t.src >= n) || (!to_sw && t.dst >= n)) { fail("transfer " + std::to_string(i) + " names a rank outside 0.." + std::to_string(n - 1)); continue; }
    if (t.src == t.dst) fail("transfer " + std::to_string(i) + " sends to itself");
    if (t.channel >= s.channels) fail("transfer " + std::to_string(i) + " uses channel " + std::to_string(t.channel));
    if (t.bytes < 0) fail("transfer " + std::to_string(i) + " has negative bytes");
    if (t.dep_begin != expect_begin) fail("transfer " + std::to_string(i) + ": dependencies are not contiguous CSR");
    expect_begin = static_cast<std::uint64_t>(t.dep_begin) + t.dep_count;
    if (expect_begin > s.deps.size()) { fail("transfer " + std::to_string(i) + ": dependency range past the end"); continue; }
    for (std::uint32_t d = 0; d < t.dep_count; ++d)
      if (s.deps[t.dep_begin + d] >= i)
        fail("transfer " + std::to_string(i) + " depends on " + std::to_string(s.deps[t.dep_begin + d]) + " (not topological)");
    if (!to_sw) recv[t.dst] += t.bytes;
    if (!from_sw) sent[t.src] += t.bytes;
    total += t.bytes;
  }
  if (expect_begin != s.deps.size()) fail("deps has entries no transfer uses");
  if (!err.empty()) return err;
  const Bytes S = s.size;
  const Bytes required = required_total_bytes(s.op, n, S, s.algo, ppn);
  if (total != required) fail("total bytes " + std::to_string(total) + " != required " + std::to_string(required));
  if (n <= 1) return err;

  if (s.algo == Algo::NVLS) {
    // Shard r's bytes from the documented split (loopSize = channels * n * chunk, piece c*n + r is shard r's chunk):
    // every GPU sends S up (its part of every reduction) plus its own reduced shard, and receives its reduced shard
    // plus every multicast shard: up = down = S + block_r.
    if (s.op != Op::AllReduce) fail(std::string("NVLS schedule for ") + to_string(s.op) + ": only allreduce is modelled");
    const std::vector<Bytes> block = blocks(s, n);
    for (std::uint32_t r = 0; r < n; ++r) {
      if (sent[r] != S + block[r]) fail("rank " + std::to_string(r) + " sends " + std::to_string(sent[r]) + " bytes up to the switch, expected " + std::to_string(S + block[r]));
      if (recv[r] != S + block[r]) fail("rank " + std::to_string(r) + " receives " + std::to_string(recv[r]) + " bytes down from the switch, expected " + std::to_string(S + block[r]));
    }
    return err;
  }

  if (s.algo == Algo::NVLSTree) {
    // Switch legs per GPU r of local index k: up = down = S + block_k (nvls_tree.cpp). Network, per (channel, k):
    // one node tree over the GPUs k of all nodes; its root sends nothing up (step 2), and every GPU ends with shard
    // k's result: bytes received down (step 3) + bytes of the channels it roots = block_k, likewise sent up.
    if (s.op != Op::AllReduce) fail(std::string("NVLS Tree schedule for ") + to_string(s.op) + ": only allreduce is modelled");
    const std::vector<Bytes> block = blocks(s, ppn);
    const std::uint32_t N = n / ppn;
    std::vector<Bytes> up_sw(n, 0), down_sw(n, 0), up_net(n, 0), down_net(n, 0), rooted(n, 0);
    std::vector<Bytes> ch_up(static_cast<std::size_t>(s.channels) * ppn, 0);
    std::vector<char> sends_up(static_cast<std::size_t>(s.channels) * n, 0);
    for (const Transfer& t : s.transfers) {
      if (t.dst == kSwitchRank) up_sw[t.src] += t.bytes;
      else if (t.src == kSwitchRank) down_sw[t.dst] += t.bytes;
      else if (t.step == 2) {
        up_net[t.src] += t.bytes;
        ch_up[static_cast<std::size_t>(t.channel) * ppn + t.src % ppn] += t.bytes;
        sends_up[static_cast<std::size_t>(t.channel) * n + t.src] = 1;
      } else down_net[t.dst] += t.bytes;
    }
    for (std::uint32_t c = 0; c < s.channels; ++c)
      for (std::uint32_t k = 0; k < ppn; ++k) {
        int roots = 0;
        for (std::uint32_t x = 0; x < N; ++x)
          if (!sends_up[static_cast<std::size_t>(c) * n + x * ppn + k]) {
            ++roots;
            rooted[x * ppn + k] += ch_up[static_cast<std::size_t>(c) * ppn + k] / (N - 1);
          }
        if (roots != 1) fail("NVLS Tree channel " + std::to_string(c) + " local " + std::to_string(k) + " has " + std::to_string(roots) + " roots");
      }
    for (std::uint32_t r = 0; r < n; ++r) {
      const Bytes want = S + block[r % ppn];
      if (up_sw[r] != want) fail("rank " + std::to_string(r) + " sends " + std::to_string(up_sw[r]) + " bytes up to the switch, expected " + std::to_string(want));
      if (down_sw[r] != want) fail("rank " + std::to_string(r) + " receives " + std::to_string(down_sw[r]) + " bytes down from the switch, expected " + std::to_string(want));
      if (down_net[r] + rooted[r] != block[r % ppn]) fail("rank " + std::to_string(r) + " ends with " + std::to_string(down_net[r] + rooted[r]) + " bytes of its shard's result, expected " + std::to_string(block[r % ppn]));
      if (up_net[r] + rooted[r] != block[r % ppn]) fail("rank " + std::to_string(r) + " contributes " + std::to_string(up_net[r] + rooted[r]) + " bytes of its node's partial shard, expected " + std::to_string(block[r % ppn]));
    }
    return err;
  }

  if (s.algo == Algo::Tree) {
    // Per channel: the root is the one rank that sends nothing up (step 0). Every rank must end up with every byte:
    // bytes received down (step 1) + bytes of the channels it roots == S; likewise bytes sent up + rooted == S.
    std::vector<Bytes> ch_up(s.channels, 0);
    std::vector<std::vector<char>> sends_up(s.channels, std::vector<char>(n, 0));
    std::vector<Bytes> down_recv(n, 0), up_sent(n, 0);
    for (const Transfer& t : s.transfers) {
      if (t.step == 0) { ch_up[t.channel] += t.bytes; sends_up[t.channel][t.src] = 1; up_sent[t.src] += t.bytes; }
      else down_recv[t.dst] += t.bytes;
    }
    std::vector<Bytes> rooted(n, 0);
    for (std::uint32_t c = 0; c < s.channels; ++c) {
      int roots = 0;
      for (std::uint32_t r = 0; r < n; ++r)
        if (!sends_up[c][r]) { ++roots; rooted[r] += ch_up[c] / (n - 1); }
      if (roots != 1) fail("tree channel " + std::to_string(c) + " has " + std::to_string(roots) + " roots");
    }
    for (std::uint32_t r = 0; r < n; ++r) {
      if (down_recv[r] + rooted[r] != S) fail("rank " + std::to_string(r) + " ends with " + std::to_string(down_recv[r] + rooted[r]) + " result bytes, expected " + std::to_string(S));
      if (up_sent[r] + rooted[r] != S) fail("rank " + std::to_string(r) + " contributes " + std::to_string(up_sent[r] + rooted[r]) + " bytes, expected " + std::to_string(S));
    }
    return err;
  }
  if (s.op == Op::SendRecv) {
    for (const Transfer& t : s.transfers)
      if (t.dst != (t.src + 1) % n) { fail("sendrecv transfer " + std::to_string(t.src) + "->" + std::to_string(t.dst) + " is not r -> r+1"); break; }
    for (std::uint32_t r = 0; r < n; ++r)
      if (recv[r] != S) fail("rank " + std::to_string(r) + " receives " + std::to_string(recv[r]) + ", expected " + std::to_string(S));
    return err;
  }
  if (s.op == Op::AllToAll) {
    // Rank r sends block d of its buffer (S/n, the first S % n blocks one byte more) to every d != r: each pair
    // (r, d) carries block_d, so r sends S - block_r and receives (n-1) block_r.
    std::map<std::pair<std::uint32_t, std::uint32_t>, Bytes> pair;
    for (const Transfer& t : s.transfers) pair[{t.src, t.dst}] += t.bytes;
    auto block = [&](std::uint32_t d) { return S / n + (static_cast<Bytes>(d) < S % n ? 1 : 0); };
    for (std::uint32_t r = 0; r < n; ++r)
      for (std::uint32_t d = 0; d < n; ++d) {
        if (r == d) continue;
        const auto it = pair.find({r, d});
        const Bytes got = it == pair.end() ? 0 : it->second;
        if (got != block(d)) fail("alltoall pair " + std::to_string(r) + "->" + std::to_string(d) + " carries " + std::to_string(got) + " bytes, expected " + std::to_string(block(d)));
      }
    return err;
  }
  // Rings and chains: every transfer goes from a position to the next one in ring_order.
  if (s.ring_order.size() != n) { fail("ring schedule without a ring_order of " + std::to_string(n) + " ranks"); return err; }
  std::vector<std::uint32_t> pos(n, 0);
  for (std::uint32_t p = 0; p < n; ++p) pos[s.ring_order[p]] = p;
  for (const Transfer& t : s.transfers)
    if (pos[t.dst] != (pos[t.src] + 1) % n) { fail("transfer " + std::to_string(t.src) + "->" + std::to_string(t.dst) + " does not follow the ring"); break; }
  if (s.op == Op::Broadcast || s.op == Op::Reduce) {
    // Broadcast: each non-root receives S. Reduce: each rank but the chain start (root's ring successor) receives S.
    const std::uint32_t idle = s.op == Op::Broadcast ? s.root : s.ring_order[(pos[s.root] + 1) % n];
    for (std::uint32_t r = 0; r < n; ++r) {
      const Bytes want = r == idle ? 0 : S;
      if (recv[r] != want) fail("rank " + std::to_string(r) + " receives " + std::to_string(recv[r]) + ", expected " + std::to_string(want));
    }
    return err;
  }
  const std::vector<Bytes> block = blocks(s, n);
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t r = s.ring_order[p];
    // allreduce: position p receives every block but p (reduce-scatter) and every block but p+1 (allgather);
    // allgather / reducescatter: every block but its own.
    const Bytes want = s.op == Op::AllReduce ? 2 * S - block[p] - block[(p + 1) % n] : S - block[p];
    if (recv[r] != want) fail("rank " + std::to_string(r) + " receives " + std::to_string(recv[r]) + ", expected " + std::to_string(want));
  }
  return err;
}

}  // namespace vgsim::coll
