// A socket connection's TCP streams, helper threads and per-connection cap (Path::socket_streams, socket_helpers,
// connection_cap) by NCCL version, NIC vendor and NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD, and whether the proxy
// thread's socket-threads resource is on the route. Expectations from net_socket.cc (docs/SOURCES.md#socket-streams):
// streams = threads x sockets per thread, or 1 (the control socket) with no helper threads; cap = streams x
// per_stream (default 25 Gb/s = 3.125e9 B/s).
#include <algorithm>
#include <catch2/catch.hpp>

#include "default_catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

using namespace vgsim;
using namespace vgsim::topo;

using vgsim::topo::test::cat;

namespace {
std::uint32_t gpu(const Cluster& c, const std::string& n) {
  auto g = c.find_gpu(n);
  REQUIRE(g.has_value());
  return *g;
}
bool crosses_kind(const Cluster& c, const Path& p, const std::string& kind) {
  return std::any_of(p.resources.begin(), p.resources.end(),
                     [&](std::uint32_t r) { return c.resources()[r].kind == kind; });
}
constexpr double kStream = 25e9 / 8;  // default per_stream, B/s
}  // namespace

TEST_CASE("Generic NIC from NCCL 2.5: no helper threads, one stream, the proxy thread on the route",
          "[paths][sockets]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions o;
  o.ib_disable = true;
  const Path p = c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), o);
  REQUIRE(p.transport == Transport::NetSocket);
  CHECK(p.socket_helpers == 0);
  CHECK(p.socket_streams == 1);
  CHECK(p.connection_cap.bytes_per_s == Approx(kStream));
  CHECK(crosses_kind(c, p, "socket-threads"));
  // An RDMA path has no connection cap.
  CHECK(std::isinf(c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), PathOptions{}).connection_cap.bytes_per_s));
}

TEST_CASE("NCCL 2.4: one helper thread x one socket; the helper moves the bytes, not the proxy", "[paths][sockets]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions o;
  o.ib_disable = true;
  o.nccl_minor = 4;
  const Path p = c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), o);
  CHECK(p.socket_helpers == 1);
  CHECK(p.socket_streams == 1);
  CHECK(p.connection_cap.bytes_per_s == Approx(kStream));
  CHECK_FALSE(crosses_kind(c, p, "socket-threads"));
}

TEST_CASE("NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD streams, capped at 64 sockets", "[paths][sockets]") {
  const Cluster c = Cluster::resolve("r750xa-2x-100gbe", cat());
  PathOptions o;
  o.ib_disable = true;
  o.socket_nthreads = 4;
  o.nsocks_perthread = 2;
  const Path p = c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), o);
  CHECK(p.socket_helpers == 4);
  CHECK(p.socket_streams == 8);
  CHECK(p.connection_cap.bytes_per_s == Approx(8 * kStream));
  // 16 threads x 8 sockets = 128 > MAX_SOCKETS 64: NCCL lowers sockets per thread to 64 / 16 = 4.
  o.socket_nthreads = 16;
  o.nsocks_perthread = 8;
  CHECK(c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), o).socket_streams == 64);
  // Threads 0 with sockets per thread set: still the control socket alone.
  o.socket_nthreads = 0;
  o.nsocks_perthread = 4;
  const Path q = c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), o);
  CHECK(q.socket_streams == 1);
  CHECK(crosses_kind(c, q, "socket-threads"));
}

TEST_CASE("Vendor defaults: AWS 2 x 8 in every release, GCP gVNIC 4 x 1 from 2.5", "[paths][sockets]") {
  PathOptions o;
  o.ib_disable = true;
  const Cluster aws = Cluster::resolve("aws-p4de-2x8xa100", cat());
  const Path pa = aws.path(gpu(aws, "host0/gpu0"), gpu(aws, "host1/gpu0"), o);
  CHECK(pa.socket_helpers == 2);
  CHECK(pa.socket_streams == 16);
  const Cluster gcp = Cluster::resolve("gcp-a3mega-2x8xh100", cat());
  const Path pg = gcp.path(gpu(gcp, "host0/gpu0"), gpu(gcp, "host1/gpu0"), o);
  CHECK(pg.socket_helpers == 4);
  CHECK(pg.socket_streams == 4);
  o.nccl_minor = 4;  // 2.4.8 has no GCP case: the generic 1 x 1
  CHECK(gcp.path(gpu(gcp, "host0/gpu0"), gpu(gcp, "host1/gpu0"), o).socket_streams == 1);
}

TEST_CASE("A cluster file's socket_threads.per_stream sets the stream rate", "[paths][sockets]") {
  Json j = Json::parse(R"({
    "name": "two", "host_templates": {"h": {
      "cpu": "xeon-gold-6338", "sockets": 1,
      "gpus": [{"name": "gpu0", "model": "a100-pcie-40gb", "attach": "socket0"}],
      "nics": [{"name": "nic0", "model": "connectx-6-dx-100g", "ports": 1, "attach": "socket0"}],
      "socket_threads": {"threads": 1, "per_thread": "5GB/s", "per_stream": "10Gbps", "source": "test"}}},
    "hosts": [{"template": "h", "count": 2}],
    "fabric": {"type": "switch", "link_latency": "0.1us", "switch_latency": "0.5us"}})");
  const Cluster c = Cluster::from_json(j, "two.json", cat());
  PathOptions o;
  o.ib_disable = true;
  o.socket_nthreads = 2;
  o.nsocks_perthread = 3;
  const Path p = c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), o);
  CHECK(p.connection_cap.bytes_per_s == Approx(6 * 10e9 / 8));
}

TEST_CASE("GCP N1 V100 VMs: the cube-mesh's NVLink pairs, SHM across it, sockets between VMs", "[paths][sockets]") {
  const Cluster c = Cluster::resolve("gcp-n1-4x8xv100-32gbe", cat());
  CHECK(c.gpus().size() == 32);
  // gpu0-gpu3 is NV2 in the DGX-1 layout: 2 links x 20 GB/s (V100's NCCL per-link rate, catalog).
  const Path nv = c.path(gpu(c, "host0/gpu0"), gpu(c, "host0/gpu3"), PathOptions{});
  CHECK(nv.transport == Transport::P2P);
  CHECK(nv.bottleneck.bytes_per_s == Approx(40e9));
  // gpu3-gpu4: no NVLink, different CPU sockets: SHM through host memory.
  CHECK(c.path(gpu(c, "host0/gpu3"), gpu(c, "host0/gpu4"), PathOptions{}).transport == Transport::SHM);
  const Path net = c.path(gpu(c, "host0/gpu0"), gpu(c, "host1/gpu0"), PathOptions{});
  CHECK(net.transport == Transport::NetSocket);  // virtio-net: no RDMA
  CHECK(net.socket_streams == 1);                // generic vendor (virtio 0x1af4), NCCL 2.30
}
