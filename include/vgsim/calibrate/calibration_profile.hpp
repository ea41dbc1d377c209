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
  bool operator==(const ResidualSegment&) const = default;
};
struct ResidualFactors {
  std::string op, algo, proto;  // algo/proto as in the measurements ("default" = NCCL's choice)
  std::int64_t nnodes = 0, gpus_per_node = 0;
  std::vector<ResidualSegment> segments;  // ascending start_bytes, at least one
  double factor(std::int64_t size_bytes) const;
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

  // Residual factor for a call (1 when the profile has none for this op / algo / proto / layout).
  double time_factor(const std::string& op, const std::string& algo, const std::string& proto, std::int64_t nnodes,
                     std::int64_t gpus_per_node, std::int64_t size_bytes) const;
  const MpiModel* find_mpi(const std::string& network, const std::string& algo) const;
  bool operator==(const CalibrationProfile&) const = default;
};

// Sets the profile's NCCL parameters on options.nccl and its capacity scales on options.capacity_scale (and on
// *capacity_scale when given, for callers that build a sim::Fabric themselves). Throws InputError naming the
// profile parameter when a name is unknown to the NCCL model.
void apply_profile(const CalibrationProfile& profile, sim::CommOptions& options,
                   std::map<std::string, double>* capacity_scale = nullptr);

// The network of a measurement source: "10g" for OSU files named allreduce-10g-2cpu-..., else the source itself.
std::string network_tag(const std::string& source);

nlohmann::ordered_json to_json(const CalibrationProfile& p);
CalibrationProfile calibration_profile_from_json(const nlohmann::json& j, const std::string& file);  // JsonReader
std::string dump_calibration_profile(const CalibrationProfile& p);  // 2-space indent, trailing newline
CalibrationProfile read_calibration_profile(const std::string& path);
void write_calibration_profile(const std::string& path, const CalibrationProfile& p);  // "<path>.tmp" + rename

}  // namespace vgsim::calibrate
