// Fuzz harness: measured training throughput CSVs (calibrate::read_training_cases, as `calibrate fit-training`
// reads them). Bad input must throw InputError or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "vgsim/calibrate/training_fit.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  const std::string path = fuzz::write_temp("training.csv", data, size);
  fuzz::accepts([&] { (void)calibrate::read_training_cases(path); });
  return 0;
}
