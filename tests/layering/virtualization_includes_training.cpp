// Layering probe (must NOT compile): the virtualization primitives (vGPU scheduler, assumptions) sit below training.
#include "vgsim/sim/training/job.hpp"

int layering_virtualization_training() { return 0; }
