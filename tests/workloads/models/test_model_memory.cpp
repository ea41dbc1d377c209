// The batch memory floor of layer-table models (model_memory.hpp). Expectations from its definition: weights 4 B per
// parameter (+2 B for the 16-bit copy under AMP), gradients 4 B, optimizer states 0 / 4 / 8 B (SGD / momentum / Adam),
// and the largest layer's forward bytes x units (the model's bytes are at 4 B per element, halved under AMP); the
// check refuses exactly the batches whose floor exceeds the device, and the largest batch it names fits.
#include <algorithm>
#include <catch2/catch.hpp>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/model_memory.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {
Model lib(const std::string& n) { return load_model(std::string(VGSIM_DATA_DIR) + "/workloads/models/" + n + ".json"); }
double largest_layer_bytes(const Model& m) {
  double b = 0;
  for (const auto& l : m.layers) b = std::max(b, l.bytes);
  return b;
}
}  // namespace

TEST_CASE("the memory floor: weights, gradients, optimizer states and the largest layer at the batch", "[memory]") {
  const Model m = lib("resnet50");
  const double p = static_cast<double>(m.total_params());
  REQUIRE(p == 25557032);  // torchvision resnet50 num_params (the model file's published total)
  TrainingSettings s;
  s.precision = Precision::FP32;
  s.optimizer = "sgd_momentum";
  const ModelMemoryFloor f = model_memory_floor(m, 256, s);
  CHECK(f.weights == Approx(4 * p));
  CHECK(f.gradients == Approx(4 * p));
  CHECK(f.optimizer == Approx(4 * p));
  CHECK(f.largest_layer == Approx(largest_layer_bytes(m) * 256));
  s.precision = Precision::AMP;
  s.optimizer = "adam";
  const ModelMemoryFloor a = model_memory_floor(m, 256, s);
  CHECK(a.weights == Approx(6 * p));
  CHECK(a.optimizer == Approx(8 * p));
  CHECK(a.largest_layer == Approx(largest_layer_bytes(m) * 256 / 2));
  s.optimizer = "sgd";
  CHECK(model_memory_floor(m, 256, s).optimizer == 0);
  // Inference: 16-bit weights, no gradients or optimizer.
  const ModelMemoryFloor i = model_memory_floor(m, 256, s, /*training=*/false);
  CHECK(i.weights == Approx(2 * p));
  CHECK(i.gradients == 0);
  CHECK(i.optimizer == 0);
}

TEST_CASE("a batch is refused exactly when its floor exceeds the device, and the largest one named fits", "[memory]") {
  const Model m = lib("resnet50");
  TrainingSettings s;
  s.precision = Precision::FP32;
  const double gib40 = 40.0 * (1 << 30);
  // The seed's measured configuration, batch 1024 per GPU under AMP on a 40 GB A100, is not refused.
  s.precision = Precision::AMP;
  CHECK_NOTHROW(require_batch_fits(model_memory_floor(m, 1024, s), 1024, gib40, "A100 40GB", "", "batch_per_gpu"));
  s.precision = Precision::FP32;
  std::string msg;
  try {
    require_batch_fits(model_memory_floor(m, 1e6, s), 1e6, gib40, "A100 40GB", "f.json", "batch_per_gpu");
  } catch (const InputError& e) {
    msg = e.what();
  }
  REQUIRE_THAT(msg, Catch::Contains("f.json") && Catch::Contains("batch_per_gpu") && Catch::Contains("A100 40GB"));
  const auto at = msg.find("tokens: ");
  REQUIRE(at != std::string::npos);
  const double largest = std::stod(msg.substr(at + 8));
  CHECK(model_memory_floor(m, largest, s).total() <= gib40);
  CHECK(model_memory_floor(m, largest + 1, s).total() > gib40);
}
