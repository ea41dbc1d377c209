// Streamed tree allreduce execution (see tree_run.hpp).
#include "tree_run.hpp"

#include <stdexcept>

namespace vgsim::sim {

TreeRun::TreeRun(const coll::CollectiveSchedule& header, const std::vector<std::vector<std::uint32_t>>& channel_gpus,
                 const StepCosts& costs, Fabric& fabric, bool fold)
    : CursorRun(costs, fabric), stream_(header) {
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
  const std::uint32_t c = stream_.channels();
  if (!fold || c == 1) {
    for (std::uint32_t ch = 0; ch < c; ++ch) runs_.push_back(ch);
    return;
  }
  runs_ = ChannelFold::representatives(channel_gpus, c, c / 2);  // TreeStream::tree: below c / 2 the first tree
  fold_.emplace(fabric_, conns_, std::size_t{2} * n, runs_);
}

void TreeRun::launch(const Step& s) {
  // The same flow CollectiveRun::launch starts for this transfer (a tree has no NVSwitch legs).
  fabric_.simulator().start_flow(step_flow(*conns_[conn(s)].route, stream_.bytes(s.l, s.ch), costs_), this, tag_of(s));
}

}  // namespace vgsim::sim
