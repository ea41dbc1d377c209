// `vgsim collective --cluster <preset|file> --op allreduce --nodes N --gpus-per-node G -b 8 -e 1G -f 2 ...`:
// simulates one call per size on a fresh engine and prints what nccl-tests would print; --json writes the rows.
#include "collective_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "catalog_option.hpp"
#include "collective_mpi.hpp"
#include "nccl_options.hpp"
#include "nccl_tests_compat.hpp"
#include "vgsim/calibrate/calibration_profile.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/progress.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/sim/nccl_tests_report.hpp"
#include "vgsim/sim/one_rank_copy.hpp"
#include "vgsim/workloads/collectives/generators.hpp"
#include "vgsim/workloads/collectives/schedule_json.hpp"
#include "whole_number_check.hpp"

namespace vgsim::cli {

namespace {
// --dump-schedule writes at most this many transfers (coll::to_json's cap; "transfers_total" gives the count).
constexpr std::size_t kDumpTransfers = 1000000;

struct CollectiveArgs {
  std::string cluster = "r750xa-4x-100gbe";
  // -o/--op, repeatable: the collective (default allreduce) and/or nccl-tests' reduction (default sum, or all).
  std::vector<std::string> ops;
  std::uint32_t nodes = 0, gpus_per_node = 0;  // 0 = all
  std::string min_bytes = "8", max_bytes = "128M";
  double factor = 2.0;
  sim::NcclKnobs nccl;
  std::uint32_t root = 0;
  std::uint64_t max_transfers = sim::kDefaultMaxTransfers;
  std::vector<std::string> sets;
  std::string json_out;
  std::string dump_schedule;
  bool fold_channels = false;  // CommOptions::fold_channels (an opt-in approximation)
  std::string dtype = "float";
  std::string calibration;  // calibration profile JSON (vgsim calibrate fit)
  // nccl-tests habits (so a command line copied from a log runs unchanged; cli/nccl_tests_compat.hpp): -i step bytes
  // (linear sizes), --np processes (mpirun -np) of -t threads x -g GPUs (without --np: -g x -t GPUs per node), -n / -w
  // iterations and -c check (printed in the preamble; a simulation is deterministic and moves no data), -o the
  // reduction, and the options that do not change a simulation (accepted, named in one stderr note).
  std::string step_bytes;
  std::uint32_t ngpus = 0, nthreads = 1, np = 0;
  int iters = 20, warmup = 5, check = 1;
  IgnoredNcclTestsOptions ignored;
  bool quiet = false;  // no notes and no progress line on stderr (warnings and errors still print)
  // --library mpi: Open MPI on CPU buffers (collective_mpi.hpp), OSU's output format.
  std::string library = "nccl", mpi_algo, mpi_profile;
  std::uint32_t ranks_per_node = 1;
};

template <typename F>
auto option_value(const std::string& option, const std::string& value, F parse) {
  try {
    return parse(value);
  } catch (const UnitError& e) {
    throw InputError("", option, "bad value", "'" + value + "'", e.what());
  }
}

// NCCL's model and knobs for the run: the release's tables, the calibration profile (if any), --set overrides (after
// the profile, so explicit overrides win), then --algo / --proto / ... and the resource guard.
sim::CommOptions comm_options(const CollectiveArgs& a, std::optional<calibrate::CalibrationProfile>& profile) {
  sim::CommOptions opt;
  opt.nccl = a.nccl.tuning();
  if (!a.calibration.empty()) {
    profile = calibrate::read_calibration_profile(a.calibration);
    calibrate::apply_profile(*profile, opt);
  }
  for (const auto& kv : a.sets) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      throw InputError("", "--set", "expected key=value", kv, "e.g. nccl.base_latency.ring.simple=8.4");
    const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(val, &used);
      if (used != val.size()) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      throw InputError("", "--set " + key, "not a number", val,
                       "a plain number in the parameter's unit (see vgsim params)");
    }
    option_value("--set", key, [&](const std::string& k) {
      opt.nccl.set(k, v);
      return 0;
    });
  }
  a.nccl.apply(opt);
  opt.fold_channels = a.fold_channels;
  return opt;
}

