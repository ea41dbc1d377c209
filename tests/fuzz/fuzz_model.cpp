// Fuzz harness: model files (models::load_model by path). Bad input must throw InputError or UnitError only (see
// fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "vgsim/workloads/models/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  const std::string path = fuzz::write_temp("model.json", data, size);
  fuzz::accepts([&] { (void)models::load_model(path); });
  return 0;
}
