// Streamed NVLS Tree allreduce execution (see nvls_tree_run.hpp).
#include "nvls_tree_run.hpp"

#include <stdexcept>

namespace vgsim::sim {

NvlsTreeRun::NvlsTreeRun(const coll::CollectiveSchedule& header,
                         const std::vector<std::vector<std::uint32_t>>& channel_gpus, const StepCosts& costs,
                         Fabric& fabric)
    : stream_(header), costs_(costs), fabric_(fabric) {
  const std::uint64_t conns = static_cast<std::uint64_t>(stream_.channels()) * stream_.per();
  if (conns >= (std::uint64_t{1} << kConnBits) || stream_.loops() >= (1u << 30))
    throw std::invalid_argument("NvlsTreeRun: more than 2^34 connections or 2^30 loops do not fit an event tag");
  conns_.assign(conns, ConnectionCursor{});
  for (std::uint32_t ch = 0; ch < stream_.channels(); ++ch) {
    const auto& map = channel_gpus[ch % channel_gpus.size()];
    for (std::uint64_t pos = 0; pos < stream_.per(); ++pos) {
      const Step s = stream_.at(0, ch, pos);
      conns_[conn(s)].route = coll::NvlsTreeStream::switch_leg(s)
                                  ? &fabric_.switch_route(map[stream_.gpu(s)], stream_.receiver(s) == coll::kSwitchRank)
                                  : &fabric_.route(map[stream_.sender(s)], map[stream_.receiver(s)]);
    }
  }
  cand_.reserve(stream_.max_edges());
}

void NvlsTreeRun::start_at(Time at, std::function<void(Time)> on_done) {
  on_done_ = std::move(on_done);
  remaining_ = stream_.count();
  fabric_.simulator().schedule(at, this, kStartTag);
}

bool NvlsTreeRun::resolved(const Step& dep, bool data) const {
  const ConnectionCursor& c = conns_[conn(dep)];
  return data ? c.delivered(dep.l) : c.sent > dep.l;
}

bool NvlsTreeRun::ready(const Step& s) const {
  return stream_.each_dependency(s, [this](const Step& d, bool data) { return resolved(d, data); });
}

void NvlsTreeRun::launch(const Step& s) {
  // The same flow CollectiveRun::launch starts for this transfer (a switch leg at NCCL's NVLS efficiency).
  const double sw = coll::NvlsTreeStream::switch_leg(s) ? costs_.switch_efficiency : 1.0;
  fabric_.simulator().start_flow(step_flow(*conns_[conn(s)].route, stream_.bytes(s.l, s.ch, s.k), costs_, sw), this,
                                 tag_of(s));
}

void NvlsTreeRun::release(const Step& s, bool delivered_stage) {
  cand_.clear();
  stream_.each_dependent(s, delivered_stage, [&](const Step& d) {
    if (cand_.size() == stream_.max_edges()) throw std::logic_error("NvlsTreeRun: more dependents than max_edges");
    cand_.emplace_back(stream_.index(d), d);
    for (std::size_t j = cand_.size() - 1; j > 0 && cand_[j].first < cand_[j - 1].first; --j)
      std::swap(cand_[j], cand_[j - 1]);
  });
  for (const auto& [index, d] : cand_)
    if (ready(d)) launch(d);
}

void NvlsTreeRun::on_event(Simulator& sim, std::uint64_t tag) {
  if (tag != kStartTag) {  // a transfer's latency is over: it is delivered
    deliver(sim, step_of(tag));
    return;
  }
  for (const Step& s : stream_.sources()) launch(s);  // in index order
}

void NvlsTreeRun::on_flow_done(Simulator& sim, std::uint64_t tag) {
  const Step s = step_of(tag);
  ConnectionCursor& c = conns_[conn(s)];
  if (c.sent != s.l) throw std::logic_error("NvlsTreeRun: sends of a connection left out of order");
  c.sent = s.l + 1;
  release(s, false);  // the bytes have left the sender: order and buffer dependents may go
  const Time latency = delivery_latency(*c.route, stream_.bytes(s.l, s.ch, s.k), costs_);
  if (latency.ps > 0)
    sim.schedule(sim.now() + latency, this, tag);
  else
    deliver(sim, s);
}

void NvlsTreeRun::deliver(Simulator& sim, const Step& s) {
  if (!conns_[conn(s)].deliver(s.l))
    throw std::logic_error("NvlsTreeRun: more than 64 undelivered loops on one connection");
  release(s, true);  // data dependents read what arrived
  if (--remaining_ == 0 && on_done_) on_done_(sim.now());
}

}  // namespace vgsim::sim