// The sizes to visit: -b .. -e by factor -f or step -i (nccl-tests), as whole elements of `granule` bytes (rounding
// may repeat a size, kept once). Refuses a step that would visit more than 10,000 sizes (one simulation each).
struct SizeRange {
  Bytes min = 0, max = 0, step = 0;  // step 0: multiply by the factor
};
SizeRange size_range(const CollectiveArgs& a) {
  SizeRange r;
  r.min = parse_nccl_tests_size("-b", a.min_bytes);
  r.max = parse_nccl_tests_size("-e", a.max_bytes);
  if (r.min <= 0 || r.max < r.min)
    throw InputError("", "-b/-e", "bad size range", a.min_bytes + ".." + a.max_bytes, "0 < min <= max");
  r.step = a.step_bytes.empty() ? 0 : parse_nccl_tests_size("-i", a.step_bytes);
  if (!a.step_bytes.empty() && r.step <= 0)
    throw InputError("", "-i", "bad step", a.step_bytes, "a size > 0 (nccl-tests -i: sizes grow by this many bytes)");
  if (r.step == 0 && !(a.factor > 1.0))
    throw InputError("", "-f", "bad size factor", std::to_string(a.factor), "a factor > 1");
  // Resource guard: the sweep visits log(max/min) / log(f) sizes, or (max - min) / i + 1 with -i (one simulation each).
  const double visits =
      r.step > 0 ? static_cast<double>(r.max - r.min) / static_cast<double>(r.step) + 1
                 : std::log(static_cast<double>(r.max) / static_cast<double>(r.min)) / std::log(a.factor) + 1;
  if (visits > 10000)
    throw InputError(
        "", r.step > 0 ? "-i" : "-f",
        "size step so small that the sweep would visit " + std::to_string(static_cast<long long>(visits)) + " sizes",
        r.step > 0 ? a.step_bytes : std::to_string(a.factor),
        "a step giving at most 10,000 sizes between -b and -e (e.g. -f 2)");
  return r;
}
std::vector<Bytes> sizes_of(const SizeRange& r, double factor, Bytes granule) {
  std::vector<Bytes> sizes;
  for (double s = static_cast<double>(r.min); s <= static_cast<double>(r.max) * (1 + 1e-9);
       s = r.step > 0 ? s + static_cast<double>(r.step) : s * factor) {
    const Bytes size = static_cast<Bytes>(s) / granule * granule;
    if (size > 0 && (sizes.empty() || size != sizes.back())) sizes.push_back(size);
  }
  return sizes;
}

// The communicator's "why: ..." lines (transports a user may not expect, topologies/path_reasons.hpp) as '#' notes.
void add_why_notes(sim::NcclTestsHeader& header, const sim::Communicator& comm) {
  for (const auto& w : comm.transport_reasons()) header.notes.push_back(w);
}

