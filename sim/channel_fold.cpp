// Folded routes of a channel fold (see channel_fold.hpp).
#include "channel_fold.hpp"

namespace vgsim::sim {

ChannelFold::ChannelFold(Fabric& fabric, std::vector<ConnectionCursor>& conns, std::size_t per_channel,
                         const std::vector<std::uint32_t>& reps) {
  std::vector<bool> rep(conns.size(), false);
  for (const std::uint32_t ch : reps)
    for (std::size_t i = 0; i < per_channel; ++i) rep.at(ch * per_channel + i) = true;
  // Connections per resource: all channels', and the representatives'. Counts, not bytes: a ring's or a tree's
  // connections of one call carry the same bytes per step (up to the one byte of an uneven split).
  std::unordered_map<ResourceId, std::pair<std::uint64_t, std::uint64_t>> count;  // resource -> (all, reps)
  for (std::size_t i = 0; i < conns.size(); ++i)
    if (conns[i].route)
      for (const ResourceId r : conns[i].route->resources) {
        auto& c = count[r];
        ++c.first;
        if (rep[i]) ++c.second;
      }
  std::unordered_map<const Route*, const Route*> done;
  for (std::size_t i = 0; i < conns.size(); ++i) {
    const Route* r = conns[i].route;
    if (!r || !rep[i]) {
      conns[i].route = nullptr;
      continue;
    }
    auto it = done.find(r);
    if (it == done.end()) {
      Route f = *r;  // (its bottleneck stays the unfolded path's: the executors read resources and latency only)
      for (ResourceId& id : f.resources) {
        const auto& c = count.at(id);
        id = fabric.scaled_resource(id, static_cast<double>(c.first) / static_cast<double>(c.second));
      }
      it = done.emplace(r, &owned_.emplace_back(std::move(f))).first;
    }
    conns[i].route = it->second;
  }
}

std::vector<std::uint32_t> ChannelFold::representatives(const std::vector<std::vector<std::uint32_t>>& channel_gpus,
                                                        std::uint32_t channels, std::uint32_t block) {
  auto map = [&](std::uint32_t ch) -> const std::vector<std::uint32_t>& {
    return channel_gpus[ch % channel_gpus.size()];
  };
  std::vector<std::uint32_t> runs;  // the first channel of each run of one map (within a block)
  for (std::uint32_t ch = 0; ch < channels; ++ch)
    if (ch == 0 || ch == block || map(ch) != map(runs.back())) runs.push_back(ch);
  if (runs.size() < channels) return runs;
  std::vector<std::uint32_t> blocks{0};  // every channel its own map: one per block
  if (block > 0 && block < channels) blocks.push_back(block);
  return blocks;
}

}  // namespace vgsim::sim
