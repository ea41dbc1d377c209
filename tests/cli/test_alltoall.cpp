// alltoall end to end: an nccl-tests alltoall_perf command line run by `vgsim collective --op alltoall` (sizes,
// per-peer counts, busbw = algbw x (n-1)/n), and `calibrate import` of a hand-made alltoall_perf log (2 x 8 A100, the
// layout nccl-tests prints: 16-byte-aligned per-peer counts, so the smallest requested sizes print as 0).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"

namespace {

using Run = vgsim::test::CliRun;
using vgsim::test::run_vgsim;

std::string tmp_path(const std::string& name) { return vgsim::test::temp_path("vgsim-a2a", name); }
struct Row {
  long long size = 0, count = 0;
  std::string type, redop;
  int root = 0;
  double time = 0, algbw = 0, busbw = 0;
};
std::vector<Row> rows_of(const std::string& table) {
  std::vector<Row> rows;
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.find_first_not_of(' ') == std::string::npos || line[line.find_first_not_of(' ')] == '#')
      continue;
    std::istringstream ls(line);
    Row r;
    if (ls >> r.size >> r.count >> r.type >> r.redop >> r.root >> r.time >> r.algbw >> r.busbw) rows.push_back(r);
  }
  return rows;
}

// A hand-made log in nccl-tests' layout (times made up along t = 28.4 us + S / 41 GB/s; algbw and busbw computed
// from the printed times as nccl-tests does, busbw = algbw x 15/16).
const char* kAlltoallLog =
    R"LOG(# mpirun -np 16 -npernode 8 -x NCCL_DEBUG=WARN ./build/alltoall_perf -b 8 -e 128M -f 2 -g 1
# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41200 on dgx-a100-01 device  0 [0x07] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid  41201 on dgx-a100-01 device  1 [0x0f] NVIDIA A100-SXM4-80GB
#  Rank  2 Group  0 Pid  41202 on dgx-a100-01 device  2 [0x47] NVIDIA A100-SXM4-80GB
#  Rank  3 Group  0 Pid  41203 on dgx-a100-01 device  3 [0x4e] NVIDIA A100-SXM4-80GB
#  Rank  4 Group  0 Pid  41204 on dgx-a100-01 device  4 [0x87] NVIDIA A100-SXM4-80GB
#  Rank  5 Group  0 Pid  41205 on dgx-a100-01 device  5 [0x90] NVIDIA A100-SXM4-80GB
#  Rank  6 Group  0 Pid  41206 on dgx-a100-01 device  6 [0xb7] NVIDIA A100-SXM4-80GB
#  Rank  7 Group  0 Pid  41207 on dgx-a100-01 device  7 [0xbd] NVIDIA A100-SXM4-80GB
#  Rank  8 Group  0 Pid  41208 on dgx-a100-02 device  0 [0x07] NVIDIA A100-SXM4-80GB
#  Rank  9 Group  0 Pid  41209 on dgx-a100-02 device  1 [0x0f] NVIDIA A100-SXM4-80GB
#  Rank 10 Group  0 Pid  41210 on dgx-a100-02 device  2 [0x47] NVIDIA A100-SXM4-80GB
#  Rank 11 Group  0 Pid  41211 on dgx-a100-02 device  3 [0x4e] NVIDIA A100-SXM4-80GB
#  Rank 12 Group  0 Pid  41212 on dgx-a100-02 device  4 [0x87] NVIDIA A100-SXM4-80GB
#  Rank 13 Group  0 Pid  41213 on dgx-a100-02 device  5 [0x90] NVIDIA A100-SXM4-80GB
#  Rank 14 Group  0 Pid  41214 on dgx-a100-02 device  6 [0xb7] NVIDIA A100-SXM4-80GB
#  Rank 15 Group  0 Pid  41215 on dgx-a100-02 device  7 [0xbd] NVIDIA A100-SXM4-80GB
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
           0             0     float    none      -1     0.77    0.00    0.00      0     0.93    0.00    0.00      0
           0             0     float    none      -1     0.77    0.00    0.00      0     0.93    0.00    0.00      0
           0             0     float    none      -1     0.77    0.00    0.00      0     0.93    0.00    0.00      0
           0             0     float    none      -1     0.77    0.00    0.00      0     0.93    0.00    0.00      0
           0             0     float    none      -1     0.77    0.00    0.00      0     0.93    0.00    0.00      0
         256             4     float    none      -1    28.41    0.01    0.01      0    28.91    0.01    0.01      0
         512             8     float    none      -1    28.41    0.02    0.02      0    28.91    0.02    0.02      0
        1024            16     float    none      -1    28.42    0.04    0.03      0    28.93    0.04    0.03      0
        2048            32     float    none      -1    28.45    0.07    0.07      0    28.95    0.07    0.07      0
        4096            64     float    none      -1    28.50    0.14    0.13      0    29.00    0.14    0.13      0
        8192           128     float    none      -1    28.60    0.29    0.27      0    29.10    0.28    0.26      0
       16384           256     float    none      -1    28.80    0.57    0.53      0    29.30    0.56    0.52      0
       32768           512     float    none      -1    29.20    1.12    1.05      0    29.71    1.10    1.03      0
       65536          1024     float    none      -1    33.10    1.98    1.86      0    33.61    1.95    1.83      0
      131072          2048     float    none      -1    34.70    3.78    3.54      0    35.23    3.72    3.49      0
      262144          4096     float    none      -1    37.89    6.92    6.49      0    38.46    6.82    6.39      0
      524288          8192     float    none      -1    44.29   11.84   11.10      0    44.91   11.67   10.94      0
     1048576         16384     float    none      -1    57.08   18.37   17.22      0    57.83   18.13   17.00      0
     2097152         32768     float    none      -1    79.55   26.36   24.72      0    80.55   26.04   24.41      0
     4194304         65536     float    none      -1    130.7   32.09   30.09      0    132.2   31.73   29.74      0
     8388608        131072     float    none      -1    233.0   36.00   33.75      0    235.5   35.62   33.39      0
    16777216        262144     float    none      -1    437.6   38.34   35.94      0    442.1   37.95   35.58      0
    33554432        524288     float    none      -1    846.8   39.62   37.15      0    855.4   39.23   36.77      0
    67108864       1048576     float    none      -1   1665.2   40.30   37.78      0   1681.8   39.90   37.41      0
   134217728       2097152     float    none      -1   3302.0   40.65   38.11      0   3334.8   40.25   37.73      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 11.1324 
