// nccl-tests style table and JSON rows (see include/vgsim/sim/nccl_tests_report.hpp). Column formats follow
// nccl-tests src/util.cu (writeResultHeader / writeBenchmarkLineBody) and its time formatting.
#include "vgsim/sim/nccl_tests_report.hpp"

#include <cstdio>

namespace vgsim::sim {

namespace {
std::string time_str(double us) {
  char buf[32];
  if (us >= 10000.0)
    std::snprintf(buf, sizeof buf, "%7.0f", us);
  else if (us >= 100.0)
    std::snprintf(buf, sizeof buf, "%7.1f", us);
  else
    std::snprintf(buf, sizeof buf, "%7.2f", us);
  return buf;
}

double avg_busbw(const std::vector<NcclTestsRow>& rows) {
  double s = 0;
  for (const auto& r : rows) s += r.busbw_GBps;
  return rows.empty() ? 0.0 : s / static_cast<double>(rows.size());
}
}  // namespace

void write_nccl_tests_head(std::ostream& out, const NcclTestsHeader& header) {
  out << "# " << header.title << "\n";
  for (const auto& n : header.notes) out << "# " << n << "\n";
  out << "#\n";
  out << "#                                                              out-of-place                       in-place   "
         "       \n";
  out << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n";
  out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)       \n";
}

void write_nccl_tests_row(std::ostream& out, const NcclTestsRow& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%12lld  %12lld  %8s  %6s  %6d", static_cast<long long>(r.size),
                static_cast<long long>(r.count), r.type.c_str(), r.redop.c_str(), r.root);
  out << buf;
  const std::string wrong = r.wrong >= 0 ? std::to_string(r.wrong) : "N/A";
  for (int g = 0; g < 2; ++g) {
    if (g == 1 && !r.in_place)
      std::snprintf(buf, sizeof buf, "  %7s  %6s  %6s  %5s", "N/A", "N/A", "N/A", "N/A");
    else
      std::snprintf(buf, sizeof buf, "  %7s  %6.2f  %6.2f  %5s", time_str(r.time.us()).c_str(), r.algbw_GBps,
                    r.busbw_GBps, wrong.c_str());
    out << buf;
  }
  out << "\n";
}

void write_nccl_tests_tail(std::ostream& out, const std::vector<NcclTestsRow>& rows) {
  char buf[256];
  out << "# Out of bounds values : 0 OK\n";
  std::snprintf(buf, sizeof buf, "# Avg bus bandwidth    : %g \n", avg_busbw(rows));
  out << buf << "#\n";
}

void write_nccl_tests_table(std::ostream& out, const NcclTestsHeader& header, const std::vector<NcclTestsRow>& rows) {
  write_nccl_tests_head(out, header);
  for (const auto& r : rows) write_nccl_tests_row(out, r);
  write_nccl_tests_tail(out, rows);
}

Json nccl_tests_json(const NcclTestsHeader& header, const std::vector<NcclTestsRow>& rows) {
  Json j;
  j["title"] = header.title;
  j["notes"] = header.notes;
  Json arr = Json::array();
  for (const auto& r : rows) {
    arr.push_back(Json{{"size_bytes", r.size},
                       {"count", r.count},
                       {"type", r.type},
                       {"redop", r.redop},
                       {"root", r.root},
                       {"time_us", r.time.us()},
                       {"algbw_GBps", r.algbw_GBps},
                       {"busbw_GBps", r.busbw_GBps},
                       {"algo", r.algo},
                       {"proto", r.proto},
                       {"channels", r.channels}});
  }
  j["rows"] = std::move(arr);
  j["avg_busbw_GBps"] = avg_busbw(rows);
  return j;
}

}  // namespace vgsim::sim
