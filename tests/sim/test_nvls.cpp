// NVLS and NVLS Tree allreduce on the engine: 8 x H100 SXM behind one NVSwitch (preset aws-p5-2x8xh100, one node)
// reaches the physical bound eff x B x (2(n-1)/n) / (1 + 1/n), 2 x 8 of them with NVLS Tree the bound min(NVLink
// legs, network legs); NCCL's argmin picks NVLS / NVLS Tree for large messages there and never on A100; forcing
// either where it cannot run is a clear input error.
#include <algorithm>
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"

using namespace vgsim;

namespace {
const topo::Catalog& catalog() {
  static const topo::Catalog c = topo::Catalog::load_default();
  return c;
}
std::string error_of(const sim::Communicator& comm, coll::Op op) {
  try {
    comm.plan(op, 256 * MiB);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("engine: forced NVLS on 8 x H100 SXM at 4 GiB is within 3 % of 0.85 x 370.8 x (2(n-1)/n) / (1 + 1/n)") {
  const topo::Cluster cluster = topo::Cluster::resolve("aws-p5-2x8xh100", catalog());
  sim::CommOptions opt;
  opt.algo = coll::Algo::NVLS;
  const sim::Communicator comm(cluster, sim::place_ranks(cluster, 1, 8), opt);
  const Bytes S = 4 * GiB;
  const sim::CollectiveResult r = sim::simulate_collective(comm, coll::Op::AllReduce, S);
  CHECK(r.plan.algo == coll::Algo::NVLS);
  CHECK(r.plan.proto == coll::Proto::Simple);
  CHECK(r.plan.channels == 16u);
  const double n = 8;
  // busbw = S / t x 2(n-1)/n, in GB/s (1e9 B/s)
  const double busbw = static_cast<double>(S) / (r.time.us() * 1e3) * 2 * (n - 1) / n;
  // each GPU's UP and DOWN carry S(1 + 1/n) at eff x B = 0.85 x 18 x 20.6 GB/s, so
  // busbw = 0.85 x 370.8 x (2(n-1)/n) / (1 + 1/n) = 490.3 GB/s
  const double bound = 0.85 * 370.8 * (2 * (n - 1) / n) / (1 + 1 / n);
  INFO("busbw " << busbw << " GB/s, bound " << bound << " GB/s, time " << r.time.us() << " us");
  CHECK(busbw == Approx(bound).epsilon(0.03));
  CHECK(busbw <= bound * 1.0001);  // never above the physical bound
}

TEST_CASE("selection: NVLS for large allreduce on one H100 NVSwitch node, Ring/LL at 8 B, never on A100") {
  const topo::Cluster p5 = topo::Cluster::resolve("aws-p5-2x8xh100", catalog());
  const sim::Communicator one(p5, sim::place_ranks(p5, 1, 8), {});
  CHECK(coll::why_unavailable(coll::Algo::NVLS, one.shape()).empty());
  // 8 B: Ring/LL's 6.6 + 14 x 0.6 = 15 us beats NVLS's 25 us
  CHECK(one.plan(coll::Op::AllReduce, 8).algo == coll::Algo::Ring);
  CHECK(one.plan(coll::Op::AllReduce, 8).proto == coll::Proto::LL);
  // >= 256 MiB: NVLS's algBw 370.8 x 0.85 x 15/16 x 2 x 8/14 = 337.7 GB/s beats ring's 370.8 x 8/14 = 211.9 GB/s
  for (Bytes b : {256 * MiB, GiB, 8 * GiB}) CHECK(one.plan(coll::Op::AllReduce, b).algo == coll::Algo::NVLS);
  CHECK(one.plan(coll::Op::AllGather, GiB).algo == coll::Algo::Ring);  // NVLS allgather not modelled
  // two nodes: NVLS runs on one node only (across nodes it is NVLS Tree, tests/sim/test_nvls_tree.cpp)
  const sim::Communicator two(p5, sim::place_ranks(p5, 2, 8), {});
  CHECK_FALSE(coll::why_unavailable(coll::Algo::NVLS, two.shape()).empty());
  for (Bytes b = 8; b <= 8 * GiB; b *= 8) CHECK(two.plan(coll::Op::AllReduce, b).algo != coll::Algo::NVLS);
  const topo::Cluster a100 = topo::Cluster::resolve("dgx-a100", catalog());
  const sim::Communicator dgx(a100, sim::place_ranks(a100, 1, 8), {});
  CHECK_FALSE(coll::why_unavailable(coll::Algo::NVLS, dgx.shape()).empty());
  for (Bytes b = 8; b <= 8 * GiB; b *= 8) CHECK(dgx.plan(coll::Op::AllReduce, b).algo != coll::Algo::NVLS);
}

TEST_CASE("forcing NVLS where it cannot run is an input error naming the value and what is expected") {
  sim::CommOptions opt;
  opt.algo = coll::Algo::NVLS;
  // multi-node
  const topo::Cluster p5 = topo::Cluster::resolve("aws-p5-2x8xh100", catalog());
  const std::string multi = error_of(sim::Communicator(p5, sim::place_ranks(p5, 2, 8), opt), coll::Op::AllReduce);
  CHECK(multi.find("--algo") != std::string::npos);
  CHECK(multi.find("nvls") != std::string::npos);
  CHECK(multi.find("2 nodes") != std::string::npos);
  CHECK(multi.find("one node") != std::string::npos);
  // PCIe: 4 x H100 PCIe without NVLink bridges (Hopper, so PCIe is the only reason)
  const topo::Cluster pcie =
      topo::Cluster::load(std::string(VGSIM_DATA_DIR) + "/tests/sim/training/data/test-1x-h100pcie.json", catalog());
  const std::string p = error_of(sim::Communicator(pcie, sim::place_ranks(pcie, 1, 4), opt), coll::Op::AllReduce);
  CHECK(p.find("NVLink") != std::string::npos);
  CHECK(p.find("nvls") != std::string::npos);
  // Hopper with an NVLink bridge but no NVSwitch
  const topo::Cluster bridge = topo::Cluster::resolve("h100pcie-nvlink-bridge-2x", catalog());
  const std::string b = error_of(sim::Communicator(bridge, sim::place_ranks(bridge, 1, 2), opt), coll::Op::AllReduce);
  CHECK(b.find("NVSwitch") != std::string::npos);
  // A100 behind an NVSwitch: too old
  const topo::Cluster a100 = topo::Cluster::resolve("dgx-a100", catalog());
  const std::string a = error_of(sim::Communicator(a100, sim::place_ranks(a100, 1, 8), opt), coll::Op::AllReduce);
  CHECK(a.find("ampere") != std::string::npos);
  // an op NVLS is not modelled for, and a protocol NVLS does not have
  const sim::Communicator one(p5, sim::place_ranks(p5, 1, 8), opt);
  CHECK(error_of(one, coll::Op::AllGather).find("only for allreduce") != std::string::npos);
  sim::CommOptions ll = opt;
  ll.proto = coll::Proto::LL;
  const std::string l = error_of(sim::Communicator(p5, sim::place_ranks(p5, 1, 8), ll), coll::Op::AllReduce);
  CHECK(l.find("--proto") != std::string::npos);
  CHECK(l.find("Simple") != std::string::npos);
  sim::CommOptions one_ch = opt;
  one_ch.channels = 1;
  const std::string c = error_of(sim::Communicator(p5, sim::place_ranks(p5, 1, 8), one_ch), coll::Op::AllReduce);
  CHECK(c.find("--channels") != std::string::npos);
}

TEST_CASE("engine: forced NVLS Tree on 2 x 8 H100 SXM at 16 GiB is within 3 % of its closed-form bound") {
  const topo::Cluster cluster = topo::Cluster::resolve("aws-p5-2x8xh100", catalog());
  sim::CommOptions opt;
  opt.algo = coll::Algo::NVLSTree;
  const std::vector<std::uint32_t> ranks = sim::place_ranks(cluster, 2, 8);
  const sim::Communicator comm(cluster, ranks, opt);
  // 16 GiB: 256 loops of 16 channels x 8 shards x 512 KiB (enqueue.cc's chunk), so the pipeline's fill (about three
  // loop periods) is ~1 % of the time; at 4 GiB (64 loops) it is ~4 %.
  const Bytes S = 16 * GiB;
  const sim::CollectiveResult r = sim::simulate_collective(comm, coll::Op::AllReduce, S);
  CHECK(r.plan.algo == coll::Algo::NVLSTree);
  CHECK(r.plan.proto == coll::Proto::Simple);
  CHECK(r.plan.channels == 16u);
  const double nl = 8;
  // algbw = S / t in GB/s (1e9 B/s)
  const double algbw = static_cast<double>(S) / (r.time.us() * 1e3);
  // NVLink legs: each GPU's UP and DOWN carry S(1 + 1/n_l) at 0.85 x 18 x 20.6 GB/s: algbw <= 0.85 x 370.8 / 1.125
  const double nvlink_bound = 0.85 * 370.8 / (1 + 1 / nl);
  // network legs: each GPU sends and receives S/n_l over its own path (Simple, efficiency 1) at the route's
  // bottleneck B_net: algbw <= n_l x B_net
  const topo::Path net = cluster.endpoint_path(ranks[0], ranks[8], opt.path);
  const double net_bound = nl * net.bottleneck.GBps();
  const double bound = std::min(nvlink_bound, net_bound);
  INFO("algbw " << algbw << " GB/s, NVLink bound " << nvlink_bound << ", network bound " << net_bound << " ("
                << net.bottleneck.GBps() << " GB/s per GPU), time " << r.time.us() << " us");
  CHECK(algbw == Approx(bound).epsilon(0.03));
  CHECK(algbw <= bound * 1.0001);  // never above the physical bound
}

TEST_CASE("selection: NVLS Tree picked on 2 x 8 H100 SXM for large allreduces, never on A100 nodes") {
  const topo::Cluster p5 = topo::Cluster::resolve("aws-p5-2x8xh100", catalog());
  const sim::Communicator two(p5, sim::place_ranks(p5, 2, 8), {});
  CHECK(coll::why_unavailable(coll::Algo::NVLSTree, two.shape()).empty());
  CHECK_FALSE(coll::why_unavailable(coll::Algo::NVLS, two.shape()).empty());
  // NCCL's argmin picks it at >= 256 MiB ([derived] algBw min(337.7, 400) GB/s beats the ring's
  // 370.8 x 16/30 = 197.8 GB/s; coll::select test in test_nvls.cpp), and the communicator offers it by default
  for (Bytes b : {256 * MiB, GiB, 8 * GiB}) CHECK(two.plan(coll::Op::AllReduce, b).algo == coll::Algo::NVLSTree);
  // NCCL_ALGO=^NVLSTree (here: forcing the ring) leaves it out
  sim::CommOptions ring;
  ring.algo = coll::Algo::Ring;
  const sim::Communicator two_ring(p5, sim::place_ranks(p5, 2, 8), ring);
  CHECK(two_ring.plan(coll::Op::AllReduce, GiB).algo == coll::Algo::Ring);
  sim::CommOptions forced;
  forced.algo = coll::Algo::NVLSTree;
  const sim::Communicator two_forced(p5, sim::place_ranks(p5, 2, 8), forced);
  for (Bytes b : {Bytes{8}, 256 * MiB}) {
    const sim::CallPlan plan = two_forced.plan(coll::Op::AllReduce, b);
    CHECK(plan.algo == coll::Algo::NVLSTree);
    CHECK(plan.channels % 2 == 0);  // half per node tree
  }
  const sim::Communicator one(p5, sim::place_ranks(p5, 1, 8), {});
  CHECK_FALSE(coll::why_unavailable(coll::Algo::NVLSTree, one.shape()).empty());
  const topo::Cluster a100 = topo::Cluster::resolve("aws-p4de-2x8xa100", catalog());
  const sim::Communicator p4(a100, sim::place_ranks(a100, 2, 8), {});
  CHECK_FALSE(coll::why_unavailable(coll::Algo::NVLSTree, p4.shape()).empty());
  for (Bytes b = 8; b <= 8 * GiB; b *= 8) CHECK(p4.plan(coll::Op::AllReduce, b).algo != coll::Algo::NVLSTree);
}

TEST_CASE("forcing NVLS Tree where it cannot run is an input error naming the failed condition") {
  sim::CommOptions opt;
  opt.algo = coll::Algo::NVLSTree;
  const topo::Cluster p5 = topo::Cluster::resolve("aws-p5-2x8xh100", catalog());
  const std::string one = error_of(sim::Communicator(p5, sim::place_ranks(p5, 1, 8), opt), coll::Op::AllReduce);
  CHECK(one.find("--algo") != std::string::npos);
  CHECK(one.find("nvlstree") != std::string::npos);
  CHECK(one.find("one node") != std::string::npos);
  const topo::Cluster a100 = topo::Cluster::resolve("aws-p4de-2x8xa100", catalog());
  const std::string a = error_of(sim::Communicator(a100, sim::place_ranks(a100, 2, 8), opt), coll::Op::AllReduce);
  CHECK(a.find("nvlstree") != std::string::npos);
  CHECK(a.find("ampere") != std::string::npos);
  const sim::Communicator two(p5, sim::place_ranks(p5, 2, 8), opt);
  CHECK(error_of(two, coll::Op::AllGather).find("only for allreduce") != std::string::npos);
  sim::CommOptions ll = opt;
  ll.proto = coll::Proto::LL128;
  const std::string l = error_of(sim::Communicator(p5, sim::place_ranks(p5, 2, 8), ll), coll::Op::AllReduce);
  CHECK(l.find("--proto") != std::string::npos);
  CHECK(l.find("Simple") != std::string::npos);
  // the parser NcclKnobs / --algo use
  CHECK(coll::parse_algo("nvlstree") == coll::Algo::NVLSTree);
}
