// Runs a sweep plan: expands the points, runs them on a pool of std::threads (each finished point is appended to
// the write-ahead journal <out>.journal as a checksummed record at full precision, journal.hpp), then writes the
// final CSV atomically with the rows sorted by point index (byte-identical whatever the thread count or completion
// order) and removes the journal (or leaves that to finish_sweep, so a caller can print its summary first).
// With resume, points whose id is already in the journal (full precision) or the final CSV (printed precision) are
// not run again; damaged journal records are dropped and their points run again; the header must match. Results,
// CSV rows and the summary are computed from the same full-precision values whether a point ran now or was resumed
// from the journal, so a resumed sweep's CSV and summary are byte-identical to an uninterrupted run's. The CSV has one
// row per point: index, point_id, label, the parameter columns, then the figures (see csv_header). Errors of single
// points are rows with an error column, not a failed sweep. Where the points run is pluggable (SweepOptions::executor):
// the default is the local thread pool; the MPI coordinator (sim/planning/sweep_mpi.cpp) hands them to other ranks.
// Either way this process alone writes the files.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/planning/point_runner.hpp"

namespace vgsim::sim::planning {

// Called once per finished point with its index and result; thread-safe (appends the journal, shows progress).
using PointDone = std::function<void(std::size_t index, PointResult result)>;
// Runs one point in this process (the plan's point `index` on the shared catalog); thread-safe.
using PointRun = std::function<PointResult(std::size_t index)>;
// Runs every point of `todo` (indices, ascending) exactly once, anywhere, and reports each to `done` before returning.
using PointExecutor =
    std::function<void(const std::vector<std::size_t>& todo, const PointRun& run, const PointDone& done)>;

// The default executor: `jobs` std::threads (0 = hardware threads) take points from a shared counter.
void run_points_on_threads(const std::vector<std::size_t>& todo, unsigned jobs, const PointRun& run,
                           const PointDone& done);

// Resource guard: a sweep holds every point and its result in memory until the final CSV is written, about
// kSweepBytesPerPoint each (measured: an 18,000-point analytical sweep of the seed what-if peaked at 77 MB RSS against
// 8.4 MB for its 30 points, (77 - 8.4) MB / 17,970 = 3.8 KiB; docs/BENCHMARKS.md). Plans of more than
// kDefaultMaxPoints points are refused before anything runs unless SweepOptions::max_points allows them.
inline constexpr std::size_t kSweepBytesPerPoint = 3900;
inline constexpr std::size_t kDefaultMaxPoints = 100'000;

struct SweepOptions {
  std::string out;    // final CSV; "" = no file
  unsigned jobs = 0;  // 0 = std::thread::hardware_concurrency()
  bool resume = false;
  std::optional<Fidelity> fidelity;   // overrides the plan's
  bool progress = false;              // progress + ETA on stderr
  std::uint32_t rank = 0, world = 1;  // points with index % world == rank (static split; the CLI uses executor)
  PointExecutor executor;             // empty = run_points_on_threads(todo, jobs, ...)
  std::size_t max_points = 0;         // refuse plans of more points (0 = no limit; the CLI: kDefaultMaxPoints)
  bool keep_journal = false;          // leave <out>.journal for finish_sweep (the CLI prints the summary first)
  // What changes a result besides the plan and the fidelity (the CLI: vgsim's version and a fingerprint of the catalog
  // and preset files it reads), recorded in the journal with the fidelity; --resume refuses a journal of another key.
  std::string run_key;
};

struct SweepResult {
  std::vector<PlanPoint> points;
  std::vector<PointResult> results;  // by point index; resumed points from the journal (or the final CSV's rows)
  std::vector<bool> pareto;          // by point index: on the front of its summary group (errors never are)
  std::size_t ran = 0, skipped = 0;  // run now / taken from a previous run (--resume)
  std::string csv;                   // the final CSV text
  std::string journal;               // <out>.journal once the final CSV is written ("" without --out)
};

// Removes the journal of a finished sweep (run_sweep does it itself unless SweepOptions::keep_journal).
void finish_sweep(const SweepResult& r);

std::string csv_header(const std::vector<std::string>& param_columns);
std::string csv_row(const PlanPoint& p, const PointResult& r, const std::vector<std::string>& param_columns);

SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& options);

// Ranked summary, per summary group (one workload and throughput unit, summary_groups.hpp; a heading per group when
// there are several): by throughput (desc), Pareto points of the group marked '*', at most `top` rows plus every
// Pareto point, then the group's largest design effects (effects.hpp).
void write_sweep_summary(std::ostream& out, const SweepPlan& plan, const SweepResult& r, std::size_t top = 20);

}  // namespace vgsim::sim::planning
