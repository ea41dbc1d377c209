// Tests of the nccl-tests and OSU importers on every file of data/measured (row counts read off the files), the
// busbw cross-check, header parsing of rank/node counts, the old column layout, and errors naming file and line.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/osu_import.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim::calibrate;
namespace fs = std::filesystem;

namespace {
const fs::path kData = fs::path(VGSIM_MEASURED_DIR);

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
const CollectiveMeasurement& coll(const Measurement& m) { return std::get<CollectiveMeasurement>(m); }

struct Expect {
  std::size_t records;  // table rows x groups (out-of-place + in-place)
  std::int64_t nranks, nnodes;
  ImportHints hints;
};
}  // namespace

TEST_CASE("every nccl-tests file imports with the row count read off the file", "[calibrate][import]") {
  // Rows counted in each file: sizes 2^a..2^b give b-a+1 rows, two records per row (out-of-place, in-place)
  // except the trimmed stas00 table (one group).
  ImportHints two;
  two.nranks = 2;  // nccl#1161 says "single node" and "-g 2" without "single process": the rank count is a hint
  const std::map<std::string, Expect> expect{
      {"gh-Anthony-Hoo_autodl_2x2080Ti_pcie-gen3_noP2P.txt", {3 * 28 * 2, 2, 1, {}}},         // 3 tables x 28 rows
      {"gh-CCI-MOC-roce-testing_allreduce_2x1xH100_roce400G_noGDR.txt", {13 * 2, 2, 2, {}}},  // 1G..25G step 2G
      {"gh-aws-samples-awsome-distributed-training_allreduce_2x8xA100_p4de_EFA400G.txt",
       {29 * 2, 16, 2, {}}},  // 2^3..2^31
      {"gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt",
       {32 * 2, 16, 2, {}}},                                                                              // 2^3..2^34
      {"gh-issue-NVIDIA-nccl-1161_allreduce_2xH100PCIe_nvlink-bridge.txt", {3 * 2, 2, 1, two}},           // 1G, 2G, 4G
      {"gh-lessizzmore-create-a3mega-ztan-fork_allreduce_2x8xH100_gcp-a3mega.txt", {31 * 2, 16, 2, {}}},  // 2^3..2^33
      {"gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt", {20, 8, 1, {}}},  // 2^15..2^34, one group
  };
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(kData / "nccl-tests")) {
    const std::string name = e.path().filename().string();
    INFO(name);
    REQUIRE(expect.count(name) == 1);
    const Expect& x = expect.at(name);
    const auto recs = import_nccl_tests(e.path().string(), x.hints);
    CHECK(recs.size() == x.records);
    for (const auto& r : recs) {
      const auto& c = coll(r);
      CHECK(c.nranks == x.nranks);
      CHECK(c.nnodes == x.nnodes);
      CHECK(c.nranks == c.nnodes * c.gpus_per_node);
      CHECK(c.source == name);
      CHECK(c.library == "nccl");
      // busbw = size/time x factor(op, n) within the printed rounding: half a unit of the 2nd decimal (0.005) plus
      // the time's rounding, which is at most 5e-4 relative (times are printed with >= 4 significant digits).
      const double computed = algbw_GBps(c.size_bytes, c.time_us) * busbw_factor(c.op, c.nranks);
      CHECK(std::fabs(c.busbw_GBps - computed) <= 0.005 + 5.05e-4 * computed + 1e-9);
    }
    ++files;
  }
  CHECK(files == expect.size());
}

