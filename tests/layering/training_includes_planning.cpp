// Layering probe (must NOT compile): training sits below what-if planning and cannot see a planning header.
#include "vgsim/sim/planning/plan.hpp"

int layering_training_planning() { return 0; }
