// The memory floor of a layer-table model at a batch (see include/vgsim/workloads/models/model_memory.hpp).
#include "vgsim/workloads/models/model_memory.hpp"

#include <cmath>
#include <cstdio>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::models {

namespace {
bool sixteen_bit(Precision p) { return p == Precision::AMP || p == Precision::FP16 || p == Precision::BF16; }

// fp32 optimizer states per parameter: SGD 0, SGD with momentum 1 (the momentum buffer), Adam / AdamW 2 (m and v).
double optimizer_states(const std::string& optimizer) {
  if (optimizer == "sgd") return 0;
  if (optimizer == "adam" || optimizer == "adamw") return 2;
  return 1;  // sgd_momentum (the default)
}

std::string gib(double b) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f GiB", b / (1024.0 * 1024.0 * 1024.0));
  return s;
}
}  // namespace

ModelMemoryFloor model_memory_floor(const Model& m, double units, const TrainingSettings& s, bool training) {
  ModelMemoryFloor f;
  const double params = static_cast<double>(m.total_params());
  const bool half = sixteen_bit(s.precision);
  f.weights = training ? params * (4.0 + (half ? 2.0 : 0.0)) : params * (half ? 2.0 : 4.0);
  f.gradients = training ? params * 4.0 : 0.0;
  f.optimizer = training ? params * 4.0 * optimizer_states(s.optimizer) : 0.0;
  const double element_scale = half ? 0.5 : 1.0;  // the model's bytes are at 4 B per element
  for (const Layer& l : m.layers)
    if (l.bytes * element_scale * units > f.largest_layer) {
      f.largest_layer = l.bytes * element_scale * units;
      f.layer = l.name;
    }
  return f;
}

void require_batch_fits(const ModelMemoryFloor& f, double units, double capacity_bytes, const std::string& device,
                        const std::string& file, const std::string& where) {
  if (f.total() <= capacity_bytes) return;
  const double per_unit = units > 0 ? f.largest_layer / units : 0;
  const double room = capacity_bytes - (f.weights + f.gradients + f.optimizer);
  const std::string largest = per_unit > 0 && room > 0
                                  ? std::to_string(static_cast<long long>(std::floor(room / per_unit)))
                                  : std::string("none: the weights alone do not fit");
  throw InputError(file, where,
                   "the batch cannot fit " + device + ": even a floor of what it needs is " + gib(f.total()) +
                       " per GPU (weights " + gib(f.weights) + ", gradients " + gib(f.gradients) + ", optimizer " +
                       gib(f.optimizer) + ", and layer " + f.layer + "'s input and output for the whole batch " +
                       gib(f.largest_layer) + "), over the device's " + gib(capacity_bytes),
                   gib(f.total()),
                   "a smaller " + where +
                       " (the largest the floor allows, in samples or, for token models, tokens: " + largest + ")");
}

}  // namespace vgsim::models