TEST_CASE("nccl-tests tables: values, groups, several tables per file, placeholders", "[calibrate][import]") {
  const auto recs =
      import_nccl_tests((kData / "nccl-tests" / "gh-Anthony-Hoo_autodl_2x2080Ti_pcie-gen3_noP2P.txt").string());
  // First row: "8  2  float  sum  -1  12.25 0.00 0.00 0  12.00 0.00 0.00 0".
  const auto& a = coll(recs[0]);
  const auto& b = coll(recs[1]);
  CHECK(a.op == "allreduce");
  CHECK(a.size_bytes == 8);
  CHECK(a.count == 2);
  CHECK(a.time_us == 12.25);
  CHECK_FALSE(a.in_place);
  CHECK(b.in_place);
  CHECK(b.time_us == 12.00);
  CHECK(a.wrong == std::optional<std::int64_t>(0));
  CHECK(a.algo == "default");
  std::map<std::string, int> per_op;
  for (const auto& r : recs) ++per_op[coll(r).op];
  CHECK(per_op["allreduce"] == 56);
  CHECK(per_op["allgather"] == 56);
  CHECK(per_op["broadcast"] == 56);
  for (const auto& r : recs) {
    const auto& c = coll(r);
    if (c.op == "broadcast") CHECK(c.root == 0);
    // allgather: size is the whole gathered array = count x 4 B x 2 ranks.
    if (c.op == "allgather") CHECK(c.size_bytes == c.count * 4 * 2);
    if (c.op == "allgather") CHECK(c.redop == "none");
  }
  // NCCL_ALGO=RING in the CCI-MOC header.
  const auto roce = import_nccl_tests(
      (kData / "nccl-tests" / "gh-CCI-MOC-roce-testing_allreduce_2x1xH100_roce400G_noGDR.txt").string());
  CHECK(coll(roce[0]).algo == "ring");
  // "(cut)" in the last in-place row of nccl#1161: busbw recomputed = algbw for n = 2, #wrong unknown.
  ImportHints two;
  two.nranks = 2;
  const auto pcie = import_nccl_tests(
      (kData / "nccl-tests" / "gh-issue-NVIDIA-nccl-1161_allreduce_2xH100PCIe_nvlink-bridge.txt").string(), two);
  const auto& last = coll(pcie.back());
  CHECK(last.in_place);
  CHECK_FALSE(last.wrong.has_value());
  CHECK(last.busbw_GBps == Approx(4294967296.0 / 36917.0 * 1e-3).epsilon(1e-12));
  // stas00: underscores in sizes ("1048_576" = 1,048,576 B), float assumed: count = size / 4.
  const auto stas =
      import_nccl_tests((kData / "nccl-tests" / "gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt").string());
  CHECK(coll(stas[5]).size_bytes == 1048576);
  CHECK(coll(stas[5]).count == 262144);
  CHECK(coll(stas[5]).time_us == 101.9);
}

TEST_CASE("rank and node counts: header statements, hints, conflicts", "[calibrate][import]") {
  // mpirun -np 16 -npernode 8 ... -g 1 -> 16 ranks on 2 nodes of 8.
  auto L = stated_layout({"# command: mpirun -np 16 -npernode 8 all_reduce_perf -b 8 -e 8G -f 2 -g 1"}, "x.txt");
  CHECK(L.nranks == 16);
  CHECK(L.nnodes == 2);
  CHECK(L.gpus_per_node == 8);
  // Real nccl-tests rank lines: 3 ranks over 2 hosts.
  L = stated_layout({"#  Rank  0 Group  0 Pid   1 on      hostA device  0 [0x07] NVIDIA H100",
                     "#  Rank  1 Group  0 Pid   2 on      hostA device  1 [0x0f] NVIDIA H100",
                     "#  Rank  2 Group  0 Pid   3 on      hostB device  0 [0x07] NVIDIA H100"},
                    "y.txt");
  CHECK(L.nranks == 3);
  CHECK(L.nnodes == 2);
  // Two statements that disagree.
  CHECK_THROWS_WITH(stated_layout({"# 16 ranks", "# 8 ranks"}, "z.txt"),
                    Catch::Contains("z.txt") && Catch::Contains("line 2"));
  // nccl#1161 states no rank count: without a hint it is an error that says what to pass.
  const auto pcie =
      (kData / "nccl-tests" / "gh-issue-NVIDIA-nccl-1161_allreduce_2xH100PCIe_nvlink-bridge.txt").string();
  CHECK_THROWS_WITH(import_nccl_tests(pcie), Catch::Contains("--nranks"));
  // A wrong hint (16 ranks) is caught by the busbw check: for n = 16 busbw would be 1.875 x algbw, the file has 1.0 x.
  ImportHints wrong;
  wrong.nranks = 16;
  CHECK_THROWS_WITH(import_nccl_tests(pcie, wrong), Catch::Contains("line 10") && Catch::Contains("busbw"));
  // A hint contradicting the file's own statement ("16 ranks").
  ImportHints eight;
  eight.nranks = 8;
  CHECK_THROWS_WITH(import_nccl_tests((kData / "nccl-tests" /
                                       "gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt")
                                          .string(),
                                      eight),
                    Catch::Contains("contradicts"));
}

