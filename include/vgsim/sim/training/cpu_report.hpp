// Reports of a CPU-worker training job (cpu_training_run.hpp): the text summary `vgsim train` prints (throughput in
// the model's unit, per-rank compute, the collectives with their Open MPI algorithm, the scaling table over node
// counts in both sparse-gradient modes, every parameter with its source) and the same as JSON (--json).
#pragma once

#include <ostream>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/training/cpu_training_run.hpp"

namespace vgsim::sim::training {

void write_cpu_training_summary(std::ostream& os, const CpuTrainingJob& job, const CpuTrainingResult& r,
                                const std::vector<CpuScalingRow>& scaling);
Json cpu_training_json(const CpuTrainingJob& job, const CpuTrainingResult& r,
                       const std::vector<CpuScalingRow>& scaling);

}  // namespace vgsim::sim::training
