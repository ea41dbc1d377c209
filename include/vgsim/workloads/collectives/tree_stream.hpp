// NCCL's double binary tree allreduce (tree.cpp) as arithmetic instead of stored transfers: the transfer at (loop l,
// channel ch, direction, member rank r), its bytes, its dependencies and its dependents are computed from the
// schedule's header (ranks, ranks_per_node, channels, size, chunk_bytes, slots) and the two rank trees, O(ranks).
// tree.cpp materializes a schedule from these same functions and the engine (sim/tree_run) streams them, so both
// forms have one definition.
// A step's member is the rank that is not the parent: up (reduce) r -> parent(r), down (broadcast) parent(r) -> r.
// Index: (l * channels + ch) * 2(n-1) + position, the up-sends by decreasing depth first, then the down-sends by
// increasing depth of the receiver (a topological order; 64 bits: streamed trees are not bound to 2^32 transfers).
// Dependencies (the generators.hpp rule), with P = parent(r):
//   up U(l, r):   (a) U(l, k) for every child k of r; (b) U(l-1, r); (c) l >= slots: U(l-slots, P) when P is not the
//                 root, else D(l-slots, first child of the root) (the root consumes a chunk by its first down-send);
//   down D(l, r): (a) D(l, P) when P is not the root, else U(l, k) for every child k of the root; (b) D(l-1, r);
//                 (c) l >= slots and r has children: D(l-slots, first child of r).
// Which stage an edge waits for is coll::dependency_kind on the two transfers (data: delivery; else: sent).
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

class TreeStream {
 public:
  enum Dir : std::uint32_t { kUp = 0, kDown = 1 };
  struct Step {
    std::uint32_t l = 0, ch = 0, dir = kUp, r = 0;  // loop, channel, direction, member rank
  };
  // Bound on a step's dependencies or dependents, above what any tree here needs: a rank has at most three
  // children (its chain successor and two node children).
  static constexpr std::uint32_t kMaxEdges = 8;

  // `header`: a tree allreduce schedule (its transfers are not read).
  explicit TreeStream(const CollectiveSchedule& header);

  std::uint32_t ranks() const { return n_; }
  std::uint32_t channels() const { return c_; }
  std::uint32_t loops() const { return loops_; }
  std::uint32_t slots() const { return slots_; }
  std::uint64_t count() const { return n_ <= 1 ? 0 : static_cast<std::uint64_t>(loops_) * c_ * per_; }
  std::uint64_t index(const Step& s) const {
    const Node& x = tree(s.ch).nodes[s.r];
    const std::uint64_t pos = s.dir == kUp ? x.up_pos : (n_ - 1) + x.down_pos;
    return (static_cast<std::uint64_t>(s.l) * c_ + s.ch) * per_ + pos;
  }
  Step step(std::uint64_t index) const;
  // Parent of member r in channel ch's tree (r is never the root of it).
  std::uint32_t parent(std::uint32_t ch, std::uint32_t r) const { return tree(ch).nodes[r].parent; }
  bool is_root(std::uint32_t ch, std::uint32_t r) const { return tree(ch).root == r; }
  // The rank that sends step s (up: the member; down: its parent) and the one that receives it.
  std::uint32_t sender(const Step& s) const { return s.dir == kUp ? s.r : parent(s.ch, s.r); }
  std::uint32_t receiver(const Step& s) const { return s.dir == kUp ? parent(s.ch, s.r) : s.r; }
  Bytes bytes(std::uint32_t l, std::uint32_t ch) const;
  // The transfer of step s without its dependency fields.
  Transfer transfer(const Step& s) const;
  // Calls f(dependency, data) for each dependency of s (data: the edge waits for delivery, dependency_kind's Data)
  // until f returns false; returns whether every call returned true. Inline: the engine's readiness test.
  template <class F>
  bool each_dependency(const Step& s, F&& f) const;
  // Calls f(dependent) for each step that depends on s through an edge of the given stage (delivered: a data edge,
  // else a sent edge), in no particular order: the inverse of each_dependency. Inline: the engine's release.
  template <class F>
  void each_dependent(const Step& s, bool delivered, F&& f) const;
  // The steps without a dependency (the leaves' first up-sends), in index order.
  std::vector<Step> sources() const;

 private:
  // What the arithmetic reads of a rank, in one record (the engine looks ranks up at every event).
  struct Node {
    std::uint32_t parent = 0;                // kNoRank at the root
    std::uint32_t up_pos = 0, down_pos = 0;  // positions among the up-sends and the down-sends of a (loop, channel)
    std::uint32_t child_begin = 0, child_count = 0;  // children[child_begin, + child_count), ascending as rank_tree's
  };
  struct Tree {
    std::vector<Node> nodes;                          // per rank
    std::vector<std::uint32_t> children;              // CSR (Node::child_begin)
    std::vector<std::uint32_t> up_order, down_order;  // members in index order
    std::uint32_t root = 0, root_first = 0;           // the root and its first child (n > 1)
  };
  static constexpr std::uint32_t kNoRank = ~0u;
  const Tree& tree(std::uint32_t ch) const { return trees_[(c_ == 1 || ch < c_ / 2) ? 0 : 1]; }
  const std::uint32_t* children(const Tree& t, const Node& x) const { return t.children.data() + x.child_begin; }

