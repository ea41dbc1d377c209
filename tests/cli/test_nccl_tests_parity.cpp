// `vgsim collective` takes nccl-tests command lines (cli/nccl_tests_compat.hpp): the options that do not change a
// simulation are accepted and named in one stderr note, -d all / -o all print a group of rows per type / reduction,
// K/M/G may be lower case, --np N x -t x -g is the rank count of `mpirun -np N`, --quiet leaves only stdout's table,
// and a one-rank collective is NCCL's device-local copy (sim/one_rank_copy.hpp).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace {

using vgsim::test::run_vgsim;

struct Split {
  int status;
  std::string out, err;  // stdout, stderr
};
// Runs vgsim with stdout and stderr apart.
Split run_split(const std::string& args) {
  const std::string err_path = vgsim::test::temp_path("vgsim-parity", "stderr.txt");
  const auto r = vgsim::test::run_command(std::string(VGSIM_EXE) + " " + args + " 2>" + err_path);
  std::ifstream in(err_path);
  std::stringstream err;
  err << in.rdbuf();
  std::filesystem::remove(err_path);
  return {r.status, r.out, err.str()};
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The table's data rows (lines not starting with '#').
std::string rows_of(const std::string& out) {
  std::istringstream in(out);
  std::string line, rows;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') rows += line + "\n";
  return rows;
}

vgsim::Json json_rows(const std::string& args) {
  const std::string json = vgsim::test::temp_path("vgsim-parity", "rows.json");
  const Split r = run_split(args + " --json " + json);
  REQUIRE(r.status == 0);
  vgsim::Json j = vgsim::load_json_file(json)["rows"];
  std::filesystem::remove(json);
  return j;
}

const std::string kSmall = "collective --cluster r750xa-2x-25gbe -b 8 -e 64 -f 2";

}  // namespace

TEST_CASE("nccl-tests options that cannot change a simulation are accepted and named in one note") {
  // src/common.cu's longopts without -t -g -b -e -i -f -o -d -r (modelled) and -n -w -c (in the preamble).
  const std::vector<std::pair<std::string, std::string>> ignored = {
      {"-m", "agg_iters"},         {"-N", "run_cycles"},
      {"-p", "parallel_init"},     {"-z", "blocking"},
      {"-y", "stream_null"},       {"-T", "timeout"},
      {"-G", "cudagraph"},         {"-C", "report_cputime"},
      {"-S", "report_timestamps"}, {"-J", "output_file"},
      {"-a", "average"},           {"-R", "local_register"},
      {"-x", "cta_policy"},        {"-D", "device_implementation"},
      {"-V", "device_cta_count"},  {"-M", "memory"},
      {"-u", "unalign"},           {"-I", "per_iter_timing"},
      {"-K", "per_iter_skip"}};
  const Split base = run_split(kSmall);
  REQUIRE(base.status == 0);
  CHECK(base.err.find("vgsim: note:") == std::string::npos);
  std::string all;
  for (const auto& [flag, name] : ignored) {
    // nccl-tests' defaults for -m (1) and -G (0), which the preamble prints, so stdout is the baseline's.
    const std::string value = flag == "-m" ? "1" : flag == "-G" ? "0" : flag == "-J" ? "nccl.json" : "1";
    const Split r = run_split(kSmall + " " + flag + " " + value);
    INFO(flag);
    CHECK(r.status == 0);
    CHECK(r.out == base.out);
    CHECK(count_of(r.err, "vgsim: note: nccl-tests options accepted and ignored") == 1);
    CHECK(r.err.find(flag + " " + value + " (" + name + ")") != std::string::npos);
    all += " " + flag + " " + value;
  }
  // All at once: still one note, naming each.
  const Split r = run_split(kSmall + all);
  REQUIRE(r.status == 0);
  CHECK(r.out == base.out);
  CHECK(count_of(r.err, "vgsim: note:") == 1);
  for (const auto& [flag, name] : ignored) CHECK(r.err.find("(" + name + ")") != std::string::npos);
  // The preamble prints -m and -G as nccl-tests does ("agg iters: %d ... graph: %d").
  const Split mg = run_split(kSmall + " -m 4 -G 2");
  CHECK(mg.out.find("agg iters: 4 validation: 1 graph: 2") != std::string::npos);
  CHECK(rows_of(mg.out) == rows_of(base.out));
  // A value nccl-tests would not read as an integer is refused, naming the option.
  const auto bad = run_vgsim(kSmall + " -a often");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("-a/--average: not an integer: got often") != std::string::npos);
  // Long spellings are nccl-tests' own.
  CHECK(run_split(kSmall + " --average 1 --cudagraph 0 --blocking 0").status == 0);
}

