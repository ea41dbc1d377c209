// JSON-lines record writer (see record_writer.hpp).
#include "record_writer.hpp"

#include <cmath>

#include "checked_calls.hpp"
#include "exit_codes.hpp"

namespace vgsim::probe {

RecordWriter::RecordWriter(const std::string& path, bool active) : path_(path), active_(active) {
  if (!active_) return;
  out_.open(path, std::ios::out | std::ios::trunc);
  if (!out_) fatal(kExitUsage, "cannot open output file '" + path + "' for writing");
}

void RecordWriter::write(const nlohmann::ordered_json& record) {
  if (!active_) return;
  out_ << record.dump() << '\n';
  out_.flush();
  if (!out_) fatal(kExitCallFailed, "writing to '" + path_ + "' failed (disk full?)");
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

}  // namespace vgsim::probe
