// NCCL's NVLS Tree allreduce (nvls_tree.cpp) as arithmetic instead of stored transfers: the transfer at (loop l,
// channel ch, kind, node x, local index k, third index j), its bytes, dependencies and dependents are computed from
// the schedule's header and the two node trees, O(nodes). nvls_tree.cpp materializes a schedule from these functions
// and the engine (sim/nvls_tree_run) streams them, so both forms have one definition.
// Kinds (nvls_tree.cpp's physics), with rank(x, k) = x n_l + k and SW the node's NVSwitch:
//   U1 (x, k, j): rank(x, j) -> SW, j's part of shard k;      D1 (x, k): SW -> rank(x, k), the node-partial shard;
//   UP (y, k): rank(y, k) -> rank(parent(y), k), y not root;  DN (y, k): rank(parent(y), k) -> rank(y, k);
//   U2 (x, k): rank(x, k) -> SW, the result's store;          D2 (x, k, j): SW -> rank(x, j), its multicast.
// A step's `x` is the node it belongs to (UP/DN: the member y, never the root), `k` the shard, `j` the third index
// (U1: the sending GPU, D2: the receiving GPU; 0 for the others).
// Index: (l * channels + ch) * per + position; per (loop, channel) the U1 by (x, k, j), the D1 by (x, k), the UP by
// the up order (decreasing depth) then k, the DN by the down order (increasing depth) then k, the U2 by (x, k), the
// D2 by (x, k, j): every dependency points backwards. A connection (one cursor in the engine) is (ch, position):
// its steps are the loops, and each waits for the previous loop's send (dependency (b)).
// Dependencies (nvls_tree.cpp's list; data = the edge waits for delivery, dependency_kind's Data), P = parent(y):
//   U1(l, x, k, j): U1(l-1, x, k, j); U2(l-slots, x, k) (the reducer's buffer).
//   D1(l, x, k):    data U1(l, x, k, j) for every j; D1(l-1, x, k).
//   UP(l, y, k):    data D1(l, y, k); data UP(l, c, k) for each child c of y; UP(l-1, y, k).
//   DN(l, y, k):    data result(P); DN(l-1, y, k).      U2(l, x, k): data result(x); U2(l-1, x, k).
//   D2(l, x, k, j): data U2(l, x, k); D2(l-1, x, k, j).
// where result(x) is DN(l, x, k) for a non-root x, and D1(l, x, k) plus UP(l, c, k) for each child c of the root.
#pragma once

#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

class NvlsTreeStream {
 public:
  enum Kind : std::uint32_t { kU1 = 0, kD1 = 1, kUp = 2, kDown = 3, kU2 = 4, kD2 = 5 };  // = Transfer::step
  struct Step {
    std::uint32_t l = 0, ch = 0, kind = kU1, x = 0, k = 0, j = 0;
  };

  // `header`: an NVLS Tree allreduce schedule (its transfers are not read).
  explicit NvlsTreeStream(const CollectiveSchedule& header);

  std::uint32_t channels() const { return c_; }
  std::uint32_t loops() const { return loops_; }
  std::uint64_t per() const { return per_; }  // transfers (connections) per (loop, channel)
  std::uint64_t count() const { return static_cast<std::uint64_t>(loops_) * c_ * per_; }
  // Bound on a step's dependencies or dependents: n_l (a reduction's inputs, a multicast's outputs) plus the few
  // others (a node tree's two children, order and buffer).
  std::uint32_t max_edges() const { return nl_ + 4; }

  std::uint64_t position(const Step& s) const;
  std::uint64_t index(const Step& s) const {
    return (static_cast<std::uint64_t>(s.l) * c_ + s.ch) * per_ + position(s);
  }
  Step at(std::uint32_t l, std::uint32_t ch, std::uint64_t position) const;
  Step step(std::uint64_t index) const {
    const std::uint64_t rest = index / per_;
    return at(static_cast<std::uint32_t>(rest / c_), static_cast<std::uint32_t>(rest % c_), index % per_);
  }
  // Ranks of a step's two ends (kSwitchRank for the node's NVSwitch).
  std::uint32_t sender(const Step& s) const;
  std::uint32_t receiver(const Step& s) const;
  // The GPU rank whose NVSwitch leg a switch step uses (the end that is not the switch).
  std::uint32_t gpu(const Step& s) const { return sender(s) == kSwitchRank ? receiver(s) : sender(s); }
  static bool switch_leg(const Step& s) { return s.kind == kU1 || s.kind == kD1 || s.kind == kU2 || s.kind == kD2; }
  // Payload of shard k's piece in loop l on channel ch (the builder's Partition: loops x channels x n_l pieces).
  Bytes bytes(std::uint32_t l, std::uint32_t ch, std::uint32_t k) const {
    if (l + 1 < loops_) return chunk_;
    return last_base_ + (static_cast<std::uint64_t>(ch) * nl_ + k < last_extra_ ? 1 : 0);
  }
  // The transfer of step s without its dependency fields.
  Transfer transfer(const Step& s) const;
  // Calls f(dependency, data) for each dependency of s until f returns false; returns whether every call returned
  // true. Inline: the engine's readiness test.
  template <class F>
  bool each_dependency(const Step& s, F&& f) const;
  // Calls f(dependent) for each step that depends on s through an edge of the given stage (delivered: a data edge,
  // else a sent edge), in no particular order: the inverse of each_dependency.
  template <class F>
  void each_dependent(const Step& s, bool delivered, F&& f) const;
  // The steps without a dependency (loop 0's U1), in index order.
  std::vector<Step> sources() const;

