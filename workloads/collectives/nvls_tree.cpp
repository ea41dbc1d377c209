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
// The transfers and their dependencies are NvlsTreeStream's arithmetic (nvls_tree_stream.hpp): this file returns the
// header alone (GenOptions::steps: the engine streams the steps, sim/nvls_tree_run) or materializes every transfer in
// index order.
#include "builder.hpp"
#include "vgsim/workloads/collectives/nvls_tree_stream.hpp"

namespace vgsim::coll {

NvlsTreeStream::NvlsTreeStream(const CollectiveSchedule& header) : c_(header.channels), slots_(header.slots) {
  if (!nvls_tree_streamable(header)) throw std::invalid_argument("NvlsTreeStream: not an NVLS Tree allreduce");
  nl_ = header.ranks_per_node;
  if (nl_ == 0 || header.ranks % nl_ != 0 || header.ranks / nl_ < 2 || c_ == 0 || (c_ > 1 && c_ % 2 == 1) || slots_ < 1)
    throw std::invalid_argument("NvlsTreeStream: header without 2 or more nodes, even channels or slots");
  nodes_ = header.ranks / nl_;
  const detail::Partition part(header.size, header.chunk_bytes, static_cast<std::uint64_t>(c_) * nl_);
  loops_ = part.loops;
  chunk_ = part.chunk;
  last_base_ = part.last_base;
  last_extra_ = part.last_extra;
  sq_ = static_cast<std::uint64_t>(nodes_) * nl_ * nl_;
  lin_ = static_cast<std::uint64_t>(nodes_) * nl_;
  net_ = static_cast<std::uint64_t>(nodes_ - 1) * nl_;
  per_ = 2 * (sq_ + lin_ + net_);  // U1, D2: N n_l^2; D1, U2: N n_l; UP, DN: (N-1) n_l
  for (int w = 0; w < 2; ++w) {
    const NodeTree nt = node_tree(nodes_, w);
    Tree& t = trees_[w];
    t.root = static_cast<std::uint32_t>(nt.root);
    t.parent.resize(nodes_);
    t.child_begin.assign(1, 0);
    std::vector<std::uint32_t> depth(nodes_, 0);
    for (std::uint32_t x = 0; x < nodes_; ++x) {
      t.parent[x] = nt.parent[x] < 0 ? kNoNode : static_cast<std::uint32_t>(nt.parent[x]);
      for (int c : nt.children[x]) t.children.push_back(static_cast<std::uint32_t>(c));
      t.child_begin.push_back(static_cast<std::uint32_t>(t.children.size()));
      for (int y = static_cast<int>(x); nt.parent[y] >= 0; y = nt.parent[y]) ++depth[x];
    }
    detail::TreeOrder o = detail::tree_order(depth, t.root);
    t.up_order = std::move(o.up_order);
    t.down_order = std::move(o.down_order);
    t.up_pos = std::move(o.up_pos);
    t.down_pos = std::move(o.down_pos);
  }
}

std::uint64_t NvlsTreeStream::position(const Step& s) const {
  const std::uint64_t xk = static_cast<std::uint64_t>(s.x) * nl_ + s.k;
  switch (s.kind) {
    case kU1:
      return xk * nl_ + s.j;
    case kD1:
      return sq_ + xk;
    case kUp:
      return sq_ + lin_ + static_cast<std::uint64_t>(tree(s.ch).up_pos[s.x]) * nl_ + s.k;
    case kDown:
      return sq_ + lin_ + net_ + static_cast<std::uint64_t>(tree(s.ch).down_pos[s.x]) * nl_ + s.k;
    case kU2:
      return sq_ + lin_ + 2 * net_ + xk;
    default:  // kD2
      return sq_ + 2 * lin_ + 2 * net_ + xk * nl_ + s.j;
  }
}

NvlsTreeStream::Step NvlsTreeStream::at(std::uint32_t l, std::uint32_t ch, std::uint64_t pos) const {
  Step s{l, ch, kU1, 0, 0, 0};
  auto node_shard = [&](std::uint64_t q) {  // q = x n_l + k
    s.x = static_cast<std::uint32_t>(q / nl_);
    s.k = static_cast<std::uint32_t>(q % nl_);
  };
  auto square = [&](std::uint64_t q) {  // q = (x n_l + k) n_l + j
    node_shard(q / nl_);
    s.j = static_cast<std::uint32_t>(q % nl_);
  };
  auto tree_member = [&](std::uint64_t q, const std::vector<std::uint32_t>& order) {  // q = position n_l + k
    s.x = order[q / nl_];
    s.k = static_cast<std::uint32_t>(q % nl_);
  };
  if (pos < sq_) {
    square(pos);
    return s;
  }
  pos -= sq_;
  if (pos < lin_) {
    s.kind = kD1;
    node_shard(pos);
    return s;
  }
  pos -= lin_;
  if (pos < net_) {
    s.kind = kUp;
    tree_member(pos, tree(ch).up_order);
    return s;
  }
  pos -= net_;
  if (pos < net_) {
    s.kind = kDown;
    tree_member(pos, tree(ch).down_order);
    return s;
  }
  pos -= net_;
  if (pos < lin_) {
    s.kind = kU2;
    node_shard(pos);
    return s;
  }
  s.kind = kD2;
  square(pos - lin_);
  return s;
}

std::uint32_t NvlsTreeStream::sender(const Step& s) const {
  switch (s.kind) {
    case kU1:
      return rank(s.x, s.j);
    case kUp:
    case kU2:
      return rank(s.x, s.k);
    case kDown:
      return rank(tree(s.ch).parent[s.x], s.k);
    default:  // kD1, kD2
      return kSwitchRank;
  }
}

std::uint32_t NvlsTreeStream::receiver(const Step& s) const {
  switch (s.kind) {
    case kD1:
    case kDown:
      return rank(s.x, s.k);
    case kUp:
      return rank(tree(s.ch).parent[s.x], s.k);
    case kD2:
      return rank(s.x, s.j);
    default:  // kU1, kU2
      return kSwitchRank;
  }
}

Transfer NvlsTreeStream::transfer(const Step& s) const {
  Transfer t;
  t.src = sender(s);
  t.dst = receiver(s);
  t.channel = s.ch;
  t.step = s.kind;
  t.bytes = bytes(s.l, s.ch, s.k);
  return t;
}

std::vector<NvlsTreeStream::Step> NvlsTreeStream::sources() const {
  std::vector<Step> out;
  out.reserve(static_cast<std::size_t>(c_ * sq_));
  for (std::uint32_t ch = 0; ch < c_; ++ch)
    for (std::uint64_t pos = 0; pos < sq_; ++pos) out.push_back(at(0, ch, pos));
  return out;
}

bool nvls_tree_streamable(const CollectiveSchedule& s) { return s.algo == Algo::NVLSTree && s.op == Op::AllReduce; }

namespace detail {
void materialize_nvls_tree(CollectiveSchedule& s) {
  const NvlsTreeStream ns(s);
  store_stream(s, ns, ns.count() * 3 + static_cast<std::uint64_t>(ns.loops()) * ns.channels() * ns.per() / 2);
}
}  // namespace detail

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
  const detail::Partition part(size, s.chunk_bytes, static_cast<std::uint64_t>(c) * ppn);
  s.loops = part.loops;
  const std::uint64_t per = 2 * (static_cast<std::uint64_t>(N) * ppn * ppn + static_cast<std::uint64_t>(N) * ppn +
                                 static_cast<std::uint64_t>(N - 1) * ppn);
  const bool stream = o.steps == StepStorage::Streamed;
  detail::check_transfers(static_cast<std::uint64_t>(part.loops) * c * per, o, "nvlstree allreduce", !stream);
  if (stream) {  // the engine generates the steps as it runs (sim/nvls_tree_run): memory O(ranks x ranks per node)
    s.streamed = true;
    return s;
  }
  detail::materialize_nvls_tree(s);
  return s;
}

}  // namespace vgsim::coll
