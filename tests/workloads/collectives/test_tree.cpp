// Double binary tree: node-tree shapes (NCCL trees.cc), complementarity, rank-level chains, tree allreduce
// schedule accounting and the dependency rule.
#include <catch2/catch.hpp>
#include <set>
#include <utility>

#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/tree_stream.hpp"
#include "vgsim/workloads/collectives/validate.hpp"

using namespace vgsim;
using namespace vgsim::coll;

TEST_CASE("node trees: binary, connected, single root") {
  for (std::uint32_t N = 1; N <= 33; ++N)
    for (int w = 0; w < 2; ++w) {
      const NodeTree t = node_tree(N, w);
      int roots = 0;
      for (std::uint32_t x = 0; x < N; ++x) {
        CHECK(t.children[x].size() <= 2u);
        if (t.parent[x] < 0) ++roots;
        for (int c : t.children[x]) CHECK(t.parent[c] == static_cast<int>(x));
        // walking up reaches the root in < N steps (no cycle)
        int y = static_cast<int>(x), steps = 0;
        while (t.parent[y] >= 0 && steps <= static_cast<int>(N)) {
          y = t.parent[y];
          ++steps;
        }
        CHECK(y == t.root);
      }
      CHECK(roots == 1);
    }
}

TEST_CASE("NCCL btree on 8 nodes and its mirror") {
  // ncclGetBtree(8): 0 -> 4; 4 -> {2, 6}; 2 -> {1, 3}; 6 -> {5, 7}.
  const NodeTree t0 = node_tree(8, 0);
  CHECK(t0.root == 0);
  CHECK(t0.children[0] == std::vector<int>{4});
  CHECK(t0.children[4] == std::vector<int>{2, 6});
  CHECK(t0.children[2] == std::vector<int>{1, 3});
  CHECK(t0.children[6] == std::vector<int>{5, 7});
  // mirror (x -> 7 - x): root 7 -> 3; 3 -> {1, 5}; ...
  const NodeTree t1 = node_tree(8, 1);
  CHECK(t1.root == 7);
  CHECK(t1.children[7] == std::vector<int>{3});
  CHECK(t1.children[3] == std::vector<int>{1, 5});
}

TEST_CASE("the two trees are complementary for power-of-two node counts") {
  // A node that is interior (has children) in one tree is a leaf in the other.
  for (std::uint32_t N : {2u, 4u, 8u, 16u, 32u, 64u}) {
    const NodeTree a = node_tree(N, 0), b = node_tree(N, 1);
    for (std::uint32_t x = 0; x < N; ++x)
      if (!a.children[x].empty()) CHECK(b.children[x].empty());
  }
}

TEST_CASE("rank trees chain the GPUs of a node") {
  // 2 nodes x 4 GPUs. Tree 0: node 0 root, chain 0-1-2-3, node 1 head rank 4 under rank 0, chain 4-5-6-7.
  const RankTree t = rank_tree(8, 4, 0);
  CHECK(t.root == 0u);
  CHECK(t.parent[1] == 0);
  CHECK(t.parent[3] == 2);
  CHECK(t.parent[4] == 0);
  CHECK(t.children[0] == std::vector<std::uint32_t>{1, 4});  // intra child first, then node children
  CHECK(t.depth[7] == 4u);                                   // 0 -> 4 -> 5 -> 6 -> 7
  // Tree 1 keeps the same chain (head local 0); mirror of 2 nodes: node 1 is the root, its head rank 4 the tree root,
  // node 0's head rank 0 hangs below it.
  const RankTree u = rank_tree(8, 4, 1);
  CHECK(u.root == 4u);
  CHECK(u.parent[5] == 4);
  CHECK(u.parent[0] == 4);
  CHECK(u.parent[3] == 2);
}

TEST_CASE("tree allreduce: 2(n-1) transfers per chunk and channel, every rank gets all S bytes") {
  const std::uint32_t n = 16, ppn = 4, c = 2;
  GenOptions o;
  o.channels = c;
  const Bytes S = 5 * MiB + 11;  // loops = ceil(S / (c * 512 KiB)) = 6
  auto s = tree_allreduce(n, ppn, S, Proto::Simple, o);
  CHECK(s.loops == 6u);
  CHECK(s.transfers.size() == std::size_t{6 * c * 2 * (n - 1)});
  CHECK(validate(s).empty());
  Bytes total = 0;
  for (const auto& t : s.transfers) total += t.bytes;
  CHECK(total == 2 * (n - 1) * S);
  // channel 0 uses tree 0 (root rank 0), channel 1 tree 1 (mirror of 4 nodes: root node 3, head local 0 = rank 12)
  std::set<std::uint32_t> roots[2];
  for (std::uint32_t r = 0; r < n; ++r) {
    roots[0].insert(r);
    roots[1].insert(r);
  }
  for (const auto& t : s.transfers)
    if (t.step == 0) roots[t.channel].erase(t.src);
  CHECK(roots[0] == std::set<std::uint32_t>{0});
  CHECK(roots[1] == std::set<std::uint32_t>{12});
  // Dependency rule: the root's down-send of chunk l needs every child's up-send of chunk l.
  const std::size_t per = 2 * (n - 1);
  const Transfer& first_down = s.transfers[n - 1];  // first down-send of loop 0, channel 0: from the root
  CHECK(first_down.src == 0u);
  CHECK(first_down.step == 1u);
  CHECK(first_down.dep_count == 2u);  // root 0 has children rank 1 (chain) and rank 8 (node 2's head)
  for (std::uint32_t d = 0; d < first_down.dep_count; ++d) {
    const Transfer& up = s.transfers[s.deps[first_down.dep_begin + d]];
    CHECK(up.dst == 0u);
    CHECK(up.step == 0u);
  }
  (void)per;
  GenOptions odd;
  odd.channels = 3;
  CHECK_THROWS_WITH(tree_allreduce(n, ppn, S, Proto::Simple, odd), Catch::Contains("even"));
}

