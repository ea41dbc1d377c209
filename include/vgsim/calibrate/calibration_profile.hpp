// The calibration profile: simulator parameters fitted from measurements (calibrate/SCHEMA.md, "calibration
// profile"), with provenance and fit quality, stored as JSON, and how it is applied: NCCL model parameters by name
// (coll::NcclTuning::set), capacity scales per resource kind (sim::Fabric), residual time factors per (op, layout,
// size segment), and alpha-beta-gamma models for Open MPI (CPU) collectives. The date is given by the caller, so the
// same inputs give byte-identical files. The fitting is in sim_fit.hpp; `sim` needs only this header.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vgsim/calibrate/alpha_beta_replay.hpp"
#include "vgsim/calibrate/fit_report.hpp"
#include "vgsim/sim/communicator.hpp"

namespace vgsim::calibrate {

struct CalibrationProvenance {
  std::vector<std::string> sources;  // measurement files / probe run ids
  std::string hardware;              // cluster preset (and its description) the parameters belong to
  std::string nccl_version;          // NCCL version of the measurements if known (else ""), not the model tables'
  std::string date;                  // given by the caller, e.g. "2026-07-01"
  std::string tool = "vgsim calibrate fit";
  std::string note;
  bool operator==(const CalibrationProvenance&) const = default;
};

// The fitted physical parameters (also folded into nccl_parameters / capacity_scale below). Bounds, enforced by the
// fit and on reading: latencies >= 0 us, hop_latency_scale >= 0, efficiencies in (0, 1] (an efficiency above 1 would
// mean more than the catalog's link rate or NCCL's protocol ceiling).
struct FittedScalars {
  double extra_latency_us = 0.0;      // summary only: mean (fitted - catalog) base latency over base_latency_us
                                      // (< 0 = lowered; the fitted latencies themselves are >= 0)
  double hop_latency_scale = 1.0;     // multiplies NCCL's per-hop hw latencies and network overheads (>= 0)
  double bandwidth_efficiency = 1.0;  // capacity multiplier of the bottleneck resource kinds, (0, 1]
  std::vector<std::string> bottleneck_kinds;
  std::map<std::string, double> base_latency_us;      // "<algo>.<proto>" (e.g. "ring.ll") -> fitted base latency, us
  std::map<std::string, double> flow_cap_efficiency;  // "ll" / "ll128" -> multiplier of NCCL's per-channel protocol
                                                      // ceilings (nccl.ll_max_bw.*, nccl.per_ch_max_ring_ll128_bw.*)
  bool operator==(const FittedScalars&) const = default;
};

// Multiplicative correction of the simulated time by size segment (what the parameters leave).
struct ResidualSegment {
  std::int64_t start_bytes = 0;  // applies to sizes >= start (the first segment also below)
  double factor = 1.0;           // measured / simulated
  // > 0: between this size (the previous segment's last measured size) and start_bytes the factor moves from the
  // previous segment's to this one linearly in log(factor) over log(size), so the calibrated time has no step
  // between two measured sizes; 0: a step at start_bytes (profiles written before issue 15, and where the plan
  // switches in the same gap: monotone_curve.hpp calibrated_switch).
  std::int64_t ramp_from_bytes = 0;
  // Trend inside the segment: factor x (clamp(size, anchor, last) / anchor)^slope, i.e. log(factor) linear in
  // log(size) over the segment's measured sizes [anchor_bytes, last_bytes] and flat beyond them; slope 0 (and
  // anchor/last 0) = a constant factor.
  double slope = 0.0;
  std::int64_t anchor_bytes = 0, last_bytes = 0;
  double at(std::int64_t size_bytes) const;
  bool operator==(const ResidualSegment&) const = default;
};
// Factors the fit set at sampled sizes strictly between two neighbouring measured sizes, where the segments' factor
// alone would let the calibrated time fall there (the fitted simulation grows unevenly across the gap, or the plan
// switches in it): between from_bytes and to_bytes the factor runs log-log through (from_bytes, the segments'
// factor), the points, and (to_bytes, the segments' factor).
struct GapPoints {
  std::int64_t from_bytes = 0, to_bytes = 0;
  std::vector<std::pair<std::int64_t, double>> points{};  // (bytes, factor), ascending, inside (from, to)
  bool operator==(const GapPoints&) const = default;
};
struct ResidualFactors {
  std::string op, algo, proto;  // algo/proto as in the measurements ("default" = NCCL's choice)
  std::int64_t nnodes = 0, gpus_per_node = 0;
  std::vector<ResidualSegment> segments;  // ascending start_bytes, at least one
  std::vector<GapPoints> gaps{};          // ascending, not overlapping
  double factor(std::int64_t size_bytes) const;
  double segment_factor(std::int64_t size_bytes) const;  // without `gaps`
  bool operator==(const ResidualFactors&) const = default;
};

// Fit quality of one measured series: relative error of the simulated time before calibration (catalog defaults),
// with the fitted parameters, and with parameters plus residual factors.
struct SeriesQuality {
  std::string series;  // SeriesKey::label()
  std::int64_t points = 0;
  double median_before = 0, max_before = 0, median_params = 0, max_params = 0, median_after = 0, max_after = 0;
  bool operator==(const SeriesQuality&) const = default;
};

// An alpha-beta-gamma model of one Open MPI algorithm on one network (network tag: see network_tag()).
struct MpiModel {
  std::string network, algo;
  std::int64_t fitted_nranks = 0;
  AlphaBetaGamma model;
  bool operator==(const MpiModel&) const = default;
};

// What the fit saw: a profile applied outside it warns (coverage_warnings) where its values were not measured.
struct ProfileCoverage {
  std::vector<std::int64_t> nodes, gpus_per_node;  // distinct layouts of the fitted records
  std::vector<std::string> transports;             // Communicator::describe_transports() parts ("intra-node: ...")
  std::int64_t min_size_bytes = 0, max_size_bytes = 0;
  bool operator==(const ProfileCoverage&) const = default;
};

// The calibrated choice of NCCL algorithm and protocol by size for one (op, layout): at every size the plan whose
// simulated time is lowest among the plans NCCL chose somewhere in the measured range, switching where their times
// cross (so the calibrated time never falls as the size grows: each plan's time grows with the size and the
// minimum of growing curves grows). Applies to calls that force neither algorithm nor protocol.
struct PlanSegment {
  std::int64_t start_bytes = 0;  // from this size on (the first segment also below)
  std::string algo, proto;       // coll::to_string names, e.g. "tree", "LL128"
  bool operator==(const PlanSegment&) const = default;
};
struct PlanChoice {
  std::string op;
  std::int64_t nnodes = 0, gpus_per_node = 0;
  std::vector<PlanSegment> segments;  // ascending start_bytes, at least one
  std::int64_t max_bytes = 0;         // the largest measured size: above it NCCL's own choice (0 = no limit)
  const PlanSegment& at(std::int64_t size_bytes) const;
  bool covers(std::int64_t size_bytes) const {
    return !segments.empty() && (max_bytes <= 0 || size_bytes <= max_bytes);
  }
  bool operator==(const PlanChoice&) const = default;
};

struct CalibrationProfile {
  CalibrationProvenance provenance;
  std::string cluster;  // preset name or file the simulator parameters were fitted on ("" when none)
  std::int64_t nodes = 0, gpus_per_node = 0;
  std::map<std::string, double> nccl_parameters;  // absolute values, applied with NcclTuning::set
  std::map<std::string, double> capacity_scale;   // resource kind -> capacity multiplier
  FittedScalars fitted;
  std::vector<ResidualFactors> residuals;
  std::vector<MpiModel> mpi_models;
  std::vector<SeriesQuality> quality;
  ProfileCoverage coverage;
  // Parameters and groups the data did not constrain: they keep their catalog values ("not measured").
  std::vector<std::string> not_measured;
  std::vector<PlanChoice> plans;
  // Why the fit kept less than it fitted (e.g. residual factors dropped because they raised the maximum error
  // above the uncalibrated model's); "" when everything fitted was kept.
  std::string fit_note;
  // What the fit did in numbers: error decomposition, held-out errors, warnings (written when the fit set it).
  FitReport report;