TEST_CASE("-d all and -o all print a group of rows per data type and reduction, in nccl-tests' order") {
  // A100 PCIe (compute capability 8.0), NCCL 2.30: src/common.cu's types without the fp8 pair (sm < 90): 10 types;
  // 8..64 B by 2 are whole elements of every type: 4 rows each, 40 in all.
  const std::vector<std::string> types = {"int8",   "uint8", "int32", "uint32", "int64",
                                          "uint64", "half",  "float", "double", "bfloat16"};
  const vgsim::Json d = json_rows(kSmall + " -d all");
  REQUIRE(d.size() == 40);
  for (std::size_t t = 0; t < types.size(); ++t)
    for (std::size_t k = 0; k < 4; ++k) {
      const auto& row = d[t * 4 + k];
      CHECK(row["type"] == types[t]);
      CHECK(row["size_bytes"] == 8 << k);
      // count = bytes / type size; the time does not depend on the type.
      const int bytes = types[t] == "int8" || types[t] == "uint8"                            ? 1
                        : types[t] == "half" || types[t] == "bfloat16"                       ? 2
                        : types[t] == "int32" || types[t] == "uint32" || types[t] == "float" ? 4
                                                                                             : 8;
      CHECK(row["count"] == (8 << k) / bytes);
      CHECK(row["time_us"] == d[k]["time_us"]);
    }
  // -o all on allreduce: sum, prod, max, min, avg (NCCL >= 2.10), mulsum (>= 2.11); NCCL 2.8: the first four.
  const vgsim::Json o = json_rows(kSmall + " -o all");
  REQUIRE(o.size() == 6 * 4);
  const std::vector<std::string> ops = {"sum", "prod", "max", "min", "avg", "mulsum"};
  for (std::size_t j = 0; j < ops.size(); ++j) CHECK(o[j * 4]["redop"] == ops[j]);
  CHECK(json_rows(kSmall + " -o all --nccl-version 2.8").size() == 4 * 4);
  // Both: types outer, reductions inner (all_reduce.cu's loops): 10 x 6 groups of 4 rows.
  const vgsim::Json both = json_rows(kSmall + " -d all -o all");
  REQUIRE(both.size() == 10 * 6 * 4);
  CHECK(both[4]["type"] == "int8");
  CHECK(both[4]["redop"] == "prod");
  CHECK(both[6 * 4]["type"] == "uint8");
  // -o names the collective and the reduction when given twice; a collective without a reduction prints "none" once.
  const vgsim::Json rs = json_rows(kSmall + " --op reducescatter -o max");
  CHECK(rs[0]["redop"] == "max");
  // (allgather's sizes are whole counts of 4 B for each of the 8 ranks: 32 and 64 of 8..64.)
  CHECK(json_rows(kSmall + " --op allgather -o all").size() == 2);
  // H100 (sm 9.0) with NCCL 2.30 adds f8e4m3 and f8e5m2; NCCL 2.18 does not have them (2.24+).
  const std::string h100 = "collective --cluster h100pcie-nvlink-bridge-2x -b 8 -e 8 -d all";
  const vgsim::Json h = json_rows(h100);
  REQUIRE(h.size() == 12);
  CHECK(h[10]["type"] == "f8e4m3");
  CHECK(json_rows(h100 + " --nccl-version 2.18").size() == 10);
  // The table itself: one head, one tail, every row.
  const Split t = run_split(kSmall + " -d all");
  CHECK(count_of(t.out, "#       size         count") == 1);
  CHECK(count_of(t.out, "# Avg bus bandwidth") == 1);
  CHECK(count_of(rows_of(t.out), "\n") == 40);
  // Bad values name the option, the value and the choices.
  const auto bad_type = run_vgsim(kSmall + " -d fp16");
  CHECK(bad_type.status == 2);
  CHECK(bad_type.out.find("-d/--type: unknown data type") != std::string::npos);
  CHECK(bad_type.out.find("bfloat16, f8e4m3, f8e5m2 or all") != std::string::npos);
  const auto two = run_vgsim(kSmall + " -o sum -o max");
  CHECK(two.status == 2);
  CHECK(two.out.find("two reductions given: got sum and max") != std::string::npos);
}