TEST_CASE("a streamed tree's dependents are the inverse of its dependencies, staged by dependency_kind") {
  // Expectation: for every step t of the stored tree allreduce and every dependency d of t (the stored CSR, read
  // back through TreeStream::index), t is among each_dependent(d, stage) exactly for the stage dependency_kind(d, t)
  // gives (Data: delivered), and every dependent listed has d among its stored dependencies: the edge sets are
  // equal; each_dependency reports the same dependencies with the same kinds. Covers one node (a chain), one GPU per
  // node (node trees only), odd node counts (tree 1 shifted), even (mirrored), several loops beyond the slots (buffer
  // edges, at the root too), 1 and 2 and 4 channels.
  struct Shape {
    std::uint32_t n, ppn, channels;
    Proto proto;
  };
  const Shape shapes[] = {{2, 1, 1, Proto::Simple}, {2, 2, 2, Proto::LL},  {5, 1, 2, Proto::LL128},
                          {6, 2, 2, Proto::Simple}, {8, 8, 1, Proto::LL},  {12, 4, 4, Proto::LL},
                          {9, 3, 2, Proto::Simple}, {16, 1, 2, Proto::LL}, {14, 2, 2, Proto::LL128}};
  for (const Shape& sh : shapes) {
    INFO(sh.n << " ranks, " << sh.ppn << " per node, " << sh.channels << " channels, " << to_string(sh.proto));
    GenOptions o;
    o.channels = sh.channels;
    const Bytes size = 11 * sh.channels * default_chunk_bytes(Op::AllReduce, Algo::Tree, sh.proto) + 5;  // 12 loops
    const CollectiveSchedule s = tree_allreduce(sh.n, sh.ppn, size, sh.proto, o);
    const TreeStream ts(s);
    REQUIRE(ts.loops() == 12);
    REQUIRE(ts.loops() > ts.slots());
    REQUIRE(ts.count() == s.transfers.size());
    std::set<std::pair<std::uint64_t, std::uint64_t>> stored[2], streamed[2];  // [delivered] (dep, dependent)
    for (std::uint64_t t = 0; t < s.transfers.size(); ++t) {
      const Transfer& x = s.transfers[t];
      const TreeStream::Step st = ts.step(t);
      REQUIRE(ts.index(st) == t);
      const Transfer y = ts.transfer(st);
      CHECK((y.src == x.src && y.dst == x.dst && y.channel == x.channel && y.bytes == x.bytes));
      for (std::uint32_t i = 0; i < x.dep_count; ++i) {
        const std::uint32_t d = s.deps[x.dep_begin + i];
        stored[dependency_kind(s.transfers[d], x) == DepKind::Data].insert({d, t});
      }
      std::set<std::pair<std::uint64_t, bool>> kinds;  // (dependency, data) as the engine's readiness test sees them
      ts.each_dependency(st, [&](const TreeStream::Step& d, bool data) {
        kinds.insert({ts.index(d), data});
        return true;
      });
      std::set<std::pair<std::uint64_t, bool>> stored_kinds;
      for (std::uint32_t i = 0; i < x.dep_count; ++i) {
        const std::uint32_t d = s.deps[x.dep_begin + i];
        stored_kinds.insert({d, dependency_kind(s.transfers[d], x) == DepKind::Data});
      }
      CHECK(kinds == stored_kinds);
      for (int stage = 0; stage < 2; ++stage) {
        std::uint32_t k = 0;
        ts.each_dependent(st, stage == 1, [&](const TreeStream::Step& d) {
          ++k;
          streamed[stage].insert({t, ts.index(d)});
        });
        CHECK(k <= TreeStream::kMaxEdges);  // the engine's release holds at most this many
      }
    }
    CHECK(streamed[0] == stored[0]);
    CHECK(streamed[1] == stored[1]);
    CHECK(!stored[0].empty());
    CHECK(!stored[1].empty());
  }
}

TEST_CASE("a streamed tree header materializes to the generated schedule") {
  // Expectation: materialize(header generated with StepStorage::Streamed) equals generating it stored, transfer for
  // transfer and dependency for dependency (one definition: TreeStream).
  GenOptions o;
  o.channels = 4;
  const Bytes size = 3 * MiB + 7;
  const CollectiveSchedule stored = tree_allreduce(24, 8, size, Proto::LL, o);
  o.steps = StepStorage::Streamed;
  const CollectiveSchedule header = tree_allreduce(24, 8, size, Proto::LL, o);
  REQUIRE(header.streamed);
  REQUIRE(header.transfers.empty());
  const CollectiveSchedule again = materialize(header);
  REQUIRE(!again.streamed);
  REQUIRE(again.transfers.size() == stored.transfers.size());
  CHECK(again.deps == stored.deps);
  for (std::size_t t = 0; t < stored.transfers.size(); ++t) {
    const Transfer &a = again.transfers[t], &b = stored.transfers[t];
    REQUIRE((a.src == b.src && a.dst == b.dst && a.channel == b.channel && a.bytes == b.bytes && a.step == b.step &&
             a.dep_begin == b.dep_begin && a.dep_count == b.dep_count));
  }
}
