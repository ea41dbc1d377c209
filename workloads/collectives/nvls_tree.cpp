// NVLS Tree allreduce (NCCL_ALGO=NVLSTree, NCCL >= 2.18) of S bytes on N nodes of n_l GPUs behind each node's
// NVSwitch (Hopper or later): NVLS switch legs inside each node (nvls.cpp) and, across nodes, one binary tree per
// local GPU index k between the GPUs k of all nodes (NCCL's tree shape, tree.cpp node_tree). Units: payload bytes.
// Invariant: per GPU r, UP = DOWN = S + block_r; per GPU network bytes = its tree's up + down sends of shard k.
//
// Physics. (1) Per node, NVLS reduce-scatter: for shard k (S/n_l bytes) the switch reads shard k from every local
// GPU j (UP S/n_l each) and delivers the node-partial shard to local GPU k (DOWN S/n_l). (2) Across nodes, GPU k of
// every node exchanges its node-partial shard with the GPUs k of the other nodes over its own network path (its
// nearest NIC: NCCL's NVLS Tree has one tree head per NIC/rail), reducing up the node tree and broadcasting the
// result down it. We follow NCCL's tree shape for every N, 2 included, not a pairwise exchange: NCCL's NVLS Tree
// channels run up/down the channel's tree (NVLSTree latency = intraLat + 2 log2(N) interLat, reference 1.4, counts
// an up and a down hop per tree level); for N = 2 it moves the same bytes as an exchange (the child sends its partial
// shard up, the root sends the sum down: S/n_l per GPU and direction). Channels [0, c/2) use node tree 0 and
// [c/2, c) tree 1 (double binary tree, as tree.cpp). (3) Per node, NVLS multicast allgather: GPU k stores the result
// once (UP S/n_l) and the switch multicasts it (each DOWN S/n_l per shard). Per GPU: UP = DOWN = S(1 + 1/n_l), as in
// NVLS; network per GPU and direction S/n_l for N = 2 (N > 2: S/n_l per tree edge, up + down, <= 3 edges per GPU).
// Uncontended algbw = min(B_nvl / (1 + 1/n_l), n_l x B_net) for N = 2 (B_nvl: a GPU's NVLink rate, B_net: its own
// network path). The communicator gives switch legs NCCL's NVLS efficiency and network legs the protocol's.
//
// Data split: loopSize = channels x n_l x chunk; piece (l, c x n_l + k) of loop l is shard k's chunk on channel c
// (the same on every node). Per (loop, channel), in this order (every dependency points backwards):
//   U1(x, k, j)  GPU (x, j) -> switch (step 0): (x, j)'s part of node x's shard-k reduction;
//   D1(x, k)     switch -> (x, k) (step 1): the node-partial shard, after all U1(x, k, .) (data);
//   UP(y, k)     (y, k) -> (parent(y), k) (step 2), non-root nodes by decreasing depth: after D1(y, k) and every
//                child's UP(., k) (data: the partial sum of y's subtree);
//   DN(y, k)     (parent(y), k) -> (y, k) (step 3), non-root nodes by increasing depth: after the root's D1 and its
//                children's UP (root parent) or the parent's DN (data);
//   U2(x, k)     (x, k) -> switch (step 4): the result's multicast store, after it reached (x, k) (data);
//   D2(x, k, m)  switch -> (x, m) (step 5): the multicast delivery, after U2(x, k) (data).
// Order: each connection's previous loop (FIFO). Buffer: U1 of loop l waits until node x's reducer k has stored
// loop l - slots (U2 sent); U2 needs the whole tree's result, so at most `slots` chunks per shard, node and channel
// are in flight on every leg of the chain, the network legs included.
#include <algorithm>

#include "builder.hpp"

