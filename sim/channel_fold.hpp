// Channel fold (opt-in, an approximation; CommOptions::fold_channels): a streamed ring or tree simulates only
// representative channels, each flow standing for the channels that behave like it. A resource's capacity as the
// representatives see it is divided by D = (connections of all channels on it) / (connections of the representatives
// on it), so a representative flow gets what each of D equal flows busy at once would (max-min splits C into C/D).
// Representatives (representatives()): where consecutive channels share a rank->GPU map (more channels than GPUs per
// node; a tree's two halves kept apart), the first of each run, whose duplicates run the same flows on the same
// routes; where every channel has its own map, the first channel of each block (a ring: channel 0; a tree: one per
// tree), which stands for the others only where a relabelling of the hardware maps them onto it.
// What it leaves out: channels drifting apart. The full simulation's channels start in lockstep, but lockstep is not
// stable there (a picosecond of rounding grows step by step until one channel's transfers fill another's latency
// gaps), and where channels differ (ECMP spreading them over spines unevenly, a GPU whose role in a tree changes
// with the channel) they drift by construction; the fold keeps every represented channel in lockstep, so it errs
// slow (in every case measured), by about the share of time links sit idle in latency gaps. docs/BENCHMARKS.md measures
// the error against the full simulation. Cuts flows and events by channels / representatives. Private to sim/.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "connection_cursor.hpp"
#include "vgsim/sim/fabric.hpp"

namespace vgsim::sim {

class ChannelFold {
 public:
  // conns: every connection of an executor (route nullptr: no connection), channel-major, per_channel per channel;
  // reps: the representative channels. Rewrites each representative's route to its folded route (resources from
  // Fabric::scaled_resource) and every other channel's to nullptr (the folded run never starts them).
  ChannelFold(Fabric& fabric, std::vector<ConnectionCursor>& conns, std::size_t per_channel,
              const std::vector<std::uint32_t>& reps);

  // The representative channels of `channels` channels (channel c maps through channel_gpus[c % size]), ascending;
  // `block` > 0 starts a block at that channel that no run crosses (a tree's second half).
  static std::vector<std::uint32_t> representatives(const std::vector<std::vector<std::uint32_t>>& channel_gpus,
                                                    std::uint32_t channels, std::uint32_t block);

 private:
  std::deque<Route> owned_;  // one folded route per distinct original route (stable addresses)
};

}  // namespace vgsim::sim