  std::uint32_t n_ = 0, c_ = 1, slots_ = 2, loops_ = 1;
  std::uint64_t per_ = 0;  // 2(n-1) transfers per (loop, channel)
  Tree trees_[2];
  // The byte partition (builder.hpp Partition, one piece per channel and loop).
  Bytes chunk_ = 0, last_base_ = 0;
  std::uint64_t last_extra_ = 0;
};

template <class F>
bool TreeStream::each_dependency(const Step& s, F&& f) const {
  const Tree& t = tree(s.ch);
  const Node& x = t.nodes[s.r];
  const std::uint32_t* const kids = children(t, x);
  if (s.dir == kUp) {
    for (std::uint32_t i = 0; i < x.child_count; ++i)  // (a) data: the children's partial sums arrive at r
      if (!f(Step{s.l, s.ch, kUp, kids[i]}, true)) return false;
    if (s.l > 0 && !f(Step{s.l - 1, s.ch, kUp, s.r}, false)) return false;  // (b)
    if (s.l >= slots_) {  // (c): data only when r is the root's first child (it received chunk l - slots itself)
      if (x.parent != t.root) return f(Step{s.l - slots_, s.ch, kUp, x.parent}, false);
      return f(Step{s.l - slots_, s.ch, kDown, t.root_first}, t.root_first == s.r);
    }
    return true;
  }
  if (x.parent != t.root) {  // (a) data: what the parent received
    if (!f(Step{s.l, s.ch, kDown, x.parent}, true)) return false;
  } else {  // (a) data: the root's children's sums
    const Node& root = t.nodes[t.root];
    const std::uint32_t* const top = children(t, root);
    for (std::uint32_t i = 0; i < root.child_count; ++i)
      if (!f(Step{s.l, s.ch, kUp, top[i]}, true)) return false;
  }
  if (s.l > 0 && !f(Step{s.l - 1, s.ch, kDown, s.r}, false)) return false;                            // (b)
  if (s.l >= slots_ && x.child_count > 0) return f(Step{s.l - slots_, s.ch, kDown, kids[0]}, false);  // (c)
  return true;
}

template <class F>
void TreeStream::each_dependent(const Step& s, bool delivered, F&& f) const {
  // The reverse of each_dependency; which stage each edge waits for follows dependency_kind (data: the dependency's
  // receiver is the dependent's sender), worked out per edge in tree_stream.hpp's notation:
  const Tree& t = tree(s.ch);
  const Node& x = t.nodes[s.r];
  const std::uint32_t* const kids = children(t, x);
  const bool later = s.l + 1 < loops_, slotted = static_cast<std::uint64_t>(s.l) + slots_ < loops_;
  auto add = [&](std::uint32_t l, std::uint32_t dir, std::uint32_t r) { f(Step{l, s.ch, dir, r}); };
  auto root_children = [&](std::uint32_t l, std::uint32_t dir, std::uint32_t skip) {
    const Node& root = t.nodes[t.root];
    const std::uint32_t* const top = children(t, root);
    for (std::uint32_t i = 0; i < root.child_count; ++i)
      if (top[i] != skip) add(l, dir, top[i]);
  };
  if (s.dir == kUp) {
    if (delivered) {  // (a): the parent's up-send reduces it; at the root every down-send needs all children
      if (x.parent != t.root)
        add(s.l, kUp, x.parent);
      else
        root_children(s.l, kDown, kNoRank);
      return;
    }
    if (later) add(s.l + 1, kUp, s.r);  // (b)
    if (slotted)                        // (c): r's children wait for r to forward chunk l (r is not the root)
      for (std::uint32_t i = 0; i < x.child_count; ++i) add(s.l + slots_, kUp, kids[i]);
    return;
  }
  const bool root_first_edge = s.r == t.root_first;  // the root consumed chunk l
  if (delivered) {
    for (std::uint32_t i = 0; i < x.child_count; ++i) add(s.l, kDown, kids[i]);  // (a)
    if (root_first_edge && slotted) add(s.l + slots_, kUp, s.r);  // (c), read by the receiver that sends it on
    return;
  }
  if (later) add(s.l + 1, kDown, s.r);  // (b)
  if (slotted) {                        // (c)
    if (x.parent != t.root && s.r == t.children[t.nodes[x.parent].child_begin]) add(s.l + slots_, kDown, x.parent);
    if (root_first_edge) root_children(s.l + slots_, kUp, s.r);
  }
}

// True when `s` is a tree the stream describes (allreduce on Algo::Tree).
bool tree_streamable(const CollectiveSchedule& s);

}  // namespace vgsim::coll