  // Residual factor for a call (1 when the profile has none for this op / algo / proto / layout).
  double time_factor(const std::string& op, const std::string& algo, const std::string& proto, std::int64_t nnodes,
                     std::int64_t gpus_per_node, std::int64_t size_bytes) const;
  const MpiModel* find_mpi(const std::string& network, const std::string& algo) const;
  // The calibrated plan for a call of NCCL's own choice, or nullptr when the profile has none for this layout.
  const PlanSegment* plan_for(const std::string& op, std::int64_t nnodes, std::int64_t gpus_per_node,
                              std::int64_t size_bytes) const;
  bool operator==(const CalibrationProfile&) const = default;
};

// Sets the profile's NCCL parameters on options.nccl and its capacity scales on options.capacity_scale (and on
// *capacity_scale when given, for callers that build a sim::Fabric themselves). Throws InputError naming the
// profile parameter when a name is unknown to the NCCL model.
void apply_profile(const CalibrationProfile& profile, sim::CommOptions& options,
                   std::map<std::string, double>* capacity_scale = nullptr);

// The parts of Communicator::describe_transports() ("intra-node: P2P/NVL over NVLink"; bottleneck figures cut).
std::vector<std::string> transport_parts(const std::string& describe_transports);

// One line per fact the profile was not fitted on, for a run on `cluster` with `nodes` x `gpus_per_node` and the
// communicator's transports (Communicator::describe_transports()), e.g. "profile fitted on 1 node: inter-node
// latency and bandwidth not measured; catalog values used". Empty when the run is inside what the profile saw.
std::vector<std::string> coverage_warnings(const CalibrationProfile& profile, const std::string& cluster,
                                           std::int64_t nodes, std::int64_t gpus_per_node,
                                           const std::string& transports);

// The network of a measurement source: "10g" for OSU files named allreduce-10g-2cpu-..., else the source itself.
std::string network_tag(const std::string& source);

nlohmann::ordered_json to_json(const CalibrationProfile& p);
CalibrationProfile calibration_profile_from_json(const nlohmann::json& j, const std::string& file);  // JsonReader
std::string dump_calibration_profile(const CalibrationProfile& p);  // 2-space indent, trailing newline
CalibrationProfile read_calibration_profile(const std::string& path);
void write_calibration_profile(const std::string& path, const CalibrationProfile& p);  // "<path>.tmp" + rename

}  // namespace vgsim::calibrate
