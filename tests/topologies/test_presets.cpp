// Every preset loads against the default catalog; preset resolution by name and the did-you-mean for typos; the
// 1,024-GPU benchmark preset builds completely.
#include <catch2/catch.hpp>

#include "vgsim/topologies/cluster.hpp"

using namespace vgsim;
using namespace vgsim::topo;

TEST_CASE("every preset loads", "[presets]") {
  const Catalog cat = Catalog::load_default();
  const auto names = Cluster::preset_names();
  // 6 R750xa variants + dgx-a100 + dgx-a100-128 + 6 replay presets for the nccl-tests tables = 14.
  REQUIRE(names.size() >= 14);
  for (const auto& n : names) {
    INFO(n);
    const Cluster c = Cluster::resolve(n, cat);
    CHECK(c.name() == n);
    // A preset without GPUs is a CPU cluster (Open MPI collectives, CPU training workers): its hosts need a NIC.
    CHECK_FALSE((c.gpus().empty() && c.nics().empty()));
    for (const auto& r : c.resources()) {
      CHECK(r.capacity.bytes_per_s > 0);
      CHECK_FALSE(r.source.empty());
    }
  }
}

TEST_CASE("preset GPU and NIC counts match what they model", "[presets]") {
  const Catalog cat = Catalog::load_default();
  // r750xa-4x: 4 hosts x 4 GPUs = 16 GPUs; 4 hosts x 2 cabled ports = 8 net devices.
  const Cluster r = Cluster::resolve("r750xa-4x-100gbe", cat);
  CHECK(r.hosts().size() == 4);
  CHECK(r.gpus().size() == 16);
  CHECK(r.nics().size() == 8);
  // p5: 32 EFA devices x 100 Gb/s = 3200 Gb/s per node (AWS p5 page), modelled as one 4-device group per GPU:
  // 8 NICs per node, 8 x 400 Gb/s = 3200 Gb/s = 400e9 B/s, and every GPU reaches its own 400 Gb/s group (PIX).
  const Cluster p5 = Cluster::resolve("aws-p5-2x8xh100", cat);
  CHECK(p5.hosts()[0].nic_count == 8);
  std::uint32_t devices = 0;  // the 32 physical EFA devices are still counted (NCCL opens a channel per device)
  for (std::uint32_t n : p5.hosts()[0].nics) devices += p5.nics()[n].devices;
  CHECK(devices == 32);
  double node_Bps = 0;
  for (std::uint32_t n : p5.hosts()[0].nics) node_Bps += p5.nics()[n].speed.bytes_per_s;
  CHECK(node_Bps == Approx(3200e9 / 8));
  const Path p5_net = p5.path(0, 8, PathOptions{});  // gpu0 of host0 -> gpu0 of host1
  CHECK(p5_net.transport == Transport::NetIB);
  CHECK(p5_net.gdr);
  CHECK(p5_net.bottleneck.bytes_per_s == Approx(400e9 / 8));
  // p4de: 4 x 100 Gb/s EFA per node.
  CHECK(Cluster::resolve("aws-p4de-2x8xa100", cat).hosts()[0].nic_count == 4);
}

TEST_CASE("the 128-node DGX A100 preset builds 1024 GPUs", "[presets][scale]") {
  const Catalog cat = Catalog::load_default();
  const Cluster c = Cluster::resolve("dgx-a100-128", cat);
  // 128 nodes x 8 GPUs = 1024; 128 x 8 HDR NICs = 1024 ports.
  REQUIRE(c.gpus().size() == 1024);
  CHECK(c.nics().size() == 1024);
  // A path from the first to the last GPU crosses the spine: 2 leaf/spine links of 2 x 8 x 25e9 / 16 = 25e9 B/s each.
  const Path p = c.path(0, 1023, PathOptions{});
  CHECK(p.transport == Transport::NetIB);
  int spine_links = 0;
  for (auto r : p.resources)
    if (c.resources()[r].kind == "switch-link") {
      ++spine_links;
      CHECK(c.resources()[r].capacity.bytes_per_s == Approx(25e9));
    }
  CHECK(spine_links == 2);
}

TEST_CASE("resolve: unknown preset names list presets with a did-you-mean", "[presets]") {
  const Catalog cat = Catalog::load_default();
  try {
    Cluster::resolve("r750xa-2x-100gb", cat);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'r750xa-2x-100gbe'"));
    CHECK_THAT(e.what(), Catch::Contains("dgx-a100-128"));
  }
  // A file path works too.
  const Cluster c = Cluster::resolve(Cluster::presets_dir() + "/dgx-a100.json", cat);
  CHECK(c.gpus().size() == 8);
}
