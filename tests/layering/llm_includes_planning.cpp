// Layering probe (must NOT compile): the large-model layer sits below what-if planning and cannot see its headers.
#include "vgsim/sim/planning/plan.hpp"

int layering_llm_planning() { return 0; }
