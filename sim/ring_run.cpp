// Streamed ring execution (see ring_run.hpp).
#include "ring_run.hpp"

#include <algorithm>
#include <stdexcept>

namespace vgsim::sim {

namespace {
constexpr std::uint64_t kStartTag = ~std::uint64_t{0};  // the start event; every other timer tag is a transfer
}

RingRun::RingRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
                 const StepCosts& costs, Fabric& fabric)
    : stream_(header),
      n_(header.ranks),
      c_(header.channels),
      maps_(static_cast<std::uint32_t>(channel_gpus.size())),
      buffer_reads_data_(header.ranks == 2),
      costs_(costs),
      fabric_(fabric) {
  routes_.resize(static_cast<std::size_t>(maps_) * n_);
  for (std::uint32_t m = 0; m < maps_; ++m)
    for (std::uint32_t p = 0; p < n_; ++p) {
      const auto& map = channel_gpus[m];
      routes_[m * n_ + p] = &fabric_.route(map[stream_.rank_at(p)], map[stream_.rank_at(stream_.next(p))]);
    }
  const std::size_t conns = static_cast<std::size_t>(c_) * n_;
  sent_.assign(conns, 0);
  delivered_base_.assign(conns, 0);
  delivered_mask_.assign(conns, 0);
}

void RingRun::start_at(Time at, std::function<void(Time)> on_done) {
  on_done_ = std::move(on_done);
  remaining_ = stream_.count();
  fabric_.simulator().schedule(at, this, kStartTag);
}

RingRun::Step RingRun::decode(std::uint64_t index) const {
  const std::uint64_t rest = index / n_;
  return {rest / c_, static_cast<std::uint32_t>(rest % c_), static_cast<std::uint32_t>(index % n_)};
}

bool RingRun::delivered(std::uint32_t ch, std::uint32_t p, std::uint64_t g) const {
  const std::size_t k = conn(ch, p);
  const std::uint64_t base = delivered_base_[k];
  return g < base || (g - base < 64 && ((delivered_mask_[k] >> (g - base)) & 1u) != 0);
}

bool RingRun::ready(std::uint64_t g, std::uint32_t ch, std::uint32_t p) const {
  if (stream_.has_order_dep(g) && sent_[conn(ch, p)] < g) return false;                 // (b) previous send left
  if (stream_.has_data_dep(g) && !delivered(ch, stream_.prev(p), g - 1)) return false;  // (a) data arrived
  const std::uint64_t gc = stream_.buffer_dep_step(g);                                  // (c) receiver's slot
  if (gc == coll::RingStream::kNone) return true;
  const std::uint32_t q = stream_.next(p);
  return buffer_reads_data_ ? delivered(ch, q, gc) : sent_[conn(ch, q)] > gc;
}

void RingRun::launch(std::uint64_t g, std::uint32_t ch, std::uint32_t p) {
  // The same flow CollectiveRun::launch starts for this transfer (a ring has no NVSwitch legs).
  fabric_.simulator().start_flow(step_flow(route(ch, p), stream_.bytes(g, ch, p), costs_), this,
                                 stream_.index(g, ch, p));
}

void RingRun::release(const Step& s, bool delivered_stage) {
  // The reverse edges of (g, ch, p) (ring_stream.hpp): (b) -> (g+1, ch, p) and (c) -> (g+slots-1, ch, p-1) wait
  // for the bytes to leave, (a) -> (g+1, ch, p+1) for delivery; with two ranks (c) reads the data too.
  Step cand[3];
  int k = 0;
  const std::uint64_t G = stream_.global_steps();
  const std::uint64_t gb = s.g + stream_.slots() - 1;
  const bool has_c = gb < G && stream_.buffer_dep_step(gb) == s.g;
  if (!delivered_stage && s.g + 1 < G) cand[k++] = {s.g + 1, s.ch, s.p};
  if (delivered_stage && s.g + 1 < G && stream_.has_data_dep(s.g + 1)) cand[k++] = {s.g + 1, s.ch, stream_.next(s.p)};
  if (has_c && delivered_stage == buffer_reads_data_) cand[k++] = {gb, s.ch, stream_.prev(s.p)};
  auto idx = [&](const Step& x) { return stream_.index(x.g, x.ch, x.p); };
  std::sort(cand, cand + k, [&](const Step& a, const Step& b) { return idx(a) < idx(b); });
  for (int i = 0; i < k; ++i) {
    if (i > 0 && idx(cand[i]) == idx(cand[i - 1])) continue;  // one transfer reached by two edges (two ranks)
    if (ready(cand[i].g, cand[i].ch, cand[i].p)) launch(cand[i].g, cand[i].ch, cand[i].p);
  }
}

void RingRun::on_event(Simulator& sim, std::uint64_t tag) {
  if (tag != kStartTag) {  // a transfer's latency is over: it is delivered
    deliver(sim, decode(tag));
    return;
  }
  if (remaining_ == 0) {  // one rank: finishes after the base latency
    if (on_done_) on_done_(sim.now());
    return;
  }
  for (std::uint32_t ch = 0; ch < c_; ++ch)  // step 0 has no dependency: every connection starts, in index order
    for (std::uint32_t p = 0; p < n_; ++p) launch(0, ch, p);
}

void RingRun::on_flow_done(Simulator& sim, std::uint64_t tag) {
  const Step s = decode(tag);
  std::uint64_t& sent = sent_[conn(s.ch, s.p)];
  if (sent != s.g) throw std::logic_error("RingRun: sends of a connection left out of order");
  sent = s.g + 1;
  release(s, false);  // the bytes have left the sender: order and buffer dependents may go
  const Time latency = delivery_latency(route(s.ch, s.p), stream_.bytes(s.g, s.ch, s.p), costs_);
  if (latency.ps > 0)
    sim.schedule(sim.now() + latency, this, tag);
  else
    deliver(sim, s);
}

void RingRun::deliver(Simulator& sim, const Step& s) {
  const std::size_t k = conn(s.ch, s.p);
  const std::uint64_t off = s.g - delivered_base_[k];
  if (off >= 64) throw std::logic_error("RingRun: more than 64 undelivered steps on one connection");
  delivered_mask_[k] |= std::uint64_t{1} << off;
  while (delivered_mask_[k] & 1u) {
    delivered_mask_[k] >>= 1;
    ++delivered_base_[k];
  }
  release(s, true);  // data dependents read what arrived
  if (--remaining_ == 0 && on_done_) on_done_(sim.now());
}

}  // namespace vgsim::sim
