// Layering probe (must NOT compile): the network layer (fabric, collectives, communicator) sits below training; its
// headers share include/vgsim/sim with the layers' folders, which its include root leaves out.
#include "vgsim/sim/training/report.hpp"

int layering_network_training() { return 0; }
