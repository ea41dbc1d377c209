// The NCCL side of the simulator fit, shared by its files (private to calibrate/): replaying records on a target
// with given options (NcclReplayer), the records of one fit with the errors candidates are judged by (NcclFit), and
// the steps that shape the calibrated curve in size (monotone_curve.cpp), which sim_fit.cpp runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "vgsim/calibrate/calibration_profile.hpp"
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/measurement.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/calibrate/sim_fit.hpp"
#include "vgsim/calibrate/sim_target.hpp"
#include "vgsim/kernel/parallel_for.hpp"
#include "vgsim/sim/communicator.hpp"

namespace vgsim::calibrate::detail {

// Replays NCCL records on one target with given options; communicators and results cached per (algo, proto, op,
// size) so in-place / out-of-place pairs cost one simulation. With a profile's plan choices, records of NCCL's own
// choice (algo and proto "default") run the calibrated plan for their size.
class NcclReplayer {
 public:
  NcclReplayer(const SimTarget& t, sim::CommOptions options, const std::vector<PlanChoice>* plans = nullptr)
      : t_(t), options_(std::move(options)), plans_(plans) {
    ranks_ = sim::place_ranks(*t.cluster, t.nodes, t.gpus_per_node);
  }
  bool applies(const CollectiveMeasurement& m, std::string* why) const {
    if (m.nnodes != t_.nodes || m.gpus_per_node != t_.gpus_per_node) {
      *why = "layout " + std::to_string(m.nnodes) + "x" + std::to_string(m.gpus_per_node) +
             " differs from the target " + std::to_string(t_.nodes) + "x" + std::to_string(t_.gpus_per_node);
      return false;
    }
    try {
      coll::parse_op(m.op);
    } catch (const std::exception&) {
      *why = "op " + m.op + " is not modeled";
      return false;
    }
    return true;
  }
  struct Result {
    double time_us, base_us;
    std::string chosen;
    coll::Algo algo;
    coll::Proto proto;
  };
  Result run(const CollectiveMeasurement& m) {
    std::string algo = m.algo, proto = m.proto;
    if (plans_ && algo == "default" && proto == "default")
      for (const auto& c : *plans_)
        if (c.op == m.op && c.nnodes == m.nnodes && c.gpus_per_node == m.gpus_per_node && c.covers(m.size_bytes)) {
          const PlanSegment& g = c.at(m.size_bytes);
          algo = g.algo, proto = g.proto;
        }
    return run_as(m.op, m.size_bytes, m.root, algo, proto);
  }
  // One call with the algorithm / protocol forced ("default": NCCL's choice).
  Result run_as(const std::string& op_name, std::int64_t size, std::int64_t root_rank, const std::string& algo,
                const std::string& proto) {
    const std::string key = algo + "/" + proto;
    auto it = comms_.find(key);
    if (it == comms_.end()) {
      sim::CommOptions o = options_;
      if (algo == "ring" || algo == "tree" || algo == "nvls" || algo == "nvlstree") o.algo = coll::parse_algo(algo);
      if (proto != "default") o.proto = coll::parse_proto(proto);
      it = comms_.emplace(key, std::make_unique<sim::Communicator>(*t_.cluster, ranks_, o)).first;
    }
    const std::string rkey = key + "/" + op_name + "/" + std::to_string(size) + "/" + std::to_string(root_rank);
    auto r = results_.find(rkey);
    if (r != results_.end()) return r->second;
    const coll::Op op = coll::parse_op(op_name);
    const auto root = static_cast<std::uint32_t>(std::max<std::int64_t>(0, root_rank));
    const sim::CollectiveResult res = sim::simulate_collective(*it->second, op, size, root);
    Result out{res.time.us(), res.plan.costs.base_latency.us(),
               std::string(coll::to_string(res.plan.algo)) + "/" + coll::to_string(res.plan.proto), res.plan.algo,
               res.plan.proto};
    return results_.emplace(rkey, out).first->second;
  }
  std::string transports() {
    if (comms_.empty()) run_as("allreduce", 8, -1, "default", "default");
    return comms_.begin()->second->describe_transports();
  }

 private:
  const SimTarget& t_;
  sim::CommOptions options_;
  const std::vector<PlanChoice>* plans_;
  std::vector<std::uint32_t> ranks_;
  std::map<std::string, std::unique_ptr<sim::Communicator>> comms_;
  std::map<std::string, Result> results_;
};

// The records of one NCCL fit and the two errors every candidate parameter set is judged by.
struct NcclFit {
  const SimTarget& target;
  std::vector<const CollectiveMeasurement*> records;
  std::set<std::string> kinds;          // resource kinds of the target cluster
  std::vector<std::string> bottleneck;  // the kinds whose capacity the link efficiency scales
  std::vector<double> before;           // simulated times with the target's own parameters
  double after_limit = 0;               // the bound on after_worst of any candidate

