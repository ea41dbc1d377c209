// A DL model as the simulator sees it: ordered layers (forward order) with parameter count, forward FLOPs and
// activation bytes per work unit (a sample, or a token for sequence models). Loaded from workloads/models/*.json
// through the validating JsonReader; it is not a network definition (no shapes, no execution).
// Units: params in elements, fwd_flops in FLOP per unit (= 2 x MACs), bytes in bytes per unit at 4 B/element.
// Invariant: layers_ are expanded (group repeats unrolled), in forward order, and every count is >= 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::models {

// What one unit of work is: an image (CNNs) or a token (sequence models; a sample is tokens_per_sample tokens).
enum class WorkUnit { Sample, Token };
const char* to_string(WorkUnit u);

struct Layer {
  std::string name;
  std::int64_t params = 0;         // parameter elements (gradient elements)
  double fwd_flops = 0.0;          // forward FLOP per unit (conv/linear/attention matmuls; 2 x MACs)
  double bytes = 0.0;              // activation bytes read+written per unit in forward, at 4 B/element (estimate)
  double elementwise_bytes = 0.0;  // the part of `bytes` moved by memory-bound kernels (BN, activations, adds,
                                   // pooling, softmax, LN): these run after the matmul, so their time adds to it
  double winograd_flops = 0.0;     // the part of fwd_flops in 3x3 stride-1 dense convolutions (Winograd-eligible)
  // elementwise_bytes when BN, ReLU and the residual add run as separate kernels (no cuDNN-style BN+ReLU(+add)
  // fusion: MKL-DNN v0.x under PaddlePaddle v1 / TF 1.x MKL); the CPU compute model's count. Default:
  // elementwise_bytes.
  double unfused_elementwise_bytes = 0.0;
  double bwd_ratio = 2.0;           // backward / forward, for FLOPs and activation bytes (workloads.md B7: ~2)
  bool sparse = false;              // embedding lookup: TF-style sparse gradient (IndexedSlices) under Horovod
  std::int64_t embedding_rows = 0;  // rows of the embedding table when sparse (row width = params / rows)
};

// The published figure the file's totals are checked against (tests/workloads/models).
struct PublishedTotals {
  std::optional<std::int64_t> params;
  std::optional<double> fwd_gmacs;  // per unit
  bool approximate = false;         // the reference says "~" or [verify]
  std::string source;
};

struct Model {
  std::string name;
  std::string source;
  std::string input;  // what one sample is
  std::string file;   // where it was loaded from ("" when parsed from text)
  WorkUnit unit = WorkUnit::Sample;
  std::int64_t tokens_per_sample = 1;  // 1 for sample models
  int param_dtype_bytes = 4;
  int grad_dtype_bytes = 4;                // gradient element size under fp32 training (DDP/Horovod default, B7)
  std::optional<double> saturation_batch;  // units that fill a 108-SM GPU (compute_model.hpp), when the file says
  std::optional<double> eff_compute;       // per-model overrides of the compute-model efficiencies
  std::optional<double> eff_memory;
  PublishedTotals published;
  std::vector<Layer> layers;  // forward order, expanded

  std::int64_t total_params() const;
  double fwd_flops_per_unit() const;  // sum over layers
  double fwd_macs_per_unit() const { return fwd_flops_per_unit() / 2.0; }
  Bytes grad_bytes_fp32() const { return total_params() * 4; }
};

// Parses a model document. Errors are InputError naming `file` and the JSON path.
Model parse_model(const Json& j, const std::string& file);

// Folder holding the model library: $VGSIM_DATA_DIR/workloads/models if the environment variable is set, else the
// source tree's workloads/models (compile definition set by workloads/models/sources.cmake).
std::string models_dir();
// Names (file stems) of the models in models_dir(), sorted.
std::vector<std::string> list_models();
// Loads a model by library name ("resnet50"; case, '-' and '_' are ignored: "ResNet-50" works) or by path (anything
// containing '/' or ending in ".json"). An unknown name throws InputError listing the models, with a did-you-mean.
Model load_model(const std::string& name_or_path);

}  // namespace vgsim::models
