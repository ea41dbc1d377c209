// Fitting the simulator to measurements and replaying measurements through it (validation). NCCL records are
// replayed on a modeled cluster with sim::simulate_collective (forced algo/proto when the record names one);
// Open MPI records on the physical Open MPI model (sim/mpi_collective.hpp) over the target cluster, with what Open MPI
// would run (the requested algorithm only with dynamic rules on; mpi_fit.hpp config_for_file); without a target
// cluster, a profile's alpha-beta-gamma models over the Open MPI schedules (alpha_beta_replay.hpp) when it has one.
// The NCCL fit is bounded (physically plausible): per (algo, proto) chosen an absolute base latency >= 0, one scale
// >= 0 of the per-hop latencies and network overheads, one efficiency in (0, 1] of the bottleneck resource kinds
// (found by halving each kind's capacity), and per LL / LL128 an efficiency in (0, 1] of NCCL's per-channel protocol
// ceiling (the flow cap, where the simulated bottleneck is not a link). Each pass linearizes the simulated time
// around the current parameters with the plan forced to the current (algo, proto), solves NNLS on relative error
// (1/efficiency = 1 + x, x >= 0), and replays with damped steps; the catalog values are the first candidate and the
// lowest median error wins. Issue 15: parameters the data does not constrain keep their catalog values (one node:
// the network's hops; kinds that are no bottleneck; pairs NCCL never chose) and are listed as not measured; the
// plan choice is made monotone in size (calibration_profile.hpp, PlanChoice); what is left is kept as residual
// factors by size segment (log-linear, ramped or stepped at a plan switch, pinned at sampled sizes between measured
// ones where the curve would still fall: monotone); a series whose maximum error ends
// above the uncalibrated model's gets the minimax factors, else a fit_note naming its worst point and why.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/calibrate/calibration_profile.hpp"
#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/measurement.hpp"
#include "vgsim/calibrate/monotone_curve.hpp"
#include "vgsim/calibrate/sim_target.hpp"
#include "vgsim/calibrate/size_holdout.hpp"
#include "vgsim/sim/mpi_collective.hpp"
#include "vgsim/topologies/cluster.hpp"

namespace vgsim::calibrate {

struct ValidationRow {
  std::string series;  // SeriesKey::label()
  std::int64_t size_bytes = 0;
  double measured_us = 0, simulated_us = 0, rel_error = 0;
  std::string chosen;  // e.g. "ring/simple" (NCCL's choice in the simulator) or the MPI algorithm
};
struct ValidationReport {
  std::vector<ValidationRow> rows;  // in record order
  FitQuality quality;               // over rows
  std::int64_t skipped = 0;         // records that could not be replayed (other layout, no MPI model, op not modeled)
  std::vector<std::string> skip_reasons;  // one line per distinct reason
};

// Replays every usable collective record (size > 0). NCCL records need `target` (else skipped); records whose
// nnodes / gpus_per_node differ from the target's are skipped. `profile` (may be null) is applied to the options and
// its residual factors multiply the simulated times. Open MPI records run on `target->mpi` at the record's nodes x
// ranks per node; without it, on the profile's alpha-beta MPI model for (network, algorithm) when it has one, else
// they are skipped with a reason naming --cluster.
ValidationReport validate_measurements(const std::vector<Measurement>& records, const SimTarget* target,
                                       const CalibrationProfile* profile);

// What a fit does besides its defaults.
struct CalibrationFitOptions {
  // false (--no-size-corrections): the physical parameters and the calibrated plan choice only, no residual factors
  // (the physical stage is the same either way: the parameter search does not depend on this switch).
  bool size_corrections = true;
  // Sizes to hold out (size_holdout.hpp): the fit is repeated without them and report.held_out gives the errors of
  // that profile on them. None here (one fit); vgsim calibrate fit asks for "auto".
  SizeHoldout holdout{};
};

// Fits a profile: simulator parameters and residual factors from the NCCL records (when `target` is given and
// such records exist) and one alpha-beta-gamma model per (network, Open MPI algorithm) from the MPI records.
// The profile's report (fit_report.hpp) holds the NCCL fit's error decomposition and, with options.holdout, the
// held-out errors and their warnings. Throws InputError when nothing can be fitted.
CalibrationProfile fit_calibration(const std::vector<Measurement>& records, const SimTarget* target,
                                   const CalibrationProvenance& provenance, const CalibrationFitOptions& options = {});

}  // namespace vgsim::calibrate