TEST_CASE("old nccl-tests layout: no root column, error instead of #wrong", "[calibrate][import]") {
  const std::string text =
      "# nThread 1 nGpus 4 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#   Rank  0 Pid  100 on     node1 device  0 [0x1a] Tesla V100-SXM2-16GB\n"
      "#   Rank  1 Pid  100 on     node1 device  1 [0x1b] Tesla V100-SXM2-16GB\n"
      "#   Rank  2 Pid  100 on     node1 device  2 [0x3d] Tesla V100-SXM2-16GB\n"
      "#   Rank  3 Pid  100 on     node1 device  3 [0x3e] Tesla V100-SXM2-16GB\n"
      "#                                                     out-of-place                       in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "           8             2   float     sum    10.00    0.00    0.00  0e+00    10.00    0.00    0.00  0e+00\n"
      "     1048576        262144   float     sum    100.0   10.49   15.73  0e+00    100.0   10.49   15.73  0e+00\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 7.865\n";
  ImportHints h;
  h.op = "allreduce";  // the command line is not in this excerpt
  const auto recs = import_nccl_tests_text(text, "old.txt", h);
  REQUIRE(recs.size() == 4);
  const auto& c = coll(recs[2]);
  // 1 MiB / 100 us = 10.486 GB/s algbw; busbw = 2(4-1)/4 x algbw = 15.73.
  CHECK(c.nranks == 4);
  CHECK(c.nnodes == 1);
  CHECK(c.root == -1);
  CHECK_FALSE(c.wrong.has_value());
  CHECK(c.busbw_GBps == 15.73);
  CHECK(coll(recs[3]).in_place);
  // The same table with busbw 15.80 (not 1.5 x 10.486) is rejected on its line (10).
  std::string bad = text;
  bad.replace(bad.find("15.73"), 5, "15.80");
  CHECK_THROWS_WITH(import_nccl_tests_text(bad, "old.txt", h),
                    Catch::Contains("old.txt: line 10") && Catch::Contains("busbw"));
}

TEST_CASE("malformed nccl-tests and OSU lines give errors naming file and line", "[calibrate][import]") {
  const fs::path p5 =
      kData / "nccl-tests" / "gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt";
  std::string text = slurp(p5);
  // Line 9 of the file is the 32 B row (6 header lines, then 8 B, 16 B, 32 B ... from line 7). The file name is
  // kept as the label: it states the 2x8 layout.
  const std::string label = p5.string();
  auto pos = text.find("    74.06 ");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, 10, "    74.x6 ");
  CHECK_THROWS_WITH(import_nccl_tests_text(text, label),
                    Catch::Contains(label + ": line 9") && Catch::Contains("74.x6"));
  std::string shortrow = slurp(p5);
  shortrow.replace(shortrow.find("    74.06 "), 10, " ");
  CHECK_THROWS_WITH(import_nccl_tests_text(shortrow, label),
                    Catch::Contains(label + ": line 9") && Catch::Contains("columns"));
  CHECK_THROWS_WITH(import_nccl_tests_text("   8   2 float sum -1 1.0 0.0 0.0 0\n", "h.txt",
                                           ImportHints{2, 1, 2, "allreduce", "", "", "", ""}),
                    Catch::Contains("h.txt: line 1") && Catch::Contains("header"));

  const fs::path osu = kData / "osu-openmpi" / "allreduce-10g-2cpu-algo6-step1m.txt";
  std::string o = slurp(osu);
  o.replace(o.find("5000000 "), 8, "5000k00 ");
  CHECK_THROWS_WITH(import_osu_text(o, osu.string()),
                    Catch::Contains("allreduce-10g-2cpu-algo6-step1m.txt: line 7") && Catch::Contains("5000k00"));
  CHECK_THROWS_AS(import_osu("/nonexistent/allreduce-10g-2cpu-algo1-step1k.txt"), vgsim::InputError);
}

