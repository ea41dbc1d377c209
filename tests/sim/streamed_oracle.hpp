// Shared by the streamed-executor oracle tests (test_ring_run.cpp, test_tree_run.cpp, test_nvls_tree_run.cpp): a
// collective shape, its communicator options with the steps streamed or stored, two collectives contending on one
// simulator, and the comparison of a streamed run with its DAG's.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <tuple>
#include <vector>

#include "test_clusters.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/generators.hpp"

namespace vgsim::test {

struct StreamCase {
  const char* cluster;
  std::uint32_t nodes, gpus;
  coll::Proto proto;
  std::uint32_t channels;  // 0 = the communicator's choice
  bool gdr;
};

inline sim::CommOptions stream_options(const StreamCase& c, coll::Algo algo, bool stream) {
  sim::CommOptions opt;
  opt.algo = algo;
  opt.proto = c.proto;
  if (c.channels) opt.channels = c.channels;
  if (c.gdr) opt.path.gdr_level = topo::PathType::SYS;
  opt.steps = stream ? coll::StepStorage::Streamed : coll::StepStorage::Stored;
  return opt;
}

// Collective a on `ranks_a` starts at 0, b on `ranks_b` at 7 us, on one simulator over `cl`; returns both finish
// times (ps) and the events processed.
inline std::tuple<std::int64_t, std::int64_t, std::uint64_t> run_contending(const topo::Cluster& cl,
                                                                            const std::vector<std::uint32_t>& ranks_a,
                                                                            const std::vector<std::uint32_t>& ranks_b,
                                                                            const sim::CommOptions& opt, coll::Op op_a,
                                                                            Bytes size_a, coll::Op op_b, Bytes size_b) {
  sim::Communicator a(cl, ranks_a, opt);
  sim::Communicator b(cl, ranks_b, opt);
  const sim::CallPlan pa = a.plan(op_a, size_a), pb = b.plan(op_b, size_b);
  const bool streamed = opt.steps == coll::StepStorage::Streamed;
  REQUIRE(pa.schedule->streamed == streamed);
  REQUIRE(pb.schedule->streamed == streamed);
  Simulator s;
  sim::Fabric f(cl, s, opt.path);
  sim::CollectiveRun ra(*pa.schedule, pa.channel_gpus, pa.costs, f), rb(*pb.schedule, pb.channel_gpus, pb.costs, f);
  ra.start();
  rb.start_at(Time::from_us(7));
  s.run();
  REQUIRE((ra.finished() && rb.finished()));
  return {ra.finish_time().ps, rb.finish_time().ps, s.events_processed()};
}

// As above with a on 4 hosts x 1 GPU and b on 4 hosts x 2 GPUs (it shares GPU 0 and the NIC of every host with a)
// over r750xa-4x-100gbe.
inline std::tuple<std::int64_t, std::int64_t, std::uint64_t> run_contending(const sim::CommOptions& opt, coll::Op op_a,
                                                                            Bytes size_a, coll::Op op_b, Bytes size_b) {
  const topo::Cluster cl = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  return run_contending(cl, sim::place_ranks(cl, 4, 1), sim::place_ranks(cl, 4, 2), opt, op_a, size_a, op_b, size_b);
}

// The streamed run of a collective against its materialized DAG's: same time to the picosecond, same events and
// flows, one flow per stored transfer, nothing stored by the streamed plan.
inline void check_streamed_as_dag(const sim::CollectiveResult& dag, const sim::CollectiveResult& streamed) {
  REQUIRE(!dag.plan.schedule->streamed);
  REQUIRE(streamed.plan.schedule->streamed);
  REQUIRE(streamed.plan.schedule->transfers.empty());  // nothing stored
  CHECK(streamed.time.ps == dag.time.ps);
  CHECK(streamed.events == dag.events);
  CHECK(streamed.flows == dag.flows);
  CHECK(streamed.flows == dag.plan.schedule->transfers.size());
}

}  // namespace vgsim::test