// nccl-tests' title and preamble lines (parsers look for them), describing the simulated run.
sim::NcclTestsHeader header_of(const CollectiveArgs& a, const topo::Cluster& cluster, const sim::Communicator& comm,
                               coll::Op op, std::uint32_t nodes, std::uint32_t gpn, const SizeRange& r,
                               const std::optional<calibrate::CalibrationProfile>& profile) {
  const sim::CommOptions& opt = comm.options();
  sim::NcclTestsHeader header;
  header.title = "vgsim collective: " + std::string(coll::to_string(op)) + " on " + cluster.name() + ", " +
                 std::to_string(nodes) + " node(s) x " + std::to_string(gpn) +
                 " GPU(s) = " + std::to_string(comm.ranks()) + " ranks (simulated; NCCL model " + opt.nccl.version +
                 ")";
  char pre[256];
  std::snprintf(
      pre, sizeof pre,
      "nThread %u nGpus %u minBytes %lld maxBytes %lld step: %s warmup iters: %d iters: %d agg iters: %d "
      "validation: %d graph: %d",
      std::max<std::uint32_t>(1, a.nthreads),
      a.ngpus ? a.ngpus
      : a.np  ? 1
              : gpn,
      static_cast<long long>(r.min), static_cast<long long>(r.max),
      (r.step > 0 ? std::to_string(r.step) + "(bytes)" : std::to_string(a.factor).substr(0, 4) + "(factor)").c_str(),
      a.warmup, a.iters, agg_iters(a.ignored), a.check, graph_launches(a.ignored));
  header.notes.push_back(pre);
  header.notes.push_back("Using devices (simulated: vgsim, no GPU was used)");
  const auto& eps = cluster.endpoints();
  for (std::uint32_t rank = 0; rank < comm.ranks(); ++rank)
    header.notes.push_back("  Rank " + std::to_string(rank) + " on " + eps[comm.rank_to_endpoint()[rank]].name +
                           " device " + std::to_string(rank % gpn) + " [simulated] " +
                           cluster.gpus()[eps[comm.rank_to_endpoint()[rank]].gpu].model);
  if (!opt.nccl.approximation.empty()) header.notes.push_back("NCCL model: " + opt.nccl.approximation);
  if (comm.ranks() == 1) {
    const topo::GpuEndpoint& ep = eps[comm.rank_to_endpoint()[0]];
    char copy[64];
    std::snprintf(copy, sizeof copy, "%.1f GB/s", sim::one_rank_copy_bytes_per_s(cluster.gpu_model(ep.gpu), ep) / 1e9);
    header.notes.push_back(
        "one rank: NCCL runs no algorithm, each call is a device-local copy (NVIDIA/nccl src/enqueue.cc, nRanks == 1: "
        "ncclLaunchOneRank, a cudaMemcpyAsync out of place, nothing in place): " +
        std::to_string(static_cast<int>(sim::kOneRankLaunchLatencyUs)) + " us + bytes / " + copy +
        " (memory bandwidth / 2; sim/one_rank_copy.hpp); both groups show the out-of-place copy");
  } else {
    header.notes.push_back("transports: " + comm.describe_transports());
    if (const std::string net = comm.describe_net(); !net.empty()) header.notes.push_back("nccl net: " + net);
    add_why_notes(header, comm);
    header.notes.push_back(
        "channels: " + std::to_string(comm.shape().channels) +
        (opt.channels ? " (forced)" : " (from the route bottleneck; trimmed per size as NCCL does)"));
  }
  if (opt.fold_channels)
    header.notes.push_back(
        "channel fold: on (approximation) -- each ring or tree of several channels ran its representative channels "
        "only, each resource's capacity divided among the channels that cross it");
  if (profile)
    header.notes.push_back("calibration: " + a.calibration + " (" + profile->provenance.hardware + ", " +
                           profile->provenance.date + ")");
  header.notes.push_back("in-place and out-of-place are the same simulation; #wrong is N/A (no data is moved)");
  return header;
}

