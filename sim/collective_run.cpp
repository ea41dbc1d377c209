// Executes a collective schedule on the engine (see include/vgsim/sim/collective_run.hpp).
#include "vgsim/sim/collective_run.hpp"

#include <stdexcept>

#include "nvls_tree_run.hpp"
#include "ring_run.hpp"
#include "tree_run.hpp"

namespace vgsim::sim {

CollectiveRun::CollectiveRun(const coll::CollectiveSchedule& schedule, std::vector<std::uint32_t> rank_to_endpoint,
                             StepCosts costs, Fabric& fabric)
    : CollectiveRun(schedule, std::vector<std::vector<std::uint32_t>>{std::move(rank_to_endpoint)}, costs, fabric) {}

CollectiveRun::CollectiveRun(const coll::CollectiveSchedule& schedule,
                             std::vector<std::vector<std::uint32_t>> channel_gpus, StepCosts costs, Fabric& fabric,
                             bool fold_channels)
    : schedule_(schedule), channel_gpus_(std::move(channel_gpus)), costs_(costs), fabric_(fabric) {
  if (channel_gpus_.empty()) throw std::invalid_argument("CollectiveRun: no rank-to-GPU map");
  for (const auto& m : channel_gpus_)
    if (m.size() != schedule.ranks)
      throw std::invalid_argument("CollectiveRun: a rank-to-GPU map has " + std::to_string(m.size()) +
                                  " entries for a schedule of " + std::to_string(schedule.ranks) + " ranks");
  if (!(costs_.payload_efficiency > 0.0 && costs_.payload_efficiency <= 1.0))
    throw std::invalid_argument("CollectiveRun: payload efficiency must be in (0, 1]");
  if (!(costs_.switch_efficiency > 0.0 && costs_.switch_efficiency <= 1.0))
    throw std::invalid_argument("CollectiveRun: switch efficiency must be in (0, 1]");
  if (schedule.streamed) {  // a ring, tree or NVLS Tree generated as it runs (streamed_run.hpp): no step DAG to build
    if (coll::tree_streamable(schedule))
      stream_ = std::make_unique<TreeRun>(schedule, channel_gpus_, costs_, fabric_, fold_channels);
    else if (coll::nvls_tree_streamable(schedule))
      stream_ = std::make_unique<NvlsTreeRun>(schedule, channel_gpus_, costs_, fabric_);
    else
      stream_ = std::make_unique<RingRun>(schedule, channel_gpus_, costs_, fabric_, fold_channels);
    return;
  }
  // Memory per transfer is what limits the rank count (a 1,024-rank ring has millions of transfers), so the
  // executor keeps only a dependency counter and the reverse edges per transfer; routes are looked up per source.
  const std::size_t n = schedule.transfers.size();
  if (n >= kDataEdge) throw std::invalid_argument("CollectiveRun: more than 2^31 transfers");
  pending_.reserve(n);
  dependents_begin_.assign(n + 1, 0);
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tr = schedule.transfers[t];
    pending_.push_back(tr.dep_count);
    for (std::uint32_t d = 0; d < tr.dep_count; ++d) {
      const std::uint32_t dep = schedule.deps[tr.dep_begin + d];
      if (dep >= t) throw std::invalid_argument("CollectiveRun: schedule is not in topological order");
      ++dependents_begin_[dep + 1];
    }
  }
  for (std::size_t t = 0; t < n; ++t) dependents_begin_[t + 1] += dependents_begin_[t];
  dependents_.reset(new std::uint32_t[dependents_begin_[n]]);  // default-initialised: every slot is written below
  // Fill with begin[dep] as the cursor (it ends at the old begin[dep + 1]), then shift the offsets back by one.
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tr = schedule.transfers[t];
    for (std::uint32_t d = 0; d < tr.dep_count; ++d) {
      const std::uint32_t dep = schedule.deps[tr.dep_begin + d];
      // The edge's kind is decided once here and kept in the top bit, so releasing never rereads the dependent.
      const bool data = coll::dependency_kind(schedule.transfers[dep], tr) == coll::DepKind::Data;
      dependents_[dependents_begin_[dep]++] = static_cast<std::uint32_t>(t) | (data ? kDataEdge : 0u);
    }
  }
  for (std::size_t t = n; t > 0; --t) dependents_begin_[t] = dependents_begin_[t - 1];
  dependents_begin_[0] = 0;
  // Resolve each distinct (channel map, src, dst) route once and give every transfer its route's index, so a lookup
  // is one load. Per source rank a collective talks to very few destinations (ring: 1, tree: <= 3), so a short list
  // per source beats hashing millions of transfers while resolving.
  const std::size_t maps = channel_gpus_.size();
  const std::uint32_t kUnset = ~0u;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> by_src(maps * schedule.ranks);  // (dst, index)
  std::vector<std::uint32_t> legs[2];  // NVLS legs per (map, rank): [0] up to the switch, [1] down from it
  route_index_.resize(n);
  auto add = [&](const Route& r) {
    routes_.push_back(&r);
    return static_cast<std::uint32_t>(routes_.size() - 1);
  };
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tr = schedule.transfers[t];
    const bool to_sw = tr.dst == coll::kSwitchRank, from_sw = tr.src == coll::kSwitchRank;
    if ((to_sw && from_sw) || (!from_sw && tr.src >= schedule.ranks) || (!to_sw && tr.dst >= schedule.ranks))
      throw std::invalid_argument("CollectiveRun: transfer names a rank outside the communicator");
    const std::size_t m = tr.channel % maps;
    if (to_sw || from_sw) {  // NVLS leg: one GPU's NVSwitch up or down resource
      auto& leg = legs[to_sw ? 0 : 1];
      if (leg.empty()) leg.assign(maps * schedule.ranks, kUnset);
      const std::uint32_t r = to_sw ? tr.src : tr.dst;
      std::uint32_t& idx = leg[m * schedule.ranks + r];
      if (idx == kUnset) idx = add(fabric_.switch_route(channel_gpus_[m][r], to_sw));
      route_index_[t] = idx;
      continue;
    }
    auto& list = by_src[m * schedule.ranks + tr.src];
    std::uint32_t idx = kUnset;
    for (const auto& [dst, i] : list)
      if (dst == tr.dst) idx = i;
    if (idx == kUnset) {
      idx = add(fabric_.route(channel_gpus_[m][tr.src], channel_gpus_[m][tr.dst]));
      list.emplace_back(tr.dst, idx);
    }
    route_index_[t] = idx;
  }
}

