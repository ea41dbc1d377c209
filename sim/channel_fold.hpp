// Channel fold (opt-in, inexact; CommOptions::fold_channels): a streamed ring or tree simulates only its
// representative channels (a ring: channel 0; a tree: the first channel of each of its two trees), each flow standing
// for the channels that behave like it. A resource's capacity as the representatives see it is divided by D =
// (connections of all channels on it) / (connections of the representatives on it), so a representative flow gets what
// each of D equal flows would (max-min with D equal members splits C into C/D each). Exact in real arithmetic where the
// fabric maps channels onto one another (every connection of a channel carries the same bytes, and each other channel's
// connections sit on resources that a relabelling of the hardware makes the representatives'); elsewhere (ECMP
// spreading channels unevenly, a resource one channel crosses and the representatives do not) an approximation:
// docs/BENCHMARKS.md measures its error against the full simulation. Cuts flows and events by channels / reps. Private
// to sim/.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "vgsim/sim/fabric.hpp"

namespace vgsim::sim {

class ChannelFold {
 public:
  // routes: every connection's route (nullptr: no connection), channel-major, per_channel connections per channel;
  // reps: the representative channels. Folded routes go through Fabric::scaled_resource.
  ChannelFold(Fabric& fabric, const std::vector<const Route*>& routes, std::size_t per_channel,
              const std::vector<std::uint32_t>& reps);
  // Connection i's route as the folded run uses it: a representative's folded route, nullptr for any other channel
  // (which the folded run never starts).
  const Route* route(std::size_t i) const { return folded_[i]; }

 private:
  std::deque<Route> owned_;  // one folded route per distinct original route (stable addresses)
  std::vector<const Route*> folded_;
};

}  // namespace vgsim::sim
