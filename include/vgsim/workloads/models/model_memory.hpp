// A lower bound on the GPU memory one rank needs to train a layer-table model (CNNs, BERT, the Transformer tables of
// workloads/models) at its micro-batch, and the check that refuses a batch whose lower bound exceeds the device: the
// weights (fp32, plus the fp16 copy under AMP / fp16 / bf16), the fp32 gradients, the optimizer's fp32 states (SGD
// none, SGD with momentum one, Adam / AdamW two per parameter) and the largest layer's forward activations (its input
// and output, the model's `bytes` per unit at 4 B per element, 2 B under 16-bit precisions) for the whole micro-batch:
// any framework holds at least those at once while that layer runs. Everything else a framework keeps (every layer's
// stored activations, workspaces, the allocator's slack) only adds, so a batch refused here cannot fit; a batch
// accepted may still not (the estimate is a floor, not a prediction). Large-model jobs use their own model
// (parallel_plan.hpp memory_per_gpu).
#pragma once

#include <cstdint>
#include <string>

#include "vgsim/workloads/models/model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::models {

struct ModelMemoryFloor {
  double weights = 0, gradients = 0, optimizer = 0, largest_layer = 0;  // bytes per GPU
  std::string layer;                                                    // the layer whose activations are largest
  double total() const { return weights + gradients + optimizer + largest_layer; }
};

// `units` = work units per rank per micro-step (samples, or tokens for token models; ComputeResult::work_per_step).
// training false (inference): weights at the precision's size and the largest layer only.
ModelMemoryFloor model_memory_floor(const Model& m, double units, const TrainingSettings& s, bool training = true);

// Throws InputError(file, where) when the floor exceeds `capacity_bytes` of `device`, naming the parts, the layer
// and the largest batch the floor allows.
void require_batch_fits(const ModelMemoryFloor& f, double units, double capacity_bytes, const std::string& device,
                        const std::string& file, const std::string& where);

}  // namespace vgsim::models
