// Prints simulated collective results the way nccl-tests prints measured ones (same columns, widths and footer),
// and as JSON rows with the same fields, so simulated and measured tables can be diffed and imported alike.
// The simulator does not distinguish in-place from out-of-place, so both groups carry the same simulated time, and
// #wrong is "N/A" (nothing is checked: no data moves).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::sim {

struct NcclTestsRow {
  Bytes size = 0;          // as nccl-tests counts it (allgather/reducescatter: the whole array)
  std::int64_t count = 0;  // elements
  std::string type = "float";
  std::string redop = "sum";  // "none" for allgather, broadcast, sendrecv
  int root = -1;
  Time time{0};
  double algbw_GBps = 0.0;  // size / time, GB = 1e9
  double busbw_GBps = 0.0;  // algbw x nccl-tests bus factor
  std::string algo;         // chosen algorithm and protocol (extra JSON fields)
  std::string proto;
  std::uint32_t channels = 0;
  std::int64_t wrong = -1;  // #wrong of a measured row (vgsim-probe); -1: "N/A" (a simulation checks nothing)
  bool in_place = true;     // false: the in-place group was not run (vgsim-probe), printed as N/A
};

struct NcclTestsHeader {
  std::string title;               // e.g. "vgsim collective: allreduce on r750xa-4x-100gbe, 4 nodes x 1 GPU"
  std::vector<std::string> notes;  // extra '#' lines: transports, assumptions
};

// Writes the nccl-tests style table (header, rows, "# Avg bus bandwidth" footer).
void write_nccl_tests_table(std::ostream& out, const NcclTestsHeader& header, const std::vector<NcclTestsRow>& rows);
// The same table in three parts, for streaming rows as they finish: head (title, notes, column headings), one row,
// tail (out-of-bounds line and the average bus bandwidth of all rows).
void write_nccl_tests_head(std::ostream& out, const NcclTestsHeader& header);
void write_nccl_tests_row(std::ostream& out, const NcclTestsRow& row);
void write_nccl_tests_tail(std::ostream& out, const std::vector<NcclTestsRow>& rows);
// The rows as a JSON document {"title", "notes", "rows": [...], "avg_busbw_GBps"}.
Json nccl_tests_json(const NcclTestsHeader& header, const std::vector<NcclTestsRow>& rows);

}  // namespace vgsim::sim