// One size: the simulated call as an nccl-tests row (the calibration profile's residual factor applied). The time
// does not depend on the data type or the reduction (vgsim models neither), so each size is simulated once and its
// row reused for every type and reduction of -d all / -o all.
struct RowContext {
  const CollectiveArgs& a;
  const sim::Communicator& comm;
  coll::Op op;
  std::uint32_t nodes, gpn;
  const std::optional<calibrate::CalibrationProfile>& profile;
  // The profile's calibrated plan choice (issue 15: monotone in size) for calls of NCCL's own choice: one
  // communicator per plan, built when first used.
  const topo::Cluster& cluster;
  std::map<std::string, std::unique_ptr<sim::Communicator>>& planned;
  std::map<Bytes, sim::NcclTestsRow>& simulated;  // by size
};
const sim::Communicator& comm_for(const RowContext& x, Bytes size) {
  if (!x.profile || !x.a.nccl.algo.empty() || !x.a.nccl.proto.empty()) return x.comm;
  const calibrate::PlanSegment* plan = x.profile->plan_for(coll::to_string(x.op), x.nodes, x.gpn, size);
  if (!plan) return x.comm;
  auto& c = x.planned[plan->algo + "/" + plan->proto];
  if (!c) {
    sim::CommOptions o = x.comm.options();
    o.algo = coll::parse_algo(plan->algo), o.proto = coll::parse_proto(plan->proto);
    c = std::make_unique<sim::Communicator>(x.cluster, x.comm.rank_to_endpoint(), o);
  }
  return *c;
}
const sim::NcclTestsRow& simulated_row(const RowContext& x, Bytes size) {
  auto it = x.simulated.find(size);
  if (it != x.simulated.end()) return it->second;
  const coll::Op op = x.op;
  const sim::CollectiveResult r = sim::simulate_collective(comm_for(x, size), op, size, x.a.root);
  sim::NcclTestsRow row;
  row.size = size;
  row.root = (op == coll::Op::Broadcast || op == coll::Op::Reduce) ? static_cast<int>(x.a.root) : -1;
  row.time = r.time;
  if (x.profile)  // residual factor of the calibrated series (1 where the profile has none for this call)
    row.time = Time{static_cast<std::int64_t>(std::llround(
        double(r.time.ps) *
        x.profile->time_factor(coll::to_string(op), x.a.nccl.algo.empty() ? "default" : x.a.nccl.algo,
                               x.a.nccl.proto.empty() ? "default" : x.a.nccl.proto, x.nodes, x.gpn, size)))};
  row.algbw_GBps = coll::algbw_GBps(size, row.time.us());
  row.busbw_GBps = row.algbw_GBps * coll::busbw_factor(op, x.comm.ranks());
  row.algo = coll::to_string(r.plan.algo);
  row.proto = coll::to_string(r.plan.proto);
  row.channels = r.plan.channels;
  return x.simulated.emplace(size, row).first->second;
}

// One table of nccl-tests rows: a data type x reduction (nccl-tests runs types outer, reductions inner, all in one
// table) and its sizes, whole elements of the type.
struct RowGroup {
  std::string type, redop;
  std::int64_t type_bytes;
  std::vector<Bytes> sizes;
};
std::vector<RowGroup> row_groups(const CollectiveArgs& a, const sim::Communicator& comm, coll::Op op,
                                 const std::string& redop, const SizeRange& range) {
  const auto& eps = comm.cluster().endpoints();
  std::uint32_t min_sm = ~0u;
  for (std::uint32_t e : comm.rank_to_endpoint())
    min_sm = std::min(min_sm, comm.cluster().gpu_model(eps[e].gpu).sm_version);
  const int minor = comm.options().nccl.minor;
  // allgather / reducescatter: S is the total array; alltoall: S = count per peer x ranks (nccl-tests alltoall.cu).
  const bool per_rank_count = op == coll::Op::AllGather || op == coll::Op::ReduceScatter || op == coll::Op::AllToAll;
  const bool reduces = op == coll::Op::AllReduce || op == coll::Op::Reduce || op == coll::Op::ReduceScatter;
  std::vector<RowGroup> groups;
  for (const std::string& type : data_types(a.dtype, minor, min_sm))
    for (const std::string& r : reduces ? reductions(redop, minor) : std::vector<std::string>{"none"}) {
      const std::int64_t tsize = type_size(type);
      groups.push_back({type, r, tsize, sizes_of(range, a.factor, tsize * (per_rank_count ? comm.ranks() : 1))});
    }
  return groups;
}

