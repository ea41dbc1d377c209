// Layering probe (must NOT compile): the simulation library sits below calibration and cannot see its headers.
#include "vgsim/calibrate/measurement.hpp"

int layering_sim_calibrate() { return 0; }
