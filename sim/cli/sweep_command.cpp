// `vgsim sweep plan.json [--out results.csv] [--jobs N] [--resume] [--fidelity step|analytical] [--top N]`.
// Points run on a std::thread pool; finished rows go to <out>.journal as they complete, the final CSV (rows in
// point order) is written atomically at the end. Under mpirun (OMPI_COMM_WORLD_RANK/SIZE set) the command refuses
// to run more than one rank: this build has no MPI, and ranks without a gather would each write a partial file.
#include "sweep_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/sweep.hpp"

namespace vgsim::cli {

namespace {

struct SweepArgs {
  std::string plan, out, fidelity;
  unsigned jobs = 0, top = 20;
  bool resume = false, quiet = false;
};

void run(const SweepArgs& a) {
  using namespace sim::planning;
  if (const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); size && std::atoi(size) > 1)
    throw InputError("", "OMPI_COMM_WORLD_SIZE", "vgsim sweep was built without MPI and cannot split points over ranks",
                     size, "a single process (use --jobs N for local parallelism)");
  const SweepPlan plan = load_plan(a.plan);
  SweepOptions o;
  o.out = a.out;
  o.jobs = a.jobs;
  o.resume = a.resume;
  if (!a.fidelity.empty()) o.fidelity = parse_fidelity(a.fidelity);
  o.progress = !a.quiet && ::isatty(STDERR_FILENO);
  if (a.resume && a.out.empty())
    throw InputError("", "--resume", "--resume needs --out (the results file to resume)", "", "--out results.csv");
  const SweepResult r = run_sweep(plan, o);
  std::ostringstream s;
  write_sweep_summary(s, plan, r, a.top);
  std::cout << s.str();
  if (!a.out.empty()) std::cout << "results: " << a.out << "\n";
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* c = app.add_subcommand("sweep", "Run a what-if sweep plan: one simulated training job per design point");
  c->add_option("plan", a->plan, "sweep plan JSON (workloads/plans/*.json)")->required();
  c->add_option("--out", a->out, "results CSV (written atomically; <out>.journal holds rows while running)");
  c->add_option("--jobs", a->jobs, "worker threads (default: hardware threads)");
  c->add_flag("--resume", a->resume, "skip points already in --out or its journal (matched by point id)");
  c->add_option("--fidelity", a->fidelity, "step (engine, default) or analytical (closed form, fast)");
  c->add_option("--top", a->top, "rows in the ranked summary (Pareto points are always shown; default 20)");
  c->add_flag("--quiet", a->quiet, "no progress on stderr");
  c->callback([a] { run(*a); });
}

}  // namespace vgsim::cli
