// Streamed tree allreduce execution (see tree_run.hpp).
#include "tree_run.hpp"

#include <stdexcept>
#include <utility>

namespace vgsim::sim {

TreeRun::TreeRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
                 const StepCosts& costs, Fabric& fabric)
    : stream_(header), costs_(costs), fabric_(fabric) {
  const std::uint32_t n = stream_.ranks();
  if (n >= (1u << 27) - 1 || stream_.channels() > 64 || stream_.loops() >= (1u << 30))
    throw std::invalid_argument("TreeRun: more than 2^27 ranks, 64 channels or 2^30 loops do not fit an event tag");
  const std::size_t conns = static_cast<std::size_t>(stream_.channels()) * 2 * n;
  conns_.assign(conns, ConnectionCursor{});
  for (std::uint32_t ch = 0; ch < stream_.channels(); ++ch) {
    const auto& map = channel_gpus[ch % channel_gpus.size()];
    for (std::uint32_t r = 0; r < n; ++r) {
      if (stream_.is_root(ch, r)) continue;
      const std::uint32_t p = stream_.parent(ch, r);
      conns_[conn(Step{0, ch, coll::TreeStream::kUp, r})].route = &fabric_.route(map[r], map[p]);
      conns_[conn(Step{0, ch, coll::TreeStream::kDown, r})].route = &fabric_.route(map[p], map[r]);
    }
  }
}

void TreeRun::start_at(Time at, std::function<void(Time)> on_done) {
  on_done_ = std::move(on_done);
  remaining_ = stream_.count();
  fabric_.simulator().schedule(at, this, kStartTag);
}

bool TreeRun::resolved(const Step& dep, bool data) const {
  const ConnectionCursor& c = conns_[conn(dep)];
  return data ? c.delivered(dep.l) : c.sent > dep.l;
}

bool TreeRun::ready(const Step& s) const {
  return stream_.each_dependency(s, [this](const Step& d, bool data) { return resolved(d, data); });
}

void TreeRun::launch(const Step& s) {
  // The same flow CollectiveRun::launch starts for this transfer (a tree has no NVSwitch legs).
  fabric_.simulator().start_flow(step_flow(*conns_[conn(s)].route, stream_.bytes(s.l, s.ch), costs_), this, tag_of(s));
}

void TreeRun::release(const Step& s, bool delivered_stage) {
  std::pair<std::uint64_t, Step> cand[coll::TreeStream::kMaxEdges];
  std::uint32_t k = 0;
  stream_.each_dependent(s, delivered_stage, [&](const Step& d) {
    if (k == coll::TreeStream::kMaxEdges) throw std::logic_error("TreeRun: more dependents than kMaxEdges");
    cand[k] = {stream_.index(d), d};  // kept in ascending transfer index, as the DAG executor releases them
    for (std::uint32_t j = k++; j > 0 && cand[j].first < cand[j - 1].first; --j) std::swap(cand[j], cand[j - 1]);
  });
  for (std::uint32_t i = 0; i < k; ++i)
    if (ready(cand[i].second)) launch(cand[i].second);
}

void TreeRun::on_event(Simulator& sim, std::uint64_t tag) {
  if (tag != kStartTag) {  // a transfer's latency is over: it is delivered
    deliver(sim, step_of(tag));
    return;
  }
  if (remaining_ == 0) {  // one rank: finishes after the base latency
    if (on_done_) on_done_(sim.now());
    return;
  }
  for (const Step& s : stream_.sources()) launch(s);  // in index order
}

void TreeRun::on_flow_done(Simulator& sim, std::uint64_t tag) {
  const Step s = step_of(tag);
  ConnectionCursor& c = conns_[conn(s)];
  if (c.sent != s.l) throw std::logic_error("TreeRun: sends of a connection left out of order");
  c.sent = s.l + 1;
  release(s, false);  // the bytes have left the sender: order and buffer dependents may go
  const Time latency = delivery_latency(*c.route, stream_.bytes(s.l, s.ch), costs_);
  if (latency.ps > 0)
    sim.schedule(sim.now() + latency, this, tag);
  else
    deliver(sim, s);
}

void TreeRun::deliver(Simulator& sim, const Step& s) {
  if (!conns_[conn(s)].deliver(s.l))
    throw std::logic_error("TreeRun: more than 64 undelivered loops on one connection");
  release(s, true);  // data dependents read what arrived
  if (--remaining_ == 0 && on_done_) on_done_(sim.now());
}

}  // namespace vgsim::sim