TEST_CASE("every OSU file imports with rank count and algorithm from its name", "[calibrate][import]") {
  // Rows: step1k files 4 KB..1024 KB step 4 KB = 256; step1m 1 MB..1021 MB step 4 MB = 256 (except 10g algo5 which
  // stops at 175 rows and 10g algo6 with 3 rows); step10m 1 MB..1001 MB step 40 MB = 26.
  const std::map<std::string, std::size_t> exceptions{{"allreduce-10g-2cpu-algo5-step1m.txt", 175},
                                                      {"allreduce-10g-2cpu-algo6-step1m.txt", 3}};
  const std::vector<std::string> algos{"basic_linear", "nonoverlapping", "recursive_doubling",
                                       "ring",         "segmented_ring", "rabenseifner"};
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(kData / "osu-openmpi")) {
    if (e.path().extension() != ".txt") continue;  // the folder's README.md is no measurement
    const std::string name = e.path().filename().string();
    INFO(name);
    const auto recs = import_osu(e.path().string());
    std::size_t expect = name.find("step10m") != std::string::npos ? 26 : 256;
    if (exceptions.count(name)) expect = exceptions.at(name);
    CHECK(recs.size() == expect);
    const std::int64_t nodes = name.find("-4cpu-") != std::string::npos ? 4 : 2;
    const int k = name[name.find("algo") + 4] - '0';
    for (const auto& r : recs) {
      const auto& c = coll(r);
      CHECK(c.nranks == nodes);
      CHECK(c.nnodes == nodes);
      CHECK(c.algo == algos[static_cast<std::size_t>(k - 1)]);
      CHECK(c.library == "openmpi");
      CHECK(c.count * 4 == c.size_bytes);
      // busbw = algbw x 2(n-1)/n.
      CHECK(c.busbw_GBps == Approx(c.algbw_GBps * 2.0 * double(nodes - 1) / double(nodes)).epsilon(1e-12));
    }
    ++files;
  }
  CHECK(files == 48);
  // First row of allreduce-100g-2cpu-algo1-step10m.txt: 1000000 B in 394.56 us.
  const auto r = import_osu((kData / "osu-openmpi" / "allreduce-100g-2cpu-algo1-step10m.txt").string());
  CHECK(coll(r[0]).size_bytes == 1000000);
  CHECK(coll(r[0]).time_us == 394.56);
  ImportHints three;
  three.nnodes = 3;
  CHECK_THROWS_WITH(import_osu((kData / "osu-openmpi" / "allreduce-100g-2cpu-algo1-step10m.txt").string(), three),
                    Catch::Contains("contradicts"));
}

TEST_CASE("launch commands and headers state ranks and nodes (issue 15)", "[calibrate][import]") {
  // Open MPI -H lists hosts with their slots: 2 hosts x 4 slots = 8 ranks, 4 per node (one GPU per process, -g 1).
  auto L =
      stated_layout({"# mpirun -H nodeA:4,nodeB:4 --bind-to none ./all_reduce_perf -b 8 -e 1G -f 2 -g 1"}, "x.txt");
  CHECK(L.nranks == 8);
  CHECK(L.nnodes == 2);
  CHECK(L.gpus_per_node == 4);
  // -np 32 -N 4 (Open MPI: -N = processes per node) -> 32 / 4 = 8 nodes.
  L = stated_layout({"# mpirun -np 32 -N 4 -x NCCL_DEBUG=WARN all_reduce_perf -b 8 -e 8G -f 2 -g 1"}, "x.txt");
  CHECK(L.nranks == 32);
  CHECK(L.nnodes == 8);
  CHECK(L.gpus_per_node == 4);
  // --map-by ppr:8:node with -np 16, each process with 1 GPU -> 2 nodes of 8.
  L = stated_layout({"# mpirun -np 16 --map-by ppr:8:node all_reduce_perf -g 1"}, "x.txt");
  CHECK(L.nnodes == 2);
  CHECK(L.gpus_per_node == 8);
  // Slurm: srun -N is the node count (not per node): 2 nodes x 8 tasks.
  L = stated_layout({"# srun -N 2 --ntasks-per-node=8 all_reduce_perf -b 8 -e 1G -g 1"}, "x.txt");
  CHECK(L.nranks == 16);
  CHECK(L.nnodes == 2);
  CHECK(L.gpus_per_node == 8);
  // Header forms: "8 nodes x 4 A100" = 32 ranks; "4 GPUs per node" with "nodes: 2".
  L = stated_layout({"# cluster: 8 nodes x 4 A100-SXM4 (NVLink), HDR IB"}, "x.txt");
  CHECK(L.nranks == 32);
  CHECK(L.nnodes == 8);
  CHECK(L.gpus_per_node == 4);
  L = stated_layout({"# nodes: 2", "# 4 GPUs per node"}, "x.txt");
  CHECK(L.nnodes == 2);
  CHECK(L.gpus_per_node == 4);
  // A hostfile is not in the measurement file: 16 ranks are known, the node count is not, and the error says why.
  const std::string table =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    10.00    0.00    0.00      0\n";
  CHECK_THROWS_WITH(
      import_nccl_tests_text("# mpirun -np 16 --hostfile hosts.txt all_reduce_perf -g 1\n" + table, "h.txt"),
      Catch::Contains("h.txt") && Catch::Contains("hostfile 'hosts.txt'") && Catch::Contains("--nodes"));
  // The file name says 2 x 8, the command in the file 8 x 4: an error naming both.
  CHECK_THROWS_WITH(import_nccl_tests_text("# mpirun -np 32 -N 4 all_reduce_perf -g 1\n" + table, "run_2x8xH100.txt"),
                    Catch::Contains("line 1") && Catch::Contains("the file name") && Catch::Contains("launch command"));
}

