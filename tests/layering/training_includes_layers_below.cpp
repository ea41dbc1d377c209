// Layering control: a training file including the layers below it (network, virtualization primitives) builds, so
// the sim-layer refusals next to it are the layering and not the staging of the sim/<layer> include roots.
#include "vgsim/sim/fabric.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

int layering_training_control() { return static_cast<int>(vgsim::sim::virt::VgpuPolicy::BestEffort); }