TEST_CASE("lower-case size units read as nccl-tests' parsesize: 1k = 1K = 1024, 1m = 1M, 1g = 1G") {
  const std::string base = "collective --cluster r750xa-2x-25gbe -f 4";
  const Split lower = run_split(base + " -b 1k -e 1m"), upper = run_split(base + " -b 1K -e 1M");
  REQUIRE(lower.status == 0);
  CHECK(lower.out == upper.out);  // byte for byte
  // 1k = 1024 B first, then x4 up to 1m = 1,048,576 B: 1K, 4K, 16K, 64K, 256K, 1M = 6 rows.
  const vgsim::Json rows = json_rows(base + " -b 1k -e 1m");
  REQUIRE(rows.size() == 6);
  CHECK(rows[0]["size_bytes"] == 1024);
  CHECK(rows[5]["size_bytes"] == 1048576);
  CHECK(run_split(base + " -b 1g -e 1g").out == run_split(base + " -b 1G -e 1G").out);
  CHECK(json_rows(base + " -b 1g -e 1g")[0]["size_bytes"] == 1073741824);
  // -i too: 8k = 8192 B steps from 8k to 32k: 8K, 16K, 24K, 32K.
  CHECK(json_rows(base + " -b 8k -e 32k -i 8k").size() == 4);
  // A letter nccl-tests does not know is refused, naming -e, the value and the units.
  const auto bad = run_vgsim(base + " -e 1q");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("-e: bad size: got '1q'") != std::string::npos);
  CHECK(bad.out.find("1m, 8k, 1g") != std::string::npos);
}

TEST_CASE("--np N x -t x -g is mpirun's rank count, nodes filled in order") {
  // `mpirun -np 16 ... all_reduce_perf -b 8 -e 128M -f 2 -g 1` on r750xa-4x-100gbe (4 hosts x 4 A100):
  // ranks = 16 x 1 x 1 = 16; a node holds 4 / (1 x 1) = 4 processes, so 16 / 4 = 4 nodes x 4 GPUs.
  const std::string cluster = "collective --cluster r750xa-4x-100gbe -b 8 -e 1K -f 2";
  const Split np = run_split(cluster + " --np 16 -g 1");
  REQUIRE(np.status == 0);
  CHECK(np.out.find("4 node(s) x 4 GPU(s) = 16 ranks") != std::string::npos);
  CHECK(np.out.find("nThread 1 nGpus 1 ") != std::string::npos);  // as nccl-tests prints each process's -g
  CHECK(np.out.find("  Rank 15 on host3/gpu3 device 3") != std::string::npos);
  CHECK(np.out.find("  Rank 4 on host1/gpu0 device 0") != std::string::npos);
  // The same 16 ranks as --nodes 4 --gpus-per-node 4: the same rows.
  const Split explicit_ = run_split(cluster + " --nodes 4 --gpus-per-node 4");
  CHECK(rows_of(np.out) == rows_of(explicit_.out));
  // 8 processes of 2 GPUs (2 per node) are 16 ranks too; 2 processes x 2 threads x 2 GPUs = 8 ranks on 2 nodes;
  // --nodes spreads 4 processes over 4 nodes (1 rank each).
  CHECK(rows_of(run_split(cluster + " --np 8 -g 2").out) == rows_of(np.out));
  CHECK(run_split(cluster + " --np 2 -t 2 -g 2").out.find("2 node(s) x 4 GPU(s) = 8 ranks") != std::string::npos);
  CHECK(run_split(cluster + " --np 4 --nodes 4").out.find("4 node(s) x 1 GPU(s) = 4 ranks") != std::string::npos);
  // Without --np, -g 1 keeps vgsim's meaning (one process per node: 4 ranks) and says so on stderr.
  const Split g = run_split(cluster + " -g 1");
  CHECK(g.out.find("4 node(s) x 1 GPU(s) = 4 ranks") != std::string::npos);
  CHECK(g.err.find("without --np: one process per node") != std::string::npos);
  // The acceptance line itself, sizes 8 B .. 128 MiB by 2: 25 rows on 16 ranks.
  const Split full = run_split("collective --cluster r750xa-4x-100gbe --np 16 -b 8 -e 128M -f 2 -g 1");
  REQUIRE(full.status == 0);
  CHECK(full.out.find("= 16 ranks") != std::string::npos);
  CHECK(count_of(rows_of(full.out), "\n") == 25);
}

