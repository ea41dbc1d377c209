// The term that limits a training iteration (see include/vgsim/sim/training/bottleneck.hpp).
#include "vgsim/sim/training/bottleneck.hpp"

#include <algorithm>
#include <cstdio>

namespace vgsim::sim::training {

IterationBottleneck iteration_bottleneck(const TrainingResult& r) {
  IterationBottleneck b;
  const double iteration = static_cast<double>(r.iteration_time.ps);
  if (iteration <= 0) return b;
  auto consider = [&](const std::string& what, Time t) {
    const double share = static_cast<double>(t.ps) / iteration;
    if (share > b.share) b.what = what, b.share = share;  // ties keep the earlier term (compute first)
  };
  consider("compute", r.compute_time);
  if (r.exposure.empty()) {
    consider("communication", r.exposed_communication);
  } else {
    for (const auto& c : r.exposure)
      if (c.name != "interaction") consider(c.name, c.time);  // not a cause: what the causes do together
  }
  b.share = std::clamp(b.share, 0.0, 1.0);
  if (!r.resources.empty()) {  // sorted by utilisation over the iteration (desc): the same order during comm
    const ResourceUse& u = r.resources.front();
    b.busiest = u.name;
    const double busy_s = r.communication_busy.s();
    if (busy_s > 0 && u.capacity_bytes_per_s > 0)
      b.busiest_utilisation_during_comm = std::min(1.0, u.bytes / (u.capacity_bytes_per_s * busy_s));
  }
  return b;
}

std::string describe(const IterationBottleneck& b) {
  if (b.what.empty()) return "-";
  char s[64];
  std::snprintf(s, sizeof s, "%s %.1f %%", b.what.c_str(), 100 * b.share);
  std::string out = s;
  if (!b.busiest.empty()) {
    std::snprintf(s, sizeof s, " %.0f %%", 100 * b.busiest_utilisation_during_comm);
    out += " (busiest: " + b.busiest + s + " while communicating)";
  }
  return out;
}

}  // namespace vgsim::sim::training
