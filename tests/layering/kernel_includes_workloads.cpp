// Layering probe (must NOT compile): the kernel is the ground floor and cannot see a workloads header.
#include "vgsim/workloads/models/model.hpp"

int layering_kernel_workloads() { return 0; }
