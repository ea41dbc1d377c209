// `vgsim sweep plan.json [--out results.csv] [--jobs N] [--resume] [--fidelity step|folded|analytical] [--top N]`.
// Points run on a std::thread pool; finished rows go to <out>.journal as they complete, the final CSV (rows in
// point order) is written atomically at the end. Under mpirun (OMPI_COMM_WORLD_SIZE set) and built with MPI
// (VGSIM_HAVE_MPI), rank 0 does all of that while the points spread over the ranks (sweep_mpi.hpp); the files and
// stdout are byte-identical to a single process. Built without MPI, more than one rank is refused.
#include "sweep_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "calibration_option.hpp"
#include "catalog_option.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/run_key.hpp"
#include "vgsim/sim/planning/sweep.hpp"
#include "whole_number_check.hpp"
#ifdef VGSIM_HAVE_MPI
#include <exception>
#include <optional>
#include <thread>

#include "vgsim/sim/planning/sweep_mpi.hpp"
#endif

namespace vgsim::cli {

namespace {

struct SweepArgs {
  std::string plan, out, fidelity, calibration;
  unsigned jobs = 0, top = 20;
  std::optional<unsigned> rank0_jobs;  // under mpirun: threads that run points on rank 0 (default: jobs)
  bool resume = false, quiet = false, progress = false, keep_going = false;
  std::size_t max_points = sim::planning::kDefaultMaxPoints;
};

// The plan with a training profile's pairs (--calibration) added to its base where the plan does not set them
// (so they enter every point and its id: a calibrated sweep does not resume an uncalibrated journal).
sim::planning::SweepPlan load_calibrated_plan(const SweepArgs& a) {
  sim::planning::SweepPlan plan = sim::planning::load_plan(a.plan);
  for (const auto& kv : calibration_sets(a.calibration)) {
    const auto eq = kv.find('=');
    const std::string k = kv.substr(0, eq);
    if (!plan.base.count(k)) plan.base[k] = std::stod(kv.substr(eq + 1));
  }
  return plan;
}

// Plan, options and the checks of the arguments, the same for one process and for rank 0 under MPI.
sim::planning::SweepOptions sweep_options(const SweepArgs& a) {
  using namespace sim::planning;
  SweepOptions o;
  o.out = a.out;
  o.jobs = a.jobs;
  o.resume = a.resume;
  o.max_points = a.max_points;
  o.keep_journal = true;  // removed by run_and_report once the summary is out: a kill before that loses nothing
  o.run_key = sim::planning::sweep_run_key();
  if (!a.fidelity.empty()) o.fidelity = parse_fidelity(a.fidelity);
  o.progress = !a.quiet && (a.progress || ::isatty(STDERR_FILENO));
  if (a.resume && a.out.empty())
    throw InputError("", "--resume", "--resume needs --out (the results file to resume)", "", "--out results.csv");
  // Before any point runs (and before its journal exists): a folder, a special file or the plan itself as --out.
  if (!a.out.empty()) check_output_path(a.out, "--out");
  return o;
}

void run_and_report(const SweepArgs& a, const sim::planning::SweepPlan& plan, const sim::planning::SweepOptions& o) {
  const sim::planning::SweepResult r = sim::planning::run_sweep(plan, o);
  std::ostringstream s;
  write_sweep_summary(s, plan, r, a.top);
  std::cout << s.str();
  if (!a.out.empty()) std::cout << "results: " << a.out << "\n";
  std::cout.flush();
  sim::planning::finish_sweep(r);
  if (r.skipped) std::fprintf(stderr, "vgsim sweep: %zu point(s) run now, %zu resumed\n", r.ran, r.skipped);
  // A failed point is the plan's fault (bad nodes, unknown model, ...): exit 2 unless partial sweeps are wanted. The
  // CSV is written either way (its error column says why each point failed).
  std::size_t failed = 0;
  std::string first;
  for (const auto& x : r.results)
    if (!x.error.empty() && failed++ == 0) first = "point " + std::to_string(x.index) + ": " + x.error;
  if (failed && !a.keep_going)
    throw InputError(plan.file, "points",
                     std::to_string(failed) + " of " + std::to_string(r.results.size()) +
                         " point(s) failed (the CSV's error column has each reason)",
                     first.substr(0, 300), "every point valid, or --keep-going to accept a partial sweep (exit 0)");
}

#ifdef VGSIM_HAVE_MPI
// Every rank loads the plan; rank 0 alone reports errors (the others fail the same way, or say why they could not
// start) and every rank exits with rank 0's status. Ranks other than 0 leave through std::exit after MPI_Finalize.
void run_mpi(const SweepArgs& a) {
  using namespace sim::planning;
  MpiSweep mpi;
  // --jobs is per rank; by default the hardware threads are shared among the ranks of this host.
  const unsigned jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency() / mpi.local_ranks());
  if (mpi.rank() != 0) {
    std::optional<SweepPlan> plan;
    Fidelity fidelity = Fidelity::Step;
    std::string why;
    try {
      plan.emplace(load_calibrated_plan(a));
      fidelity = a.fidelity.empty() ? plan->fidelity : parse_fidelity(a.fidelity);
    } catch (const std::exception& e) {
      why = e.what();
      plan.reset();
    }
    const int status = mpi.serve(plan ? &*plan : nullptr, fidelity, jobs, why);
    mpi.finalize();
    std::cout.flush();
    std::exit(status);
  }
  int status = 0;
  try {
    const SweepPlan plan = load_calibrated_plan(a);
    SweepOptions o = sweep_options(a);
    o.executor = mpi.coordinator(a.rank0_jobs.value_or(jobs), o.progress);
    run_and_report(a, plan, o);
  } catch (const InputError& e) {
    status = 2;
    std::cerr << "vgsim: error: " << e.what() << std::endl;  // main()'s wording
  } catch (const std::exception& e) {
    status = 1;
    std::cerr << "vgsim: internal error: " << e.what() << std::endl;
  }
  // The error is printed before the other ranks learn the status: once one of them exits nonzero, mpiexec aborts the
  // job and could kill this rank before it had said why.
  mpi.finish(status);
  mpi.finalize();
  std::cout.flush();
  if (status) std::exit(status);
}
#endif

void run(const SweepArgs& a) {
  using namespace sim::planning;
#ifdef VGSIM_HAVE_MPI
  if (launched_by_mpirun()) return run_mpi(a);
#else
  if (const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); size && std::atoi(size) > 1)
    throw InputError("", "OMPI_COMM_WORLD_SIZE", "vgsim sweep was built without MPI and cannot split points over ranks",
                     size, "a single process (use --jobs N for local parallelism)");
#endif
  const SweepPlan plan = load_calibrated_plan(a);
  run_and_report(a, plan, sweep_options(a));
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* c = app.add_subcommand("sweep", "Run a what-if sweep plan: one simulated training job per design point");
  c->add_option("plan", a->plan, "sweep plan JSON (workloads/plans/*.json)")->required();
  c->add_option("--out", a->out, "results CSV (written atomically; <out>.journal holds rows while running)");
  c->add_option("--jobs", a->jobs,
                "worker threads (per rank under mpirun; default: hardware threads, shared by the "
                "ranks of a host)");
  c->add_flag("--resume", a->resume, "skip points already in --out or its journal (matched by point id)");
  c->add_option("--fidelity", a->fidelity,
                "step (engine, default), folded (engine with the channel fold: an approximation for large scales, see "
                "--fold-channels) or analytical (closed form, fast)");
  c->add_option("--calibration", a->calibration, "training profile (vgsim calibrate fit-training) for every point");
  add_catalog_option(c);
  c->add_flag("--keep-going", a->keep_going, "exit 0 even when some points fail (default: exit 2, CSV still written)");
  c->add_option("--top", a->top, "rows in the ranked summary (Pareto points are always shown; default 20)");
  c->add_option("--rank0-jobs", a->rank0_jobs,
                "under mpirun: threads running points on rank 0 (default: as --jobs; 0 = rank 0 only hands out "
                "points and writes the results)");
  c->add_option("--max-points", a->max_points,
                "refuse plans of more points (each holds about 3.8 KiB until the CSV is written; 0 = no limit)")
      ->capture_default_str()
      ->check(cli::whole_number_at_least(0));
  c->add_flag("--quiet", a->quiet, "no progress on stderr");
  c->add_flag("--progress", a->progress, "progress and ETA on stderr even when it is not a terminal (e.g. mpirun)");
  c->callback([a] { run(*a); });
}

}  // namespace vgsim::cli
