// The same ring in vgsim and in SimGrid (issue 16): ONE 1 GiB ring allreduce over n ranks, one rank (GPU) per host,
// one channel, NCCL Simple chunking, run either by vgsim's engine (public API, as bench_collective) or by SimGrid S4U
// (one actor per rank running NCCL's ring schedule over a star zone of split-duplex host links with the bandwidth
// and per-step latency of vgsim's route). One case per process, so the peak RSS is the case's.
// Usage: bench_simgrid_ring vgsim|simgrid RANKS [--cfg=... for SimGrid]; results are recorded in docs/BENCHMARKS.md.
// Prints one line of key=value pairs: wall and CPU seconds of the simulation (vgsim: plan, schedule and run; SimGrid:
// platform, actors and run), the process's peak RSS and its peak before that part, events (vgsim; SimGrid counts
// none, so its time advances, the dates its main loop stepped to, are printed instead), flows (transfers / comms) and
// the predicted collective time.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "vgsim/sim/communicator.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/ring_stream.hpp"

namespace sg4 = simgrid::s4u;
using namespace vgsim;

namespace {

// The ring as both engines run it: NCCL's chunking (workloads/collectives/ring.cpp, builder.hpp Partition) and the
// per-transfer costs vgsim charges on the route between two neighbouring ranks (sim/collective_run.hpp).
struct RingCase {
  std::uint32_t n = 0;
  Bytes size = GiB;
  Bytes chunk_bytes = 0;     // coll::default_chunk_bytes (ring allreduce, Simple): 2 MiB
  std::uint32_t slots = 0;   // coll::default_slots: 2 chunks in flight per connection
  std::uint32_t slices = 0;  // coll::default_slices: each chunk sent as 2 slices (ring_stream.hpp)
  std::uint32_t loops = 0;   // ceil(size / (chunk x n)) (one channel)
  std::uint32_t nsteps = 0;  // 2(n-1) steps per loop
  Bytes last_base = 0;       // bytes of a last-loop piece; the first last_extra pieces carry one more byte
  std::uint64_t last_extra = 0;
  double payload_Bps = 0;  // min(route bottleneck, NCCL per-channel cap) x payload efficiency
  Time step_latency{0};    // sim::delivery_latency of one slice on the route
  Time base_latency{0};    // once per collective, before the first step
  std::string route;

