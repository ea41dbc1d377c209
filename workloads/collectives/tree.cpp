// NCCL's double binary tree allreduce: node-level binary trees from trees.cc (ncclGetBtree / ncclGetDtree), a chain
// through each node's GPUs, reduce up then broadcast down, pipelined in chunks. Channels [0, c/2) use tree 0 and
// [c/2, c) tree 1 (NCCL's connectTrees duplicates the channels, one copy per tree); c = 1 uses tree 0 only.
// Layout per (loop, channel): the n-1 up-sends by decreasing depth, then the n-1 down-sends by increasing depth of
// the receiver, so every dependency (generators.hpp rule) points backwards. The transfers and their dependencies
// are TreeStream's arithmetic (tree_stream.hpp): this file returns the header alone (GenOptions::steps: the
// engine streams the steps) or materializes every transfer in index order.
#include <algorithm>
#include <numeric>

#include "builder.hpp"
#include "vgsim/workloads/collectives/tree_stream.hpp"

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

TreeStream::TreeStream(const CollectiveSchedule& header) : n_(header.ranks), c_(header.channels), slots_(header.slots) {
  if (!tree_streamable(header)) throw std::invalid_argument("TreeStream: not a tree allreduce");
  if (n_ == 0 || c_ == 0 || header.ranks_per_node == 0 || n_ % header.ranks_per_node != 0 || slots_ < 2)
    throw std::invalid_argument("TreeStream: header without ranks, ranks per node, channels or slots");
  const detail::Partition part(header.size, header.chunk_bytes, c_);
  loops_ = part.loops;
  chunk_ = part.chunk;
  last_base_ = part.last_base;
  last_extra_ = part.last_extra;
  per_ = 2ull * (n_ - 1);
  for (int w = 0; w < 2; ++w) {
    const RankTree t = rank_tree(n_, header.ranks_per_node, w);
    detail::TreeOrder o = detail::tree_order(t.depth, t.root);
    Tree& x = trees_[w];
    x.root = t.root;
    x.nodes.resize(n_);
    for (std::uint32_t r = 0; r < n_; ++r) {
      Node& node = x.nodes[r];
      node.parent = t.parent[r] < 0 ? kNoRank : static_cast<std::uint32_t>(t.parent[r]);
      node.up_pos = o.up_pos[r];
      node.down_pos = o.down_pos[r];
      node.child_begin = static_cast<std::uint32_t>(x.children.size());
      node.child_count = static_cast<std::uint32_t>(t.children[r].size());
      x.children.insert(x.children.end(), t.children[r].begin(), t.children[r].end());
    }
    x.root_first = n_ > 1 ? x.children[x.nodes[x.root].child_begin] : kNoRank;
    x.up_order = std::move(o.up_order);
    x.down_order = std::move(o.down_order);
  }
}

TreeStream::Step TreeStream::step(std::uint64_t index) const {
  const std::uint64_t rest = index / per_, pos = index % per_;
  Step s;
  s.ch = static_cast<std::uint32_t>(rest % c_);
  s.l = static_cast<std::uint32_t>(rest / c_);
  const Tree& t = tree(s.ch);
  s.dir = pos < n_ - 1 ? kUp : kDown;
  s.r = s.dir == kUp ? t.up_order[pos] : t.down_order[pos - (n_ - 1)];
  return s;
}

Bytes TreeStream::bytes(std::uint32_t l, std::uint32_t ch) const {
  if (l + 1 < loops_) return chunk_;
  return last_base_ + (ch < last_extra_ ? 1 : 0);
}

Transfer TreeStream::transfer(const Step& s) const {
  Transfer x;
  x.src = sender(s);
  x.dst = receiver(s);
  x.channel = s.ch;
  x.step = s.dir;
  x.bytes = bytes(s.l, s.ch);
  return x;
}

std::vector<TreeStream::Step> TreeStream::sources() const {
  std::vector<Step> out;
  if (count() == 0) return out;
  for (std::uint32_t ch = 0; ch < c_; ++ch) {
    const Tree& t = tree(ch);
    for (std::uint32_t r : t.up_order)
      if (t.nodes[r].child_count == 0) out.push_back(Step{0, ch, kUp, r});
  }
  return out;
}

bool tree_streamable(const CollectiveSchedule& s) { return s.algo == Algo::Tree && s.op == Op::AllReduce; }

namespace detail {
void materialize_tree(CollectiveSchedule& s) {
  const TreeStream ts(s);
  store_stream(s, ts, ts.count() * 4);
}
}  // namespace detail

CollectiveSchedule tree_allreduce(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  CollectiveSchedule s;
  detail::check_and_init(s, Op::AllReduce, Algo::Tree, proto, n, ppn, size, o);
  const std::uint32_t c = s.channels;
  if (c > 1 && c % 2 == 1)
    throw std::invalid_argument("tree allreduce: channels must be 1 or even (half per tree), got " + std::to_string(c));
  const detail::Partition part(size, s.chunk_bytes, c);
  s.loops = part.loops;
  if (n <= 1) return s;
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * c * 2ull * (n - 1);
  const bool stream = o.steps == StepStorage::Streamed;
  detail::check_transfers(total, o, "tree allreduce", !stream);
  if (stream) {  // the engine generates the steps as it runs (sim/tree_run): memory O(ranks x channels)
    s.streamed = true;
    return s;
  }
  detail::materialize_tree(s);
  return s;
}

}  // namespace vgsim::coll
