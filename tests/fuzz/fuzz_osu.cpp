// Fuzz harness: OSU micro-benchmark logs (calibrate::import_osu_text), once under a file name that states the
// algorithm and node count (as data/measured/osu-openmpi/ names them) and once under a plain name with the node
// count given as a hint. Accepted records must round-trip through JSONL. Bad input must throw InputError or UnitError
// only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "fuzz_jsonl_check.hpp"
#include "vgsim/calibrate/osu_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  const std::string text = fuzz::as_text(data, size);
  std::vector<calibrate::Measurement> recs;
  if (fuzz::accepts([&] { recs = calibrate::import_osu_text(text, "allreduce-100g-2cpu-algo4-step1k.txt"); }))
    fuzz::check_jsonl_roundtrip(recs);
  calibrate::ImportHints h;
  h.nnodes = 4;
  if (fuzz::accepts([&] { recs = calibrate::import_osu_text(text, "osu.txt", h); })) fuzz::check_jsonl_roundtrip(recs);
  return 0;
}