TEST_CASE("OSU files are read by content, the name is a fallback (issue 15)", "[calibrate][import]") {
  const fs::path dev = kData / "osu-openmpi" / "allreduce-10g-2cpu-algo4-step1k.txt";
  const std::string text = slurp(dev);
  // Renamed to something meaningless: the title gives allreduce and OSU 5.7, the provenance comment "nodes = 2, one
  // MPI rank per node" the layout; the algorithm is only in the original name (algo4), so it is "default" here.
  const auto renamed = import_osu_text(text, "/tmp/run1.out");
  REQUIRE(renamed.size() == 256);
  CHECK(coll(renamed[0]).op == "allreduce");
  CHECK(coll(renamed[0]).nnodes == 2);
  CHECK(coll(renamed[0]).nranks == 2);
  CHECK(coll(renamed[0]).algo == "default");
  CHECK(coll(renamed[0]).benchmark == "osu 5.7");
  CHECK_FALSE(coll(renamed[0]).mpi_dynamic_rules.has_value());
  CHECK(coll(renamed[0]).time_us == coll(import_osu(dev.string())[0]).time_us);
  // Without the provenance comments and without a usable name nothing states the layout: the error names it.
  std::string bare = text.substr(text.find("# OSU MPI Allreduce Latency Test"));
  CHECK_THROWS_WITH(import_osu_text(bare, "run1.out"),
                    Catch::Contains("run1.out") && Catch::Contains("node count") && Catch::Contains("mpirun"));
  // An mpirun line states ranks, nodes, the requested algorithm and dynamic rules: -np 8 -N 2 = 4 nodes of 2;
  // coll_tuned_allreduce_algorithm 4 = ring (Open MPI coll/tuned numbering).
  const std::string with_cmd =
      "# mpirun -np 8 -N 2 --mca coll_tuned_use_dynamic_rules 1 --mca "
      "coll_tuned_allreduce_algorithm 4 ./osu_allreduce -m 4000:1048576\n" +
      bare;
  const auto r = import_osu_text(with_cmd, "run2.out");
  CHECK(coll(r[0]).nranks == 8);
  CHECK(coll(r[0]).nnodes == 4);
  CHECK(coll(r[0]).gpus_per_node == 2);
  CHECK(coll(r[0]).algo == "ring");
  CHECK(coll(r[0]).mpi_dynamic_rules == std::optional<bool>(true));
  // The algorithm forced without dynamic rules: recorded as requested, dynamic rules "not stated" (nullopt).
  const auto r2 = import_osu_text("$ mpirun -H a,b --mca coll_tuned_allreduce_algorithm 3 osu_allreduce\n" + bare,
                                  "run3.out", ImportHints{0, 0, 1, "", "", "", "", ""});
  CHECK(coll(r2[0]).algo == "recursive_doubling");
  CHECK(coll(r2[0]).nnodes == 2);
  CHECK_FALSE(coll(r2[0]).mpi_dynamic_rules.has_value());
  // A name that contradicts the content (algo3 vs --mca ... 4; 2cpu vs 4 nodes) is an error naming both.
  CHECK_THROWS_WITH(import_osu_text(with_cmd, "allreduce-10g-8cpu-algo3-step1k.txt"),
                    Catch::Contains("the file name") && Catch::Contains("mpirun line"));
  // A title of another OSU collective: broadcast from the content alone.
  std::string bcast = bare;
  bcast.replace(bcast.find("Allreduce"), 9, "Broadcast");
  const auto b = import_osu_text("# nodes = 4, one MPI rank per node\n" + bcast, "x.txt");
  CHECK(coll(b[0]).op == "broadcast");
  CHECK(coll(b[0]).root == 0);
  // Neither a title nor a name: the collective is unknown.
  std::string untitled = bare.substr(bare.find("# Size"));
  CHECK_THROWS_WITH(import_osu_text("# nodes = 2, one MPI rank per node\n" + untitled, "x.txt"),
                    Catch::Contains("cannot tell the collective"));
}