// The largest size runs first: the resource guard (--max-transfers) grows with the size, so a refused size stops the
// command before any row is printed (no half table). Then rows stream as sizes finish, as nccl-tests prints; the
// progress line (stderr, on a terminal, after 2 s, redrawn every 2 s by a timer) says which size is running.
std::vector<sim::NcclTestsRow> print_rows(const RowContext& x, const std::vector<RowGroup>& groups,
                                          const sim::NcclTestsHeader& header) {
  ProgressTicker progress("vgsim collective", x.a.quiet ? ProgressLine::Show::Never : ProgressLine::Show::OnTerminal);
  std::size_t total = 0;
  Bytes largest = 0;
  for (const auto& g : groups)
    if (!g.sizes.empty()) total += g.sizes.size(), largest = std::max(largest, g.sizes.back());
  auto state = [&](std::size_t done, Bytes size) {
    return std::to_string(done) + " of " + std::to_string(total) + " rows done, simulating " + std::to_string(size) +
           " B on " + std::to_string(x.comm.ranks()) + " ranks";
  };
  if (largest > 0) {
    progress.set(state(0, largest));
    simulated_row(x, largest);
  }
  progress.output([&] {
    sim::write_nccl_tests_head(std::cout, header);
    std::cout.flush();
  });
  const bool per_rank_count =
      x.op == coll::Op::AllGather || x.op == coll::Op::ReduceScatter || x.op == coll::Op::AllToAll;
  std::vector<sim::NcclTestsRow> rows;
  for (const auto& g : groups)
    for (Bytes size : g.sizes) {
      progress.set(state(rows.size(), size));
      sim::NcclTestsRow row = simulated_row(x, size);
      row.type = g.type;
      row.redop = g.redop;
      row.count = per_rank_count ? size / g.type_bytes / x.comm.ranks() : size / g.type_bytes;
      rows.push_back(row);
      progress.output([&] {
        sim::write_nccl_tests_row(std::cout, rows.back());
        std::cout.flush();
      });
    }
  progress.output([&] { sim::write_nccl_tests_tail(std::cout, rows); });
  return rows;
}

// -o/--op given once or twice: a collective (allreduce, allgather, ...) and/or nccl-tests' reduction (sum, prod, max,
// min, avg, mulsum, all); a reduction alone names all_reduce_perf's allreduce, the program a copied line names.
std::pair<std::string, std::string> collective_and_reduction(const std::vector<std::string>& ops) {
  std::string collective, redop;
  for (const std::string& v : ops) {
    std::string& slot = is_reduction(v) ? redop : collective;
    if (!slot.empty() && slot != v)
      throw InputError(
          "", "--op", is_reduction(v) ? "two reductions given" : "two collectives given", slot + " and " + v,
          "at most one collective (allreduce, allgather, ...) and one reduction (sum, prod, max, min, avg, "
          "mulsum or all), e.g. --op reducescatter -o all");
    slot = v;
  }
  return {collective.empty() ? "allreduce" : collective, redop.empty() ? "sum" : redop};
}

// A note on stderr, '#'-led like the table's comments, so a log of both streams still reads as an nccl-tests log.
void note(const CollectiveArgs& a, const std::string& text) {
  if (!a.quiet && !text.empty()) std::cerr << "# vgsim: note: " << text << "\n";
}

