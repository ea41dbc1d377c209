// Streamed ring execution (see ring_run.hpp).
#include "ring_run.hpp"

#include <stdexcept>
#include <utility>

namespace vgsim::sim {

RingRun::RingRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
                 const StepCosts& costs, Fabric& fabric, bool fold)
    : CursorRun(costs, fabric),
      stream_(header),
      n_(header.ranks),
      c_(header.channels),
      buffer_reads_data_(header.ranks == 2) {
  // (the generator refuses more sends as an input error; ranks and channels are far below their fields)
  if (n_ >= (1u << 27) || c_ > 64 || stream_.sends() > coll::RingStream::kMaxSends)
    throw std::invalid_argument("RingRun: 2^27 ranks, more than 64 channels or 2^31 sends do not fit an event tag");
  conns_.assign(static_cast<std::size_t>(c_) * n_, ConnectionCursor{});
  for (std::uint32_t ch = 0; ch < c_; ++ch) {
    const auto& map = channel_gpus[ch % channel_gpus.size()];
    for (std::uint32_t p = 0; p < n_; ++p)
      conns_[conn(ch, p)].route = &fabric_.route(map[stream_.rank_at(p)], map[stream_.rank_at(stream_.next(p))]);
  }
  if (!fold || c_ == 1) {
    for (std::uint32_t ch = 0; ch < c_; ++ch) runs_.push_back(ch);
    return;
  }
  runs_ = ChannelFold::representatives(channel_gpus, c_, 0);
  fold_.emplace(fabric_, conns_, n_, runs_);
}

bool RingRun::ready(std::uint64_t u, std::uint32_t ch, std::uint32_t p) const {
  if (stream_.has_order_dep(u) && conns_[conn(ch, p)].sent < u) return false;  // (b) previous send left
  const std::uint64_t ua = stream_.data_dep_send(u);                           // (a) data arrived
  if (ua != coll::RingStream::kNone && !conns_[conn(ch, stream_.prev(p))].delivered(ua)) return false;
  const std::uint64_t uc = stream_.buffer_dep_send(u);  // (c) receiver's room
  if (uc == coll::RingStream::kNone) return true;
  const ConnectionCursor& c = conns_[conn(ch, stream_.next(p))];
  return buffer_reads_data_ ? c.delivered(uc) : c.sent > uc;
}

void RingRun::launch(std::uint64_t u, std::uint32_t ch, std::uint32_t p) {
  // The same flow CollectiveRun::launch starts for this transfer (a ring has no NVSwitch legs).
  fabric_.simulator().start_flow(step_flow(*conns_[conn(ch, p)].route, stream_.bytes(u, ch, p), costs_), this,
                                 tag_of(Step{u, ch, p}));
}

void RingRun::release(const Step& s, bool delivered_stage) {
  // The reverse edges of (u, ch, p) (ring_stream.hpp, S slices, room R = slots x S): (b) -> (u+1, ch, p) and
  // (c) -> (u+R-S, ch, p-1) wait for the bytes to leave, (a) -> (u+S, ch, p+1) for delivery; with two ranks (c)
  // reads the data too. At most two per stage: (b) or (a), and (c) when its stage is this one.
  Step cand[2];
  int k = 0;
  const std::uint64_t U = stream_.sends(), S = stream_.slices();
  if (!delivered_stage && s.u + 1 < U) cand[k++] = {s.u + 1, s.ch, s.p};
  if (delivered_stage && s.u + S < U && stream_.data_dep_send(s.u + S) == s.u)
    cand[k++] = {s.u + S, s.ch, stream_.next(s.p)};
  if (delivered_stage == buffer_reads_data_) {
    const std::uint64_t ub = s.u + stream_.room() - S;
    if (ub < U && stream_.buffer_dep_send(ub) == s.u) cand[k++] = {ub, s.ch, stream_.prev(s.p)};
  }
  // in ascending transfer index, as the DAG executor releases them (tags order like indices); with two ranks one
  // transfer can be reached by two edges, and launches once
  if (k == 2 && tag_of(cand[1]) <= tag_of(cand[0])) {
    if (tag_of(cand[1]) == tag_of(cand[0])) k = 1;
    std::swap(cand[0], cand[1]);
  }
  for (int i = 0; i < k; ++i)
    if (ready(cand[i].u, cand[i].ch, cand[i].p)) launch(cand[i].u, cand[i].ch, cand[i].p);
}

}  // namespace vgsim::sim
