// Shared by the streamed-executor oracle tests (test_ring_run.cpp, test_tree_run.cpp): a collective shape, its
// communicator options with the steps streamed or stored, and two collectives contending on one simulator.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <tuple>

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

// Collective a (4 hosts x 1 GPU) starts at 0, b (4 hosts x 2 GPUs: it shares GPU 0 and the NIC of every host with a)
// at 7 us, on one simulator over r750xa-4x-100gbe; returns both finish times (ps) and the events processed.
inline std::tuple<std::int64_t, std::int64_t, std::uint64_t> run_contending(const sim::CommOptions& opt, coll::Op op_a,
                                                                            Bytes size_a, coll::Op op_b, Bytes size_b) {
  const topo::Cluster cl = topo::Cluster::resolve("r750xa-4x-100gbe", catalog());
  sim::Communicator a(cl, sim::place_ranks(cl, 4, 1), opt);
  sim::Communicator b(cl, sim::place_ranks(cl, 4, 2), opt);
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

}  // namespace vgsim::test
