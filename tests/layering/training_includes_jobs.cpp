// Layering probe (must NOT compile): training sits below multi-job runs, which are built on it.
#include "vgsim/sim/jobs/multi_job.hpp"

int layering_training_jobs() { return 0; }