namespace vgsim::coll {

CollectiveSchedule nvls_tree_allreduce(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto,
                                       const GenOptions& o) {
  CollectiveSchedule s;
  detail::check_and_init(s, Op::AllReduce, Algo::NVLSTree, proto, n, ppn, size, o);
  if (proto != Proto::Simple)
    throw std::invalid_argument(std::string("nvlstree allreduce: NCCL runs NVLS Tree with the Simple protocol only, "
                                            "got ") +
                                to_string(proto));
  const std::uint32_t N = n / ppn, c = s.channels;
  if (N < 2)
    throw std::invalid_argument(
        "nvlstree allreduce: needs ranks on 2 or more nodes (NCCL turns NVLS Tree off on one "
        "node; use nvls), got " +
        std::to_string(N));
  if (c > 1 && c % 2 == 1)
    throw std::invalid_argument("nvlstree allreduce: channels must be 1 or even (half per node tree), got " +
                                std::to_string(c));
  const std::uint32_t nl = ppn;
  const detail::Partition part(size, s.chunk_bytes, static_cast<std::uint64_t>(c) * nl);
  s.loops = part.loops;
  struct Layout : detail::TreeOrder {  // one node tree and the order of its up and down sends
    NodeTree t;
  };
  Layout lay[2];
  for (int w = 0; w < 2; ++w) {
    lay[w].t = node_tree(N, w);
    std::vector<std::uint32_t> depth(N, 0);
    for (std::uint32_t x = 0; x < N; ++x)
      for (int y = static_cast<int>(x); lay[w].t.parent[y] >= 0; y = lay[w].t.parent[y]) ++depth[x];
    static_cast<detail::TreeOrder&>(lay[w]) = detail::tree_order(depth, static_cast<std::uint32_t>(lay[w].t.root));
  }
  const std::uint64_t sq = static_cast<std::uint64_t>(N) * nl * nl, lin = static_cast<std::uint64_t>(N) * nl,
                      net = static_cast<std::uint64_t>(N - 1) * nl;
  const std::uint64_t per = 2 * sq + 2 * lin + 2 * net;  // U1, D2: N n_l^2; D1, U2: N n_l; UP, DN: (N-1) n_l
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * c * per;
  detail::check_transfers(total, o, "nvlstree allreduce");
  detail::Appender app(s, total, total * 3 + static_cast<std::uint64_t>(part.loops) * c * sq);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  const std::uint32_t slots = s.slots;
  auto blk = [&](std::uint64_t l, std::uint32_t ch) { return (l * c + ch) * per; };
  auto U1 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t x, std::uint32_t k, std::uint32_t j) {
    return blk(l, ch) + (static_cast<std::uint64_t>(x) * nl + k) * nl + j;
  };
  auto D1 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t x, std::uint32_t k) {
    return blk(l, ch) + sq + static_cast<std::uint64_t>(x) * nl + k;
  };
  auto UP = [&](std::uint64_t l, std::uint32_t ch, const Layout& L, std::uint32_t y, std::uint32_t k) {
    return blk(l, ch) + sq + lin + static_cast<std::uint64_t>(L.up_pos[y]) * nl + k;
  };
  auto DN = [&](std::uint64_t l, std::uint32_t ch, const Layout& L, std::uint32_t y, std::uint32_t k) {
    return blk(l, ch) + sq + lin + net + static_cast<std::uint64_t>(L.down_pos[y]) * nl + k;
  };
  auto U2 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t x, std::uint32_t k) {
    return blk(l, ch) + sq + lin + 2 * net + static_cast<std::uint64_t>(x) * nl + k;
  };
  auto D2 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t x, std::uint32_t k, std::uint32_t m) {
    return blk(l, ch) + sq + 2 * lin + 2 * net + (static_cast<std::uint64_t>(x) * nl + k) * nl + m;
  };
  auto rank = [&](std::uint32_t x, std::uint32_t k) { return x * nl + k; };
  std::vector<std::uint64_t> deps;
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t ch = 0; ch < c; ++ch) {
      const Layout& L = lay[(c == 1 || ch < c / 2) ? 0 : 1];
      const NodeTree& t = L.t;
      auto bytes = [&](std::uint32_t k) { return part.piece(l, std::uint64_t{ch} * nl + k); };
      for (std::uint32_t x = 0; x < N; ++x)
        for (std::uint32_t k = 0; k < nl; ++k)
          for (std::uint32_t j = 0; j < nl; ++j)
            app.add(rank(x, j), kSwitchRank, ch, 0, bytes(k),
                    {l > 0 ? U1(l - 1, ch, x, k, j) : kNone, l >= slots ? U2(l - slots, ch, x, k) : kNone});
      for (std::uint32_t x = 0; x < N; ++x)
        for (std::uint32_t k = 0; k < nl; ++k) {
          deps.clear();
          for (std::uint32_t j = 0; j < nl; ++j) deps.push_back(U1(l, ch, x, k, j));  // the reduction reads all
          if (l > 0) deps.push_back(D1(l - 1, ch, x, k));
          app.add_list(kSwitchRank, rank(x, k), ch, 1, bytes(k), deps);
        }
      for (std::uint32_t y : L.up_order)  // reduce up the node tree
        for (std::uint32_t k = 0; k < nl; ++k) {
          deps.clear();
          deps.push_back(D1(l, ch, y, k));
          for (int cn : t.children[y]) deps.push_back(UP(l, ch, L, static_cast<std::uint32_t>(cn), k));
          if (l > 0) deps.push_back(UP(l - 1, ch, L, y, k));
          app.add_list(rank(y, k), rank(static_cast<std::uint32_t>(t.parent[y]), k), ch, 2, bytes(k), deps);
        }
      // The full result at (x, k): the root's own partial plus its children's subtrees, or the parent's broadcast.
      auto result_deps = [&](std::uint32_t x, std::uint32_t k) {
        if (t.parent[x] >= 0) {
          deps.push_back(DN(l, ch, L, x, k));
          return;
        }
        deps.push_back(D1(l, ch, x, k));
        for (int cn : t.children[x]) deps.push_back(UP(l, ch, L, static_cast<std::uint32_t>(cn), k));
      };
      for (std::uint32_t y : L.down_order)  // broadcast down the node tree
        for (std::uint32_t k = 0; k < nl; ++k) {
          const auto P = static_cast<std::uint32_t>(t.parent[y]);
          deps.clear();
          result_deps(P, k);
          if (l > 0) deps.push_back(DN(l - 1, ch, L, y, k));
          app.add_list(rank(P, k), rank(y, k), ch, 3, bytes(k), deps);
        }
      for (std::uint32_t x = 0; x < N; ++x)
        for (std::uint32_t k = 0; k < nl; ++k) {
          deps.clear();
          result_deps(x, k);
          if (l > 0) deps.push_back(U2(l - 1, ch, x, k));
          app.add_list(rank(x, k), kSwitchRank, ch, 4, bytes(k), deps);
        }
      for (std::uint32_t x = 0; x < N; ++x)
        for (std::uint32_t k = 0; k < nl; ++k)
          for (std::uint32_t m = 0; m < nl; ++m)
            app.add(kSwitchRank, rank(x, m), ch, 5, bytes(k),
                    {U2(l, ch, x, k), l > 0 ? D2(l - 1, ch, x, k, m) : kNone});
    }
  return s;
}

}  // namespace vgsim::coll
