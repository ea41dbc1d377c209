// Fuzz harness: JSONL measurement files (calibrate::parse_jsonl). Accepted records must round-trip through JSONL
// unchanged. Bad input must throw InputError or UnitError only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "fuzz_jsonl_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  std::vector<calibrate::Measurement> recs;
  if (fuzz::accepts([&] { recs = calibrate::parse_jsonl(fuzz::as_text(data, size), "fuzz.jsonl"); }))
    fuzz::check_jsonl_roundtrip(recs);
  return 0;
}
