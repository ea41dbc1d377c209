// Runs a sweep plan: expands the points, runs them on a pool of std::threads (each finished point is appended to
// the journal <out>.journal as one write() of a full CSV line), then writes the final CSV atomically with the rows
// sorted by point index (byte-identical whatever the thread count or completion order) and removes the journal.
// With resume, points whose id is already in the final CSV or the journal are not run again (their rows are kept;
// the header must match). The CSV has one row per point: index, point_id, label, the parameter columns, then the
// figures (see csv_header). Errors of single points are rows with an error column, not a failed sweep.
#pragma once

#include <functional>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/planning/point_runner.hpp"

namespace vgsim::sim::planning {

struct SweepOptions {
  std::string out;                     // final CSV; "" = no file
  unsigned jobs = 0;                   // 0 = std::thread::hardware_concurrency()
  bool resume = false;
  std::optional<Fidelity> fidelity;    // overrides the plan's
  bool progress = false;               // progress + ETA on stderr
  std::uint32_t rank = 0, world = 1;   // points with index % world == rank (for multi-process runs)
};

struct SweepResult {
  std::vector<PlanPoint> points;
  std::vector<PointResult> results;    // by point index; resumed points are parsed back from the CSV
  std::vector<bool> pareto;            // by point index (points with errors are never on it)
  std::size_t ran = 0, skipped = 0;    // run now / taken from a previous run (--resume)
  std::string csv;                     // the final CSV text
};

std::string csv_header(const std::vector<std::string>& param_columns);
std::string csv_row(const PlanPoint& p, const PointResult& r, const std::vector<std::string>& param_columns);

SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& options);

// Ranked summary: by throughput (desc), Pareto points marked '*', at most `top` rows plus every Pareto point.
void write_sweep_summary(std::ostream& out, const SweepPlan& plan, const SweepResult& r, std::size_t top = 20);

}  // namespace vgsim::sim::planning
