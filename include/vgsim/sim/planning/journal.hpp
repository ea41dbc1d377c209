// The sweep's write-ahead log, <out>.journal: every finished point is appended as one framed, checksummed record
// before the final CSV exists, so an interrupted sweep (Ctrl-C, SIGKILL, a crash, a power cut) resumes exactly.
//
// Format (text, one record per line; documented in docs/ARCHITECTURE.md "Sweep journal"):
//   vgsim-sweep-journal 2\n                          first line: magic and format version
//   H <bytes> <crc32> <the plan's CSV header line>\n  the plan the records belong to (resume checks it)
//   K <bytes> <crc32> <run key>\n                     what else changes a result: fidelity, catalog and preset data,
//                                                     vgsim version (SweepOptions::run_key; resume refuses another)
//   R <bytes> <crc32> <PointResult as JSON>\n         one per finished point (point_result_json.hpp: full precision)
// <bytes> is the payload's length in decimal and <crc32> its CRC-32 (IEEE 802.3, as zlib) in 8 lowercase hex digits.
// Each record is one write() on an O_APPEND descriptor, so records of concurrent threads never interleave. Records
// are fsynced in groups (at most kJournalSyncInterval apart, and on close): a killed process loses nothing it wrote
// (the kernel keeps it); a power cut loses at most the last interval's points, which then run again.
// Reading accepts a record only if its frame, length, checksum and JSON are all intact; any other line (a torn tail,
// a flipped byte) is dropped and counted, and its point runs again.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "vgsim/sim/planning/point_runner.hpp"

namespace vgsim::sim::planning {

inline constexpr std::chrono::milliseconds kJournalSyncInterval{500};

// CRC-32 (IEEE 802.3 polynomial, reflected, as zlib's crc32()): crc32("123456789") == 0xcbf43926.
std::uint32_t crc32(const std::string& bytes);

// One framed line "<tag> <bytes> <crc32> <payload>\n".
std::string journal_frame(char tag, const std::string& payload);

// A whole journal holding `results` (magic, header, run key, one record each): what a resume rewrites before
// appending.
std::string journal_text(const std::string& csv_header, const std::string& run_key,
                         const std::vector<PointResult>& results);

class SweepJournal {
 public:
  // Opens `path` for appending. fresh: truncates it and writes the magic and header records (and fsyncs the file and
  // its folder); otherwise appends to a journal read_journal has accepted. Throws InputError when it cannot.
  SweepJournal(std::string path, const std::string& csv_header, const std::string& run_key, bool fresh);
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;
  void append(const PointResult& r);  // thread-safe only under the caller's lock (the sweep holds one)
  void close();                       // fsync and close; idempotent

 private:
  void sync();
  std::string path_;
  int fd_ = -1;
  std::chrono::steady_clock::time_point last_sync_;
};

struct JournalContents {
  std::map<std::string, PointResult> results;  // by point id (a later record of the same id wins)
  std::size_t dropped = 0;                     // damaged or torn lines skipped
  std::string first_problem;                   // what was wrong with the first of them ("line 7: checksum ...")
};

// Reads a journal written for `csv_header` and `run_key`. A missing file is an empty journal. A file that is not a
// vgsim journal (or one of format 1), or whose plan header or run key differs, is an InputError (resume must not
// mix plans, fidelities, data or versions).
JournalContents read_journal(const std::string& path, const std::string& csv_header, const std::string& run_key);

}  // namespace vgsim::sim::planning