  // Median relative error of simulated times over all records.
  double median_error(const std::vector<double>& sim_us) const {
    std::vector<double> e;
    for (std::size_t i = 0; i < records.size(); ++i)
      e.push_back(std::abs(sim_us[i] - records[i]->time_us) / records[i]->time_us);
    return median_of(e);
  }

  // Worst per-series median error once residual factors are fitted on top of `sim_us` (as fit_residual_factors
  // does): a candidate may not make the calibrated profile worse than max(8 %, the catalog's), the acceptance bound
  // of the tests.
  double after_worst(const std::vector<double>& sim_us) const;  // defined in sim_fit.cpp
};

// The records that replay as one call (op, size, root, algo, proto: an nccl-tests row's in-place and out-of-place
// halves): `first[i]` is the first record of i's call, `calls` those first records in order.
struct DistinctCalls {
  std::vector<std::size_t> first, calls;
  explicit DistinctCalls(const std::vector<const CollectiveMeasurement*>& records) {
    std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::string, std::string>, std::size_t> seen;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const CollectiveMeasurement& m = *records[i];
      const auto [it, fresh] = seen.emplace(std::tuple{m.op, m.size_bytes, m.root, m.algo, m.proto}, i);
      first.push_back(it->second);
      if (fresh) calls.push_back(i);
    }
  }
};

// Runs f(state, k) for k in [0, n) on `jobs` threads (parallel_for; 0: the machine's cores), each thread with its own
// State made by make() when it first needs one (replayers cache communicators and results, so one per thread). f writes
// by k.
template <class State, class Make, class F>
void on_cores(std::size_t n, unsigned jobs, Make make, F f) {
  std::vector<std::unique_ptr<State>> states(parallel_workers(n, jobs));
  parallel_for(n, jobs, [&](unsigned w, std::size_t k) {
    if (!states[w]) states[w] = make();
    f(*states[w], k);
  });
}

// The order to hand n replays to the cores: the largest size first (stable), so the longest replays start first and
// the cores finish together (longest-processing-time order; a replay's time grows with its size). Results are still
// written by index, so the order changes only when each replay runs.
template <class SizeOf>
std::vector<std::size_t> largest_first(std::size_t n, SizeOf size_of) {
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return size_of(a) > size_of(b); });
  return order;
}
// The simulated time of every record under `options` (and `plans`, as NcclReplayer): each distinct call once, on
// the machine's cores with one replayer per thread: the same times as one replayer in turn.
inline std::vector<double> simulated_times(const SimTarget& t, const sim::CommOptions& options,
                                           const std::vector<const CollectiveMeasurement*>& records,
                                           const std::vector<PlanChoice>* plans = nullptr) {
  const DistinctCalls d(records);
  const std::vector<std::size_t> order =
      largest_first(d.calls.size(), [&](std::size_t k) { return records[d.calls[k]]->size_bytes; });
  std::vector<double> times(records.size());
  on_cores<NcclReplayer>(
      d.calls.size(), t.jobs, [&] { return std::make_unique<NcclReplayer>(t, options, plans); },
      [&](NcclReplayer& r, std::size_t k) {
        const std::size_t c = d.calls[order[k]];
        times[c] = r.run(*records[c]).time_us;
      });
  for (std::size_t i = 0; i < records.size(); ++i) times[i] = times[d.first[i]];
  return times;
}

// NCCL's own choice at the fit's measured sizes per op, except where it would make the time fall as the size grows.
std::vector<PlanChoice> fit_plan_choices(const NcclFit& fit, const sim::CommOptions& fitted);
// The residual factors of every series on top of `params` (the replayed times of fit.records), monotone there.
void fit_residual_factors(const NcclFit& fit, const std::vector<double>& params, CalibrationProfile& prof);
// At a plan switch inside a residual boundary's gap: the factor steps where the plans' calibrated times cross.
void place_switches_by_calibrated_time(const NcclFit& fit, const sim::CommOptions& fitted, CalibrationProfile& prof);
// Factors pinned at sampled sizes between measured ones where the calibrated time would still fall.
void monotone_gaps(const NcclFit& fit, const sim::CommOptions& fitted, CalibrationProfile& prof);

// The held-out part of prof.report (size_holdout.cpp): fits again on `records` without the held-out sizes of
// options.holdout among `nccl` (the records the NCCL fit replayed, with their catalog times `catalog_us`) and
// reports that profile's errors on them, with the warnings they call for.
void report_held_out_sizes(const std::vector<Measurement>& records,
                           const std::vector<const CollectiveMeasurement*>& nccl, const std::vector<double>& catalog_us,
                           const SimTarget& target, const CalibrationProvenance& provenance,
                           const CalibrationFitOptions& options, CalibrationProfile& prof);

}  // namespace vgsim::calibrate::detail
