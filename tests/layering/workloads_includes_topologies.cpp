// Layering probe (must NOT compile): workloads (models, collective schedules) are independent of topologies.
#include "vgsim/topologies/cluster.hpp"

int layering_workloads_topologies() { return 0; }