  // Payload bytes sent by ring position p at send u = g x slices + slice (ring.cpp: that slice of block (p - j) mod
  // n of loop g / nsteps).
  Bytes bytes(std::uint64_t u, std::uint32_t p) const {
    const std::uint64_t g = u / slices;
    const auto loop = static_cast<std::uint32_t>(g / nsteps);
    Bytes piece = chunk_bytes;
    if (loop + 1 >= loops) {
      const auto j = static_cast<std::uint32_t>(g % nsteps % n);
      const std::uint32_t block = p >= j ? p - j : p + n - j;
      piece = last_base + (block < last_extra ? 1 : 0);
    }
    return coll::ring_slice_bytes(piece, static_cast<std::uint32_t>(u % slices), slices, chunk_bytes);
  }
};

// n hosts of the roce400g-2x1xh100 template (one H100 and one ConnectX-7 400G under one PCIe Gen5 switch, GPUDirect
// RDMA under NCCL's default GDR level) on one switch.
topo::Cluster ring_cluster(std::uint32_t hosts, const topo::Catalog& catalog) {
  Json j = load_json_file(topo::Cluster::presets_dir() + "/roce400g-2x1xh100.json");
  for (auto& h : j["hosts"]) h["count"] = hosts;
  j["name"] = "roce400g-x" + std::to_string(hosts);
  return topo::Cluster::from_json(j, "roce400g-2x1xh100.json (scaled)", catalog);
}

sim::CommOptions ring_options() {
  sim::CommOptions opt;
  opt.algo = coll::Algo::Ring;
  opt.proto = coll::Proto::Simple;
  opt.channels = 1;
  return opt;
}

// The step costs come from a 2-rank communicator on the same cluster (its plan's schedule is tiny); they do not depend
// on the rank count (sim/communicator.cpp: base latency, hop latencies and the per-channel cap are per algorithm,
// protocol, link class and GPU); the vgsim mode checks that against its own n-rank plan.
RingCase ring_case(const topo::Cluster& cluster, std::uint32_t n) {
  RingCase rc;
  rc.n = n;
  rc.chunk_bytes = coll::default_chunk_bytes(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple);
  rc.slots = coll::default_slots(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple);
  rc.slices = coll::default_slices(coll::Op::AllReduce, coll::Algo::Ring, coll::Proto::Simple);
  const Bytes per_loop = rc.chunk_bytes * n;
  rc.loops = static_cast<std::uint32_t>(std::max<Bytes>(1, (rc.size + per_loop - 1) / per_loop));
  rc.nsteps = 2 * (n - 1);
  const Bytes rem = rc.size - static_cast<Bytes>(rc.loops - 1) * per_loop;
  rc.last_base = rem / n;
  rc.last_extra = static_cast<std::uint64_t>(rem % n);
  const sim::Communicator pair(cluster, sim::place_ranks(cluster, 2, 1), ring_options());
  const sim::CallPlan plan = pair.plan(coll::Op::AllReduce, MiB);
  Simulator s;
  sim::Fabric fabric(cluster, s, pair.options().path);
  const sim::Route& r = fabric.route(pair.rank_to_endpoint()[0], pair.rank_to_endpoint()[1]);
  rc.payload_Bps = std::min(r.bottleneck.bytes_per_s, plan.costs.max_rate_per_flow) * plan.costs.payload_efficiency;
  rc.step_latency = sim::delivery_latency(r, rc.chunk_bytes / rc.slices, plan.costs);
  rc.base_latency = plan.costs.base_latency + plan.costs.launch_overhead;
  rc.route = topo::to_string(r.transport) + std::string(r.gdr ? "+GDR" : "") + ", bottleneck " +
             std::to_string(r.bottleneck.GBps()) + " GB/s, NCCL cap " +
             std::to_string(plan.costs.max_rate_per_flow * 1e-9) + " GB/s, payload efficiency " +
             std::to_string(plan.costs.payload_efficiency);
  return rc;
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

double peak_rss_MiB() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct Outcome {
  double wall_s = 0, cpu_s = 0, predicted_us = 0;
  double rss_before_MiB = 0;  // peak RSS when the timed part starts (binary, catalog, cluster)
  std::uint64_t events = 0, flows = 0;
  std::uint64_t time_advances = 0;  // SimGrid: dates its main loop advanced to (its nearest analogue of events)
};

Outcome run_vgsim(const topo::Cluster& cluster, const RingCase& rc) {
  const sim::Communicator comm(cluster, sim::place_ranks(cluster, rc.n, 1), ring_options());
  Outcome o;
  o.rss_before_MiB = peak_rss_MiB();
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  const sim::CollectiveResult r = sim::simulate_collective(comm, coll::Op::AllReduce, rc.size);
  o.cpu_s = cpu_seconds() - c0;
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  o.predicted_us = r.time.us();
  o.events = r.events;
  o.flows = r.flows;
  if (r.plan.channels != 1 || r.plan.costs.base_latency != rc.base_latency ||
      r.plan.costs.max_rate_per_flow * r.plan.costs.payload_efficiency < rc.payload_Bps * (1 - 1e-12))
    std::fprintf(stderr, "warning: the %u-rank plan's costs differ from the 2-rank plan's\n", rc.n);
  return o;
}

// One rank of NCCL's ring (ring_stream.hpp's dependency rule over sends u = step x S + slice, room R = slots x S):
// send u waits for (a) the same slice received at the step before (u - S, when j > 0), (b) this connection's send
// u-1, and (c) room at the receiver. (c) is the rendezvous: a put is matched only by a posted get, and a rank posts
// the get of send h once the slice in that room (send h - R) is gone: forwarded by its own send h - R + S, or, for
// the last step of a loop (stored, not forwarded), received.
class RingRank {
 public:
  RingRank(const RingCase& rc, std::uint32_t p, sg4::Mailbox* in, sg4::Mailbox* out)
      : rc_(rc), p_(p), in_(in), out_(out), total_(static_cast<std::uint64_t>(rc.loops) * rc.nsteps * rc.slices) {
    if (rc.slots * rc.slices + 2 * rc.slices > kWindow)
      throw std::invalid_argument("RingRank: more buffer room than its send window");
  }

  void operator()() {
    sg4::this_actor::sleep_for(rc_.base_latency.s());
    const std::uint64_t S = rc_.slices;
    for (std::uint64_t u = 0; u < total_; ++u) {
      const bool data = (u / S) % rc_.nsteps > 0;
      post_gets();
      while ((data && received_ + S <= u) || (u > 0 && sent_ < u)) wait_one();
      static int token = 0;
      add(out_->put_async(&token, static_cast<std::uint64_t>(rc_.bytes(u, p_))), false, u);
    }
    while (next_get_ < total_ || !pending_.empty()) {
      post_gets();
      if (!pending_.empty()) wait_one();
    }
  }

 private:
  static constexpr std::uint64_t kWindow = 16;  // sends in flight (gets <= room + S, sends <= 1), modulo this

  // received_ / sent_: number of leading steps whose receive / send has completed (steps complete in order on a
  // connection: sends are serialized by (b), and receives come from one sender).
  void post_gets() {
    while (next_get_ < total_) {
      const std::uint64_t h = next_get_, S = rc_.slices, room = rc_.slots * S;
      if (h >= room) {
        const std::uint64_t k = h - room;  // the send whose slice holds the room
        const bool stored = (k / S) % rc_.nsteps == rc_.nsteps - 1;
        if (stored ? received_ <= k : sent_ <= k + S) return;
      }
      add(in_->get_async<int>(&buf_[h % kWindow]), true, h);
      ++next_get_;
    }
  }

  void add(sg4::CommPtr c, bool recv, std::uint64_t step) {
    pending_.push_back(std::move(c));
    what_.push_back({recv, step});
  }

  void wait_one() {
    const auto i = static_cast<std::size_t>(sg4::Comm::wait_any(pending_));
    auto [recv, step] = what_[i];
    (recv ? recv_done_ : send_done_)[step % kWindow] = step + 1;
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    what_.erase(what_.begin() + static_cast<std::ptrdiff_t>(i));
    while (received_ < total_ && recv_done_[received_ % kWindow] == received_ + 1) ++received_;
    while (sent_ < total_ && send_done_[sent_ % kWindow] == sent_ + 1) ++sent_;
  }

  const RingCase& rc_;
  std::uint32_t p_;
  sg4::Mailbox* in_;
  sg4::Mailbox* out_;
  std::uint64_t total_;
  std::uint64_t next_get_ = 0, received_ = 0, sent_ = 0;
  std::vector<sg4::CommPtr> pending_;
  std::vector<std::pair<bool, std::uint64_t>> what_;
  int* buf_[kWindow] = {};
  std::uint64_t recv_done_[kWindow] = {}, send_done_[kWindow] = {};
};

// "h17" (built by append: GCC 12 warns falsely, -Wrestrict, on a literal + std::to_string inlined in a loop).
std::string numbered(const char* prefix, std::uint32_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

// n hosts in a star zone, each with a split-duplex link of the route's payload bandwidth; a route crosses the
// sender's UP and the receiver's DOWN link, so each carries half of the per-step latency.
Outcome run_simgrid(sg4::Engine& e, const RingCase& rc) {
  Outcome o;
  o.rss_before_MiB = peak_rss_MiB();
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  auto* zone = sg4::create_star_zone("ring");
  std::vector<sg4::Host*> hosts(rc.n);
  for (std::uint32_t i = 0; i < rc.n; ++i) {
    hosts[i] = zone->create_host(numbered("h", i), 1e9);
    auto* link = zone->create_split_duplex_link(numbered("l", i), rc.payload_Bps);
    link->set_latency(rc.step_latency.s() / 2);
    zone->add_route(hosts[i]->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}},
                    true);
  }
  zone->seal();
  for (std::uint32_t p = 0; p < rc.n; ++p) {
    sg4::Mailbox* in = sg4::Mailbox::by_name(numbered("in", p));
    sg4::Mailbox* out = sg4::Mailbox::by_name(numbered("in", p + 1 == rc.n ? 0 : p + 1));
    sg4::Actor::create(numbered("rank", p), hosts[p], RingRank(rc, p, in, out));
  }
  sg4::Engine::on_time_advance_cb([&o](double) { ++o.time_advances; });
  e.run();
  o.cpu_s = cpu_seconds() - c0;
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  o.predicted_us = sg4::Engine::get_clock() * 1e6;
  o.flows = static_cast<std::uint64_t>(rc.loops) * rc.nsteps * rc.slices * rc.n;
  return o;
}

int usage() {
  std::fprintf(stderr, "usage: bench_simgrid_ring vgsim|simgrid RANKS [--cfg=...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string mode = argv[1];
  const long ranks = std::strtol(argv[2], nullptr, 10);
  if ((mode != "vgsim" && mode != "simgrid") || ranks < 2 || ranks > 65536) return usage();
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = ring_cluster(static_cast<std::uint32_t>(ranks), catalog);
  const RingCase rc = ring_case(cluster, static_cast<std::uint32_t>(ranks));
  Outcome o;
  if (mode == "vgsim") {
    o = run_vgsim(cluster, rc);
  } else {
    // SimGrid owns argv (its --cfg options, which come after ours and so override these defaults). The pure max-min
    // model: CM02 (LV08, the default, adds latency and bandwidth correction factors) without its TCP window bound
    // (TCP-gamma 0) and without the ACK cross-traffic on the reverse links.
    std::vector<std::string> cfg = {argv[0], "--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0",
                                    "--cfg=network/crosstraffic:0"};
    cfg.insert(cfg.end(), argv + 3, argv + argc);
    std::vector<char*> sg_argv;
    for (auto& a : cfg) sg_argv.push_back(a.data());
    sg_argv.push_back(nullptr);
    int sg_argc = static_cast<int>(cfg.size());
    sg4::Engine e(&sg_argc, sg_argv.data());
    o = run_simgrid(e, rc);
  }
  std::printf(
      "engine=%s ranks=%u chunk_bytes=%lld slots=%u loops=%u link_GBps=%.3f step_latency_us=%.3f "
      "base_latency_us=%.3f wall_s=%.3f cpu_s=%.3f peak_rss_MiB=%.1f rss_before_MiB=%.1f events=%llu "
      "time_advances=%llu flows=%llu predicted_us=%.3f\n",
      mode.c_str(), rc.n, static_cast<long long>(rc.chunk_bytes), rc.slots, rc.loops, rc.payload_Bps * 1e-9,
      rc.step_latency.us(), rc.base_latency.us(), o.wall_s, o.cpu_s, peak_rss_MiB(), o.rss_before_MiB,
      static_cast<unsigned long long>(o.events), static_cast<unsigned long long>(o.time_advances),
      static_cast<unsigned long long>(o.flows), o.predicted_us);
  std::printf("route: %s\n", rc.route.c_str());
  return 0;
}
