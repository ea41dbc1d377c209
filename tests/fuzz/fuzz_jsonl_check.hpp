// For the importer fuzz harnesses: records an importer (or the JSONL reader) accepted must survive the JSONL round
// trip that `calibrate import` -> `calibrate fit` makes (to_jsonl, parse_jsonl), unchanged. A failure is a defect
// (e.g. a NaN accepted by an importer becomes null and is refused later), so it aborts.
#pragma once

#include <vector>

#include "fuzz_common.hpp"
#include "vgsim/calibrate/jsonl.hpp"

namespace vgsim::fuzz {

inline void check_jsonl_roundtrip(const std::vector<calibrate::Measurement>& records) {
  const std::string text = calibrate::to_jsonl(records);
  std::vector<calibrate::Measurement> back;
  try {
    back = calibrate::parse_jsonl(text, "roundtrip.jsonl");
  } catch (const std::exception& e) {
    property_failed(std::string("accepted records do not read back from JSONL: ") + e.what());
  }
  if (back.size() != records.size()) property_failed("JSONL round trip changed the number of records");
  if (calibrate::to_jsonl(back) != text) property_failed("JSONL round trip changed the records");
}

}  // namespace vgsim::fuzz