CollectiveRun::~CollectiveRun() = default;

std::uint64_t CollectiveRun::transfers() const { return stream_ ? stream_->transfers() : schedule_.transfers.size(); }

const Route& CollectiveRun::route_of(std::uint32_t t) const { return *routes_[route_index_[t]]; }

void CollectiveRun::start(std::function<void(Time)> on_done) {
  start_at(fabric_.simulator().now(), std::move(on_done));
}

namespace {
constexpr std::uint64_t kStartTag = ~std::uint64_t{0};  // the start event; every other timer tag is a transfer
}

void CollectiveRun::start_at(Time at, std::function<void(Time)> on_done) {
  on_done_ = std::move(on_done);
  start_time_ = at;
  if (stream_) {
    remaining_ = 1;
    stream_->start_at(at + costs_.base_latency + costs_.launch_overhead, [this](Time finish) {
      remaining_ = 0;
      finish_time_ = finish;
      if (on_done_) on_done_(finish_time_);
    });
    return;
  }
  remaining_ = schedule_.transfers.size();
  fabric_.simulator().schedule(at + costs_.base_latency + costs_.launch_overhead, this, kStartTag);
}

void CollectiveRun::on_event(Simulator& sim, std::uint64_t tag) {
  if (tag != kStartTag) {  // a transfer's latency is over: it is delivered
    deliver(sim, static_cast<std::uint32_t>(tag));
    return;
  }
  if (remaining_ == 0) {  // an empty schedule (e.g. one rank) finishes after the base latency
    finish_time_ = sim.now();
    if (on_done_) on_done_(finish_time_);
    return;
  }
  for (std::uint32_t t = 0; t < schedule_.transfers.size(); ++t)
    if (pending_[t] == 0) launch(t);
}

void CollectiveRun::launch(std::uint32_t t) {
  const auto& tr = schedule_.transfers[t];
  const double sw = (tr.src == coll::kSwitchRank || tr.dst == coll::kSwitchRank) ? costs_.switch_efficiency : 1.0;
  fabric_.simulator().start_flow(step_flow(route_of(t), tr.bytes, costs_, sw), this, t);
}

void CollectiveRun::release(std::uint32_t t, bool delivered) {
  for (std::uint32_t i = dependents_begin_[t]; i < dependents_begin_[t + 1]; ++i) {
    const std::uint32_t d = dependents_[i] & ~kDataEdge;
    const bool data = (dependents_[i] & kDataEdge) != 0;
    if (data == delivered && --pending_[d] == 0) launch(d);
  }
}

void CollectiveRun::on_flow_done(Simulator& sim, std::uint64_t tag) {
  const auto t = static_cast<std::uint32_t>(tag);
  release(t, false);  // the bytes have left the sender: order and buffer dependents may go
  const coll::Transfer& tr = schedule_.transfers[t];
  const Route& r = route_of(t);
  const Time latency = delivery_latency(r, tr.bytes, costs_);
  if (latency.ps > 0)
    sim.schedule(sim.now() + latency, this, t);
  else
    deliver(sim, t);
}

void CollectiveRun::deliver(Simulator& sim, std::uint32_t t) {
  release(t, true);  // data dependents read what arrived
  if (--remaining_ == 0) {
    finish_time_ = sim.now();
    if (on_done_) on_done_(finish_time_);
  }
}

}  // namespace vgsim::sim
