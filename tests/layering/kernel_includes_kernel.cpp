// Layering control: a kernel file including a kernel header builds (so the refusals next to it are the layering).
#include "vgsim/kernel/units.hpp"

int layering_kernel_control() { return static_cast<int>(vgsim::Time::from_us(1).ps > 0); }