TEST_CASE("a rank count the cluster cannot hold is refused with exit 2") {
  const std::string cluster = "collective --cluster r750xa-4x-100gbe -b 8 -e 8";
  // 17 processes need ceil(17 / 4) = 5 nodes; the cluster has 4 x 4 = 16 GPUs.
  const auto many = run_vgsim(cluster + " --np 17 -g 1");
  CHECK(many.status == 2);
  CHECK(many.out.find("--np: more ranks than the cluster has GPUs") != std::string::npos);
  CHECK(many.out.find("--np 17 x -t 1 x -g 1 = 17 ranks") != std::string::npos);
  CHECK(many.out.find("4 node(s) x 4 GPUs") != std::string::npos);
  // 6 processes fill one node (4) and leave 2 on the next: vgsim needs the same rank count per node.
  const auto uneven = run_vgsim(cluster + " --np 6");
  CHECK(uneven.status == 2);
  CHECK(uneven.out.find("the last node would hold fewer ranks") != std::string::npos);
  // One process cannot drive GPUs of two nodes: -t 1 x -g 8 > 4.
  const auto wide = run_vgsim(cluster + " --np 1 -g 8");
  CHECK(wide.status == 2);
  CHECK(wide.out.find("-t x -g <= 4") != std::string::npos);
  // --np and --gpus-per-node would say the same thing twice.
  CHECK(run_vgsim(cluster + " --np 4 --gpus-per-node 1").status == 2);
}

TEST_CASE("--quiet leaves stdout's table as it is and writes nothing else") {
  // Without --quiet: a note for the ignored -a and one for -g without --np on 2 nodes.
  const std::string args = kSmall + " -a 1 -g 1";
  const Split loud = run_split(args), quiet = run_split(args + " --quiet");
  REQUIRE(loud.status == 0);
  REQUIRE(quiet.status == 0);
  CHECK(count_of(loud.err, "vgsim: note:") == 2);
  CHECK(quiet.err.empty());
  CHECK(quiet.out == loud.out);
}

TEST_CASE("a one-rank collective runs as NCCL's local copy and prints a normal table") {
  // dgx-a100 -g 1: one node x 1 GPU (A100-SXM4-80GB, 2,039 GB/s): time = 6 us + S / (2039e9 / 2 B/s);
  // all_reduce.cu's busbw factor 2(n-1)/n = 0 at n = 1, so busbw is 0 while algbw = S / time.
  const Split t = run_split("collective --cluster dgx-a100 -g 1 -b 8 -e 128M -f 2");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("= 1 ranks") != std::string::npos);
  CHECK(t.out.find("one rank: NCCL runs no algorithm") != std::string::npos);
  CHECK(count_of(rows_of(t.out), "\n") == 25);
  const vgsim::Json rows = json_rows("collective --cluster dgx-a100 -g 1 -b 8 -e 128M -f 2");
  REQUIRE(rows.size() == 25);
  for (const auto& row : rows) {
    const double bytes = row["size_bytes"].get<double>();
    const double expected_us = 6.0 + bytes / (2039e9 / 2) * 1e6;
    CHECK(row["time_us"].get<double>() == Approx(expected_us).epsilon(1e-6));
    CHECK(row["busbw_GBps"].get<double>() == 0.0);
    CHECK(row["algbw_GBps"].get<double>() == Approx(bytes / (expected_us * 1e-6) / 1e9).epsilon(1e-6));
  }
  // 128 MiB: 134,217,728 / 1.0195e12 s = 131.65 us + 6 = 137.65 us, printed "%7.1f" as nccl-tests does.
  CHECK(t.out.find("   134217728      33554432     float     sum      -1    137.7") != std::string::npos);
  // Broadcast's busbw factor is 1 (broadcast.cu): busbw = algbw at one rank too.
  const vgsim::Json b = json_rows("collective --cluster dgx-a100 -g 1 --op broadcast -b 1M -e 1M");
  CHECK(b[0]["busbw_GBps"].get<double>() == Approx(b[0]["algbw_GBps"].get<double>()));
}
