// Streamed NVLS Tree allreduce execution (see nvls_tree_run.hpp).
#include "nvls_tree_run.hpp"

#include <stdexcept>

namespace vgsim::sim {

NvlsTreeRun::NvlsTreeRun(const coll::CollectiveSchedule& header,
                         const std::vector<std::vector<std::uint32_t>>& channel_gpus, const StepCosts& costs,
                         Fabric& fabric)
    : CursorRun(costs, fabric), stream_(header) {
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
  cand_.resize(stream_.max_edges());
}

void NvlsTreeRun::launch(const Step& s) {
  // The same flow CollectiveRun::launch starts for this transfer (a switch leg at NCCL's NVLS efficiency).
  const double sw = coll::NvlsTreeStream::switch_leg(s) ? costs_.switch_efficiency : 1.0;
  const std::uint64_t c = conn(s);
  fabric_.simulator().start_flow(step_flow(*conns_[c].route, stream_.bytes(s.l, s.ch, s.k), costs_, sw), this,
                                 (std::uint64_t{s.l} << kConnBits) | c);
}

}  // namespace vgsim::sim