void run(const CollectiveArgs& a) {
  const auto [op_name, redop] = collective_and_reduction(a.ops);
  const std::string ignored = ignored_options_note(a.ignored);  // checks the values first
  if (a.library == "mpi" && a.fold_channels)
    throw InputError("", "--fold-channels", "the channel fold applies to NCCL's rings and trees", "--library mpi",
                     "no --fold-channels with --library mpi");
  if (a.library == "mpi" && a.np)
    throw InputError("", "--np", "--library mpi places ranks by --nodes and --ranks-per-node", std::to_string(a.np),
                     "--nodes N --ranks-per-node R with --library mpi");
  if (a.library == "mpi" && (a.gpus_per_node || a.ngpus))
    throw InputError("", a.gpus_per_node ? "--gpus-per-node" : "-g/--ngpus",
                     "--library mpi runs CPU ranks, placed by --ranks-per-node",
                     std::to_string(a.gpus_per_node ? a.gpus_per_node : a.ngpus),
                     "--ranks-per-node R with --library mpi");
  if (a.library == "mpi" && (a.dtype == "all" || redop == "all"))
    throw InputError("", a.dtype == "all" ? "-d/--type" : "--op", "one table per type or reduction is nccl-tests'",
                     "all with --library mpi", "one data type (OSU's tables count bytes) with --library mpi");
  if (a.library == "mpi") {
    note(a, ignored);
    return run_mpi_collective(
        {a.cluster, op_name, a.nodes, a.ranks_per_node, a.mpi_algo, a.sets, a.mpi_profile, a.json_out},
        sizes_of(size_range(a), a.factor, type_size(a.dtype)));
  }
  const topo::Catalog catalog = topo::Catalog::load_default();
  const topo::Cluster cluster = topo::Cluster::resolve(a.cluster, catalog);
  const RankLayout layout = rank_layout({a.np, a.nthreads, a.ngpus, a.nodes, a.gpus_per_node}, cluster);
  const std::uint32_t nodes = layout.nodes, gpn = layout.gpus_per_node;
  std::optional<calibrate::CalibrationProfile> profile;
  sim::CommOptions opt = comm_options(a, profile);
  const coll::Op op = option_value("--op", op_name, coll::parse_op);
  const SizeRange range = size_range(a);

  opt.max_transfers = a.max_transfers;
  if (opt.channels && (*opt.channels < 1 || *opt.channels > 64))
    throw InputError("", "--channels", "channel count out of range", std::to_string(*opt.channels),
                     "1..64 (NCCL MAXCHANNELS)");
  sim::Communicator comm(cluster, sim::place_ranks(cluster, nodes, gpn), opt);
  if ((op == coll::Op::Broadcast || op == coll::Op::Reduce) && a.root >= comm.ranks())
    throw InputError("", "-r/--root", "root is not a rank of the communicator", std::to_string(a.root),
                     "0.." + std::to_string(comm.ranks() - 1));
  const sim::NcclTestsHeader header = header_of(a, cluster, comm, op, nodes, gpn, range, profile);
  const std::vector<RowGroup> groups = row_groups(a, comm, op, redop, range);
  note(a, ignored);
  note(a, layout.note);
  if (profile)  // a profile applied outside what it was fitted on: one warning per fact
    for (const auto& w : calibrate::coverage_warnings(*profile, cluster.name(), nodes, gpn, comm.describe_transports()))
      std::cerr << "vgsim: warning: " << w << "\n";
  std::map<std::string, std::unique_ptr<sim::Communicator>> planned;
  std::map<Bytes, sim::NcclTestsRow> simulated;
  const RowContext context{a, comm, op, nodes, gpn, profile, cluster, planned, simulated};
  const std::vector<sim::NcclTestsRow> rows = print_rows(context, groups, header);
  if (!a.json_out.empty()) write_file_atomically(a.json_out, sim::nccl_tests_json(header, rows).dump(2) + "\n");
  Bytes largest = 0;
  for (const auto& g : groups)
    if (!g.sizes.empty()) largest = std::max(largest, g.sizes.back());
  if (!a.dump_schedule.empty() && largest > 0) {  // the largest size's step schedule, streamed ones stored
    const sim::CallPlan plan = comm_for(context, largest).plan(op, largest, a.root);
    const coll::CollectiveSchedule stored =
        plan.schedule->streamed ? coll::materialize(*plan.schedule, a.max_transfers) : coll::CollectiveSchedule{};
    write_file_atomically(a.dump_schedule,
                          coll::to_json(plan.schedule->streamed ? stored : *plan.schedule, kDumpTransfers, 1) + "\n");
  }
}

}  // namespace

