// Writes measurement records as JSON lines (schema in README.md, shared with calibrate's importer). Only the writer
// rank opens the file; each record is written and flushed the moment it is taken, so a crash loses nothing already
// measured. The file is opened (truncated) only after the GPU check passed, so a GPU-less run creates no file.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace vgsim::probe {

class RecordWriter {
 public:
  // `active` false (ranks other than 0): write() does nothing.
  RecordWriter(const std::string& path, bool active);
  void write(const nlohmann::ordered_json& record);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool active_;
  std::ofstream out_;
};

// Rounds for output: 3 decimals (time_us, GB/s, TFLOP/s), so lines stay short and readable.
double round3(double v);

}  // namespace vgsim::probe