 private:
  static constexpr std::uint32_t kNoNode = ~0u;
  struct Tree {
    std::vector<std::uint32_t> parent;       // per node; kNoNode at the root
    std::vector<std::uint32_t> child_begin;  // CSR into children, nodes + 1 entries, ascending children
    std::vector<std::uint32_t> children;
    std::vector<std::uint32_t> up_order, down_order;  // non-root nodes in index order
    std::vector<std::uint32_t> up_pos, down_pos;      // per node: position in those orders
    std::uint32_t root = 0;
  };
  const Tree& tree(std::uint32_t ch) const { return trees_[(c_ == 1 || ch < c_ / 2) ? 0 : 1]; }
  std::uint32_t rank(std::uint32_t x, std::uint32_t k) const { return x * nl_ + k; }
  // Calls f(dependency) for each part of the full result at (x, k) in loop l (result(x) above).
  template <class F>
  bool each_result(const Tree& t, const Step& s, std::uint32_t x, F&& f) const;
  // Calls f(dependent) for each step that reads the full result at (x, k) of loop l (the inverse of result(x)).
  template <class F>
  void each_result_reader(const Tree& t, const Step& s, std::uint32_t x, F&& f) const;

  std::uint32_t nodes_ = 0, nl_ = 0, c_ = 1, slots_ = 2, loops_ = 1;
  std::uint64_t sq_ = 0, lin_ = 0, net_ = 0, per_ = 0;  // N n_l^2, N n_l, (N-1) n_l; per = 2 (sq + lin + net)
  Tree trees_[2];
  Bytes chunk_ = 0, last_base_ = 0;
  std::uint64_t last_extra_ = 0;
};

template <class F>
bool NvlsTreeStream::each_result(const Tree& t, const Step& s, std::uint32_t x, F&& f) const {
  if (t.parent[x] != kNoNode) return f(Step{s.l, s.ch, kDown, x, s.k, 0}, true);
  if (!f(Step{s.l, s.ch, kD1, x, s.k, 0}, true)) return false;
  for (std::uint32_t i = t.child_begin[x]; i < t.child_begin[x + 1]; ++i)
    if (!f(Step{s.l, s.ch, kUp, t.children[i], s.k, 0}, true)) return false;
  return true;
}

template <class F>
void NvlsTreeStream::each_result_reader(const Tree& t, const Step& s, std::uint32_t x, F&& f) const {
  for (std::uint32_t i = t.child_begin[x]; i < t.child_begin[x + 1]; ++i)
    f(Step{s.l, s.ch, kDown, t.children[i], s.k, 0});
  f(Step{s.l, s.ch, kU2, x, s.k, 0});
}

template <class F>
bool NvlsTreeStream::each_dependency(const Step& s, F&& f) const {
  const Tree& t = tree(s.ch);
  const bool prev = s.l > 0;
  auto same_prev = [&] { return !prev || f(Step{s.l - 1, s.ch, s.kind, s.x, s.k, s.j}, false); };  // (b)
  switch (s.kind) {
    case kU1:
      if (!same_prev()) return false;
      return s.l < slots_ || f(Step{s.l - slots_, s.ch, kU2, s.x, s.k, 0}, false);
    case kD1:
      for (std::uint32_t j = 0; j < nl_; ++j)
        if (!f(Step{s.l, s.ch, kU1, s.x, s.k, j}, true)) return false;
      return same_prev();
    case kUp:
      if (!f(Step{s.l, s.ch, kD1, s.x, s.k, 0}, true)) return false;
      for (std::uint32_t i = t.child_begin[s.x]; i < t.child_begin[s.x + 1]; ++i)
        if (!f(Step{s.l, s.ch, kUp, t.children[i], s.k, 0}, true)) return false;
      return same_prev();
    case kDown:
      return each_result(t, s, t.parent[s.x], f) && same_prev();
    case kU2:
      return each_result(t, s, s.x, f) && same_prev();
    default:  // kD2
      return f(Step{s.l, s.ch, kU2, s.x, s.k, 0}, true) && same_prev();
  }
}

template <class F>
void NvlsTreeStream::each_dependent(const Step& s, bool delivered, F&& f) const {
  const Tree& t = tree(s.ch);
  if (!delivered) {  // (b), and U2's buffer edge (c)
    if (s.l + 1 < loops_) f(Step{s.l + 1, s.ch, s.kind, s.x, s.k, s.j});
    if (s.kind == kU2 && static_cast<std::uint64_t>(s.l) + slots_ < loops_)
      for (std::uint32_t j = 0; j < nl_; ++j) f(Step{s.l + slots_, s.ch, kU1, s.x, s.k, j});
    return;
  }
  switch (s.kind) {
    case kU1:
      f(Step{s.l, s.ch, kD1, s.x, s.k, 0});
      return;
    case kD1:  // a non-root node sends its partial up; at the root it is part of the result
      if (t.parent[s.x] != kNoNode)
        f(Step{s.l, s.ch, kUp, s.x, s.k, 0});
      else
        each_result_reader(t, s, s.x, f);
      return;
    case kUp: {
      const std::uint32_t p = t.parent[s.x];
      if (t.parent[p] != kNoNode)
        f(Step{s.l, s.ch, kUp, p, s.k, 0});
      else
        each_result_reader(t, s, p, f);
      return;
    }
    case kDown:
      each_result_reader(t, s, s.x, f);
      return;
    case kU2:
      for (std::uint32_t j = 0; j < nl_; ++j) f(Step{s.l, s.ch, kD2, s.x, s.k, j});
      return;
    default:  // kD2: the result is home
      return;
  }
}

// True when `s` is an NVLS Tree allreduce (the only schedule the stream describes).
bool nvls_tree_streamable(const CollectiveSchedule& s);

}  // namespace vgsim::coll
