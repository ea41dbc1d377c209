// Fuzz harness: Horovod timelines (calibrate::looks_like_horovod_timeline, import_horovod_timeline with one GPU per
// node as a hint, and with 2 ranks on 1 node). Accepted records must round-trip through JSONL. Bad input must throw
// InputError or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "fuzz_jsonl_check.hpp"
#include "vgsim/calibrate/horovod_timeline_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  const std::string path = fuzz::write_temp("timeline.json", data, size);
  fuzz::accepts([&] { (void)calibrate::looks_like_horovod_timeline(path); });
  std::vector<calibrate::Measurement> recs;
  calibrate::ImportHints h;
  h.gpus_per_node = 1;
  calibrate::HorovodPhaseTotals totals;
  if (fuzz::accepts([&] { recs = calibrate::import_horovod_timeline(path, h, &totals); }))
    fuzz::check_jsonl_roundtrip(recs);
  calibrate::ImportHints h2;
  h2.nranks = 2, h2.nnodes = 1;
  if (fuzz::accepts([&] { recs = calibrate::import_horovod_timeline(path, h2); })) fuzz::check_jsonl_roundtrip(recs);
  return 0;
}
