// nccl-tests command lines for `vgsim collective` (cli/collective_command.cpp), so a line copied from a log runs and
// simulates what it measured: the options of nccl-tests' src/common.cu that do not change a simulation (accepted,
// named in one stderr note), -b/-e/-i sizes as its parsesize reads them (K/M/G in either case), the data types and
// reductions of `-d all` / `-o all`, and the rank count of `mpirun -np N ... -t T -g G` (ranks = N x T x G).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::cli {

// nccl-tests options that change what a GPU measures but not what vgsim simulates (one deterministic call per size):
// the values given, in nccl-tests' option order. Each is checked (an integer; -J a file name) and then ignored.
struct IgnoredNcclTestsOptions {
  std::vector<std::string> values;  // one per entry of the option table; "" = not given
};
void add_ignored_nccl_tests_options(CLI::App* command, IgnoredNcclTestsOptions& options);
// "" when none was given, else "nccl-tests options accepted and ignored ...: -a 1 (average), ...". InputError naming
// the option when a value is not what nccl-tests takes.
std::string ignored_options_note(const IgnoredNcclTestsOptions& options);
// The value of -m (agg iters) and -G (CUDA graph launches) for the preamble line, as nccl-tests prints them
// (defaults 1 and 0).
int agg_iters(const IgnoredNcclTestsOptions& options);
int graph_launches(const IgnoredNcclTestsOptions& options);

// A -b/-e/-i size: nccl-tests' parsesize (a number and one of K, M, G in either case: binary units), else vgsim's
// byte units (64MiB, 4KB = 4000, 512). InputError naming `option` and the value when neither reads it.
Bytes parse_nccl_tests_size(const std::string& option, const std::string& text);

// -d: the data types to run, in nccl-tests' order for "all" (src/common.cu test_typenames: int8, uint8, int32,
// uint32, int64, uint64, half, float, double, bfloat16 from NCCL 2.10, f8e4m3 and f8e5m2 from NCCL 2.24 on GPUs of
// compute capability >= 9.0), else the one named. InputError naming -d for an unknown type.
std::vector<std::string> data_types(const std::string& datatype, int nccl_minor, std::uint32_t min_sm_version);
std::int64_t type_size(const std::string& type);
// The reductions (nccl-tests' -o): sum, prod, max, min, avg (NCCL >= 2.10), mulsum (NCCL >= 2.11), or "all" of them.
bool is_reduction(const std::string& name);
std::vector<std::string> reductions(const std::string& redop, int nccl_minor);

// The ranks to simulate. Without --np (vgsim's own scheme): --nodes hosts (default all) x --gpus-per-node GPUs
// (default -g x -t when -g is given: one nccl-tests process per node, else every GPU of the first host). With --np
// (mpirun -np): np processes of -t x -g GPUs each, ranks = np x t x g, filling each node's GPUs before the next as
// mpirun fills slots (or np / --nodes processes on each of --nodes nodes). InputError (exit 2) when the cluster is too
// small or the ranks cannot be the same count on every node.
struct RankRequest {
  std::uint32_t np = 0;  // 0 = no --np
  std::uint32_t nthreads = 1;
  std::uint32_t ngpus = 0;                     // 0 = no -g (nccl-tests' default is 1)
  std::uint32_t nodes = 0, gpus_per_node = 0;  // 0 = not given
};
struct RankLayout {
  std::uint32_t nodes = 0, gpus_per_node = 0;
  std::string note;  // for stderr: how -g was read without --np on several nodes ("" otherwise)
};
RankLayout rank_layout(const RankRequest& request, const topo::Cluster& cluster);

}  // namespace vgsim::cli