void add_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* c = app.add_subcommand("collective", "Simulate an nccl-tests style sweep of one collective");
  c->add_option("--cluster", args->cluster, "cluster preset name or JSON file")->capture_default_str();
  c->add_option("-o,--op", args->ops,
                "the collective (allreduce, allgather, reducescatter, broadcast, reduce, sendrecv, alltoall; default "
                "allreduce) and/or nccl-tests' reduction (sum, prod, max, min, avg, mulsum, or all: one group of rows "
                "per reduction; alone, an allreduce with it); give -o twice for both, e.g. --op reduce -o all");
  c->add_option("--nodes", args->nodes, "hosts to use (default: all; with --np: the nodes the processes spread over)")
      ->check(cli::whole_number_at_least(1));
  c->add_option("--gpus-per-node", args->gpus_per_node, "GPUs per host (default: all of the first host)")
      ->check(cli::whole_number_at_least(1));
  c->add_option("--np", args->np,
                "processes, as mpirun -np: ranks = np x -t x -g, filling each node's GPUs before the next (without "
                "--np, one process per node)")
      ->check(CLI::Range(1u, 1u << 20));
  c->add_option("-b,--minbytes", args->min_bytes, "smallest size (nccl-tests -b: 8, 1k, 1m, 1g or 64MiB)")
      ->capture_default_str();
  c->add_option("-e,--maxbytes", args->max_bytes, "largest size (nccl-tests -e)")->capture_default_str();
  c->add_option("-f,--stepfactor", args->factor, "multiplicative size step (nccl-tests -f)")->capture_default_str();
  c->add_option("-d,--datatype,--type", args->dtype,
                "data type (nccl-tests -d: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, "
                "f8e4m3, f8e5m2, or all: one group of rows per type)")
      ->capture_default_str();
  c->add_option("-i,--stepbytes", args->step_bytes, "linear size step in bytes instead of -f (nccl-tests -i)");
  c->add_option("-g,--ngpus", args->ngpus,
                "GPUs per process (nccl-tests -g; default 1 with --np); without --np, -g x -t GPUs per node unless "
                "--gpus-per-node")
      ->check(CLI::Range(1u, 1u << 20));  // nccl-tests refuses 0 GPUs: so does vgsim (it used to mean "default")
  c->add_option("-t,--nthreads", args->nthreads, "threads per process (nccl-tests -t), each with -g GPUs")
      ->check(CLI::Range(1u, 1u << 20));
  c->add_option("-n,--iters", args->iters, "accepted for nccl-tests command lines (a simulation is deterministic)");
  c->add_option("-w,--warmup_iters", args->warmup, "accepted for nccl-tests command lines");
  c->add_option("-c,--check", args->check, "accepted for nccl-tests command lines (no data moves: #wrong is N/A)");
  c->add_option("-r,--root", args->root, "root rank for broadcast/reduce")->capture_default_str();
  add_ignored_nccl_tests_options(c, args->ignored);
  c->add_flag("--quiet", args->quiet,
              "stdout's table only: no notes and no progress line on stderr (warnings and errors still print)");
  c->add_option("--max-transfers", args->max_transfers,
                "refuse a size whose schedule needs more step transfers (~64 B each; 0 = no limit)")
      ->capture_default_str()
      ->check(cli::whole_number_at_least(0));
  add_nccl_options(c, args->nccl);
  add_catalog_option(c);
  c->add_option("--set", args->sets, "override an NCCL model parameter: name=value (see vgsim params)");
  c->add_option("--json", args->json_out, "write the rows as JSON to this file");
  c->add_option("--dump-schedule", args->dump_schedule,
                "write the largest size's step schedule (transfers, dependencies) as JSON to this file (the first "
                "1,000,000 transfers; streamed rings, trees and NVLS Trees are stored for it)");
  add_fold_channels_flag(c, args->fold_channels);
  c->add_option("--calibration", args->calibration, "calibration profile JSON to apply (vgsim calibrate fit)");
  c->add_option("--library", args->library, "nccl (GPUs) or mpi (Open MPI on CPU buffers, OSU output)")
      ->check(CLI::IsMember({"nccl", "mpi"}))
      ->capture_default_str();
  c->add_option("--mpi-algo", args->mpi_algo,
                "--library mpi: force a coll/tuned algorithm (name or id; dynamic rules on)");
  c->add_option("--ranks-per-node", args->ranks_per_node, "--library mpi: MPI ranks per node")
      ->check(CLI::Range(1u, 1024u));
  c->add_option("--mpi-profile", args->mpi_profile, "--library mpi: parameters fitted by vgsim calibrate fit-mpi");
  c->callback([args] { run(*args); });
}

}  // namespace vgsim::cli
