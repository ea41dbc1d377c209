// Layering probe (must NOT compile): training sits below the large-model layer and cannot see an llm header.
#include "vgsim/sim/llm/llm_job.hpp"

int layering_training_llm() { return 0; }
