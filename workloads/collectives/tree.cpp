// NCCL's double binary tree allreduce: node-level binary trees from trees.cc (ncclGetBtree / ncclGetDtree), a chain
// through each node's GPUs, reduce up then broadcast down, pipelined in chunks. Channels [0, c/2) use tree 0 and
// [c/2, c) tree 1 (NCCL's connectTrees duplicates the channels, one copy per tree); c = 1 uses tree 0 only.
// Layout per (loop, channel): the n-1 up-sends by decreasing depth, then the n-1 down-sends by increasing depth of
// the receiver, so every dependency (generators.hpp rule) points backwards.
#include <algorithm>
#include <numeric>

#include "builder.hpp"

namespace vgsim::coll {

namespace {
// ncclGetBtree (trees.cc): rank 0 is the root with one child; others hang below their lowest set bit.
void btree(int nranks, int rank, int& up, int& d0, int& d1) {
  int bit = 1;
  for (bit = 1; bit < nranks; bit <<= 1)
    if (bit & rank) break;
  if (rank == 0) {
    up = -1;
    d0 = -1;
    d1 = nranks > 1 ? bit >> 1 : -1;
    return;
  }
  up = (rank ^ bit) | (bit << 1);
  if (up >= nranks) up = rank ^ bit;
  int lowbit = bit >> 1;
  d0 = lowbit == 0 ? -1 : rank - lowbit;
  d1 = lowbit == 0 ? -1 : rank + lowbit;
  while (d1 >= nranks) {
    d1 = lowbit == 0 ? -1 : rank + lowbit;
    lowbit >>= 1;
  }
}
}  // namespace

NodeTree node_tree(std::uint32_t nodes, int which) {
  const int n = static_cast<int>(nodes);
  NodeTree t;
  t.parent.assign(nodes, -1);
  t.children.assign(nodes, {});
  for (int x = 0; x < n; ++x) {
    int u, d0, d1;
    if (which == 0) {
      btree(n, x, u, d0, d1);
    } else if (n % 2 == 1) {  // shift by one
      btree(n, (x - 1 + n) % n, u, d0, d1);
      u = u == -1 ? -1 : (u + 1) % n;
      d0 = d0 == -1 ? -1 : (d0 + 1) % n;
      d1 = d1 == -1 ? -1 : (d1 + 1) % n;
    } else {  // mirror
      btree(n, n - 1 - x, u, d0, d1);
      u = u == -1 ? -1 : n - 1 - u;
      d0 = d0 == -1 ? -1 : n - 1 - d0;
      d1 = d1 == -1 ? -1 : n - 1 - d1;
    }
    t.parent[x] = u;
    if (u == -1) t.root = x;
    for (int d : {d0, d1})
      if (d != -1) t.children[x].push_back(d);
    std::sort(t.children[x].begin(), t.children[x].end());
  }
  return t;
}

RankTree rank_tree(std::uint32_t ranks, std::uint32_t ppn, int which) {
  const std::uint32_t nodes = ranks / ppn;
  const NodeTree nt = node_tree(nodes, which);
  auto chain_rank = [&](std::uint32_t node, std::uint32_t i) {  // i-th GPU along the chain of `node`
    return node * ppn + i;
  };
  RankTree t;
  t.parent.assign(ranks, -1);
  t.children.assign(ranks, {});
  t.depth.assign(ranks, 0);
  for (std::uint32_t node = 0; node < nodes; ++node) {
    for (std::uint32_t i = 1; i < ppn; ++i) {
      t.parent[chain_rank(node, i)] = static_cast<int>(chain_rank(node, i - 1));
      t.children[chain_rank(node, i - 1)].push_back(chain_rank(node, i));
    }
    const std::uint32_t head = chain_rank(node, 0);
    if (nt.parent[node] >= 0)
      t.parent[head] = static_cast<int>(chain_rank(static_cast<std::uint32_t>(nt.parent[node]), 0));
    for (int cn : nt.children[node]) t.children[head].push_back(chain_rank(static_cast<std::uint32_t>(cn), 0));
  }
  t.root = chain_rank(static_cast<std::uint32_t>(nt.root), 0);
  // depths by a walk from the root (children lists are acyclic by construction)
  std::vector<std::uint32_t> stack{t.root};
  while (!stack.empty()) {
    const std::uint32_t r = stack.back();
    stack.pop_back();
    for (auto ch : t.children[r]) {
      t.depth[ch] = t.depth[r] + 1;
      stack.push_back(ch);
    }
  }
  return t;
}

CollectiveSchedule tree_allreduce(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  CollectiveSchedule s;
  detail::check_and_init(s, Op::AllReduce, Algo::Tree, proto, n, ppn, size, o);
  const std::uint32_t c = s.channels;
  if (c > 1 && c % 2 == 1)
    throw std::invalid_argument("tree allreduce: channels must be 1 or even (half per tree), got " + std::to_string(c));
  const detail::Partition part(size, s.chunk_bytes, c);
  s.loops = part.loops;
  if (n <= 1) return s;
  struct Layout : detail::TreeOrder {
    RankTree t;
  };
  Layout lay[2];
  for (int w = 0; w < 2; ++w) {
    lay[w].t = rank_tree(n, ppn, w);
    static_cast<detail::TreeOrder&>(lay[w]) = detail::tree_order(lay[w].t.depth, lay[w].t.root);
  }
  const std::uint64_t per = 2ull * (n - 1);
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * c * per;
  detail::check_transfers(total, o, "tree allreduce");
  detail::Appender app(s, total, total * 4);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  const std::uint32_t slots = s.slots;
  std::vector<std::uint64_t> deps;
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t ch = 0; ch < c; ++ch) {
      const Layout& L = lay[(c == 1 || ch < c / 2) ? 0 : 1];
      const RankTree& t = L.t;
      auto U = [&](std::uint64_t loop, std::uint32_t r) { return (loop * c + ch) * per + L.up_pos[r]; };
      auto D = [&](std::uint64_t loop, std::uint32_t r) { return (loop * c + ch) * per + (n - 1) + L.down_pos[r]; };
      const Bytes bytes = part.piece(l, ch);
      for (std::uint32_t r : L.up_order) {  // reduce: r -> parent
        const auto P = static_cast<std::uint32_t>(t.parent[r]);
        deps.clear();
        for (auto k : t.children[r]) deps.push_back(U(l, k));  // (a) all children's partial sums
        if (l > 0) deps.push_back(U(l - 1, r));                // (b)
        if (l >= slots)                                        // (c) parent consumed chunk l-slots
          deps.push_back(P != t.root ? U(l - slots, P) : D(l - slots, t.children[t.root][0]));
        app.add_list(r, P, ch, 0, bytes, deps);
      }
      for (std::uint32_t r : L.down_order) {  // broadcast: parent -> r
        const auto P = static_cast<std::uint32_t>(t.parent[r]);
        deps.clear();
        if (P == t.root)
          for (auto k : t.children[t.root]) deps.push_back(U(l, k));  // (a) the root's reduction is complete
        else
          deps.push_back(D(l, P));               // (a) P received the result
        if (l > 0) deps.push_back(D(l - 1, r));  // (b)
        if (l >= slots && !t.children[r].empty()) deps.push_back(D(l - slots, t.children[r][0]));  // (c)
        app.add_list(P, r, ch, 1, bytes, deps);
      }
    }
  (void)kNone;
  return s;
}

}  // namespace vgsim::coll
