// A training job at a sweep fidelity (see include/vgsim/sim/planning/fidelity_run.hpp).
#include "vgsim/sim/planning/fidelity_run.hpp"

#include "vgsim/sim/planning/analytical.hpp"

namespace vgsim::sim::planning {

FidelityStudy simulate_at(const training::TrainingJob& job, Fidelity fidelity) {
  FidelityStudy out;
  if (fidelity == Fidelity::Analytical && analytical_supported(job)) {
    out.study = simulate_study_analytical(job);
    out.used = Fidelity::Analytical;
  } else if (fidelity == Fidelity::Folded) {
    training::TrainingJob folded = job;
    folded.comm.fold_channels = true;
    out.study = training::simulate_study(folded);
    out.used = Fidelity::Folded;
  } else {
    out.study = training::simulate_study(job);
  }
  return out;
}

}  // namespace vgsim::sim::planning
