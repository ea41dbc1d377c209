// Fuzz harness: nccl-tests logs (calibrate::import_nccl_tests_text), once with no hints and once with a layout and op
// given as `calibrate import --nodes 2 --gpus-per-node 4 --op allreduce --allow-simulated` would. Accepted records must
// round-trip through JSONL. Bad input must throw InputError or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "fuzz_jsonl_check.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  const std::string text = fuzz::as_text(data, size);
  std::vector<calibrate::Measurement> recs;
  if (fuzz::accepts([&] { recs = calibrate::import_nccl_tests_text(text, "fuzz_allreduce_2x4xA100.txt"); }))
    fuzz::check_jsonl_roundtrip(recs);
  calibrate::ImportHints h;
  h.nnodes = 2, h.gpus_per_node = 4, h.op = "allreduce", h.allow_simulated = true;
  if (fuzz::accepts([&] { recs = calibrate::import_nccl_tests_text(text, "fuzz.txt", h); }))
    fuzz::check_jsonl_roundtrip(recs);
  return 0;
}
