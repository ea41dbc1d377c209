// One data-parallel training job at a sweep fidelity (plan.hpp's Fidelity): the step engine, the engine with the
// channel fold, or the closed forms (analytical.hpp; where they do not apply, the step engine). Shared by the sweep's
// point runner and compare, so both run a point the same way.
#pragma once

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::planning {

struct FidelityStudy {
  training::TrainingStudy study;
  Fidelity used = Fidelity::Step;  // what ran (Analytical falls back to Step where unsupported)
};

FidelityStudy simulate_at(const training::TrainingJob& job, Fidelity fidelity);

}  // namespace vgsim::sim::planning
