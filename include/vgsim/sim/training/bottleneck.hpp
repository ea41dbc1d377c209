// What limits a training iteration. The iteration splits exactly into compute plus exposed communication, and the
// exposed part into causes (exposure.hpp: interference, framework, host_staging, socket_cpu, network); the
// bottleneck is the largest of those terms, with its share of the iteration. It is reported next to the busiest
// resource, whose utilisation is taken over the time the NCCL stream was busy (a link 3 % busy over a whole
// compute-bound iteration may be 40 % busy while communicating, and is not what limits the iteration).
#pragma once

#include <string>

#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::training {

struct IterationBottleneck {
  // "compute" or an exposure cause name; "communication" when the exposed time has no breakdown; "" when the
  // result has no iteration.
  std::string what;
  double share = 0.0;                          // that term / iteration time, in [0, 1]
  std::string busiest;                         // resource that carried the most bytes for its capacity ("" if none)
  double busiest_utilisation_during_comm = 0;  // its bytes / (capacity x communication busy time), in [0, 1]
};

IterationBottleneck iteration_bottleneck(const TrainingResult& r);

// "compute 96.2 %" / "network 41.0 % (host0/nic0/port0/rx 88 % busy while communicating)".
std::string describe(const IterationBottleneck& b);

}  // namespace vgsim::sim::training