#
)LOG";

}  // namespace

TEST_CASE("an nccl-tests alltoall_perf command line runs with vgsim collective --op alltoall") {
  // alltoall_perf -b 8 -e 128M -f 2 -g 1, on 2 hosts x 1 GPU (n = 2).
  const std::string json = tmp_path("a2a.txt");
  const Run r = run_vgsim("collective --cluster r750xa-2x-100gbe --op alltoall -b 8 -e 128M -f 2 -g 1");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("# vgsim collective: alltoall on ") != std::string::npos);
  const auto rows = rows_of(r.out);
  // Sizes 8 .. 128 MiB by 2 (whole per-peer counts of 4-byte floats for 2 ranks: multiples of 8 bytes): 25 rows.
  REQUIRE(rows.size() == 25);
  CHECK(rows.front().size == 8);
  CHECK(rows.back().size == 128LL * 1024 * 1024);
  for (const Row& row : rows) {
    CHECK(row.count == row.size / 4 / 2);  // per peer, as nccl-tests prints
    CHECK(row.redop == "none");
    CHECK(row.root == -1);
    CHECK(row.busbw == Approx(row.algbw * 0.5).margin(0.011));  // (n-1)/n, printed to 2 decimals
  }
  // Bandwidth-bound at 128 MiB: each direction carries S/2 over one 100 GbE port, algbw <= 2 x 12.5 GB/s.
  CHECK(rows.back().algbw <= 25.0);
  CHECK(rows.back().algbw > 20.0);
  // The table reads back through the importer (busbw checked against the alltoall factor).
  { std::ofstream(json) << r.out; }
  const std::string out = tmp_path("a2a-sim.jsonl");
  const Run imp = run_vgsim("calibrate import " + json + " --allow-simulated --out " + out);
  CHECK(imp.status == 0);
  std::filesystem::remove(json);
  std::filesystem::remove(out);
}

TEST_CASE("calibrate import reads an alltoall_perf log") {
  const std::string log = tmp_path("alltoall_perf.txt"), out = tmp_path("alltoall.jsonl");
  { std::ofstream(log) << kAlltoallLog; }
  const Run r = run_vgsim("calibrate import " + log + " --out " + out);
  REQUIRE(r.status == 0);
  std::ifstream in(out);
  std::string line;
  int records = 0, with_size = 0;
  while (std::getline(in, line)) {
    if (line.find("\"op\"") == std::string::npos) continue;
    ++records;
    CHECK(line.find("\"op\":\"alltoall\"") != std::string::npos);
    CHECK(line.find("\"nranks\":16") != std::string::npos);
    CHECK(line.find("\"nnodes\":2") != std::string::npos);
    if (line.find("\"size_bytes\":134217728") != std::string::npos) {
      ++with_size;
      CHECK(line.find("\"count\":2097152") != std::string::npos);  // per peer: 128 MiB / 4 B / 16
    }
  }
  CHECK(records == 2 * 25);  // 25 rows, out-of-place and in-place
  CHECK(with_size == 2);
  // A count that is not per peer (size = count x 4 B) is refused: the rank count or the op would be wrong.
  std::string bad = kAlltoallLog;
  const std::string row = "   134217728       2097152";
  REQUIRE(bad.find(row) != std::string::npos);
  bad.replace(bad.find(row), row.size(), "   134217728      33554432");
  { std::ofstream(log) << bad; }
  const Run b = run_vgsim("calibrate import " + log + " --out " + out);
  CHECK(b.status == 2);
  CHECK(b.out.find("size does not match count x type size x ranks") != std::string::npos);
  std::filesystem::remove(log);
  std::filesystem::remove(out);
}
