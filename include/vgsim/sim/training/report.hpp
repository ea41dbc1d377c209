// Reports of a simulated training job: a human summary (throughput, iteration, compute, exposed communication,
// overlap, scaling efficiency vs one GPU, per-bucket collectives, top resources) and a JSON document with the same
// figures, every iteration's collectives, per-resource utilisation (bytes / (capacity x iteration time)) and every
// parameter with its value and source. Deterministic: same inputs, byte-identical output. Not the simulation.
#pragma once

#include <ostream>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::training {

// "img/s" for sample models, "tokens/s" for token models.
std::string throughput_unit(const models::Model& m);

void write_training_summary(std::ostream& out, const TrainingJob& job, const TrainingStudy& study,
                            std::size_t top_resources = 8);
Json training_json(const TrainingJob& job, const TrainingStudy& study);

// Chrome trace event format (opens in Perfetto / chrome://tracing): {"traceEvents": [...]}, complete events (ph "X")
// with ts/dur in microseconds; pid = rank, tid 0 = compute (forward/backward per layer and micro-step, optimizer),
// tid 1 = communication (one event per collective). Ranks are symmetric, so every rank shows the same timeline.
// With Horovod tick phases, the iterations shown are those of the first phase's run (TrainingResult::iterations).
Json chrome_trace(const TrainingJob& job, const TrainingResult& result);

}  // namespace vgsim::sim::training
