// Consumer of an installed vgsim: simulates one allreduce on a preset found in the installed data
// (<prefix>/share/vgsim) and checks the result against the bus-bandwidth bound of the NIC.
#include <cstdio>

#include "vgsim/sim/communicator.hpp"
#include "vgsim/topologies/catalog.hpp"

int main() {
  using namespace vgsim;
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve("r750xa-2x-25gbe", catalog);
  sim::CommOptions opt;
  opt.path.gdr_level = topo::PathType::SYS;
  sim::Communicator comm(cluster, sim::place_ranks(cluster, 2, 1), opt);
  const Bytes size = Bytes{256} << 20;
  const auto r = sim::simulate_collective(comm, coll::Op::AllReduce, size);
  // 2 ranks: busbw = algbw = size / time, and it cannot exceed one 25 GbE port (3.125 GB/s).
  const double busbw = static_cast<double>(size) / r.time.s() / 1e9;
  std::printf("allreduce 256 MiB on 2 x R750xa 25 GbE: %.1f us, busbw %.3f GB/s\n", r.time.us(), busbw);
  return busbw > 0 && busbw <= 3.125 ? 0 : 1;
}
