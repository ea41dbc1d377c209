// Replay of Open MPI allreduce schedules (workloads/collectives/ompi_allreduce.hpp) on a plain alpha-beta-gamma
// network, and its fit to OSU measurements. The network: one NIC per rank (one node per rank: the OSU runs), each
// with a transmit and a receive resource in a vgsim::Simulator (full duplex; flows sharing a NIC direction share it
// max-min); a message of m bytes costs alpha(m) latency plus m * beta(m) of NIC time, and a reduced message m * gamma
// of CPU time at the receiver after arrival (Hockney + Thakur et al. 2005, docs/SOURCES.md#cost-models). alpha and beta
// are piecewise by MESSAGE size (SimGrid SMPI style: eager / rendezvous switch), gamma is one constant.
// Units: us, us per byte, bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgsim/calibrate/fit.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/workloads/collectives/ompi_allreduce.hpp"

namespace vgsim::calibrate {

struct AlphaBetaSegment {
  std::int64_t start_bytes = 0;  // applies to messages >= start_bytes (the first segment also below)
  double alpha_us = 0.0;
  double beta_us_per_byte = 0.0;
  bool operator==(const AlphaBetaSegment&) const = default;
};

struct AlphaBetaGamma {
  std::vector<AlphaBetaSegment> segments{AlphaBetaSegment{}};  // ascending start_bytes, at least one
  double gamma_us_per_byte = 0.0;
  const AlphaBetaSegment& segment(std::int64_t message_bytes) const;
  bool operator==(const AlphaBetaGamma&) const = default;
};

// Simulated time in us of one schedule on the network above (0 for an empty schedule).
double replay_ompi_us(const coll::OmpiSchedule& schedule, const AlphaBetaGamma& model);

// Simulated time of an OSU-style allreduce point: `algo` an Open MPI algorithm name, `nranks` ranks (one per node),
// `size_bytes` per rank (float elements, as OSU 5.x).
double predict_ompi_us(const AlphaBetaGamma& model, const std::string& algo, std::int64_t nranks,
                       std::int64_t size_bytes);

struct AlphaBetaGammaFit {
  AlphaBetaGamma model;
  FitQuality quality;  // replayed (engine) relative error over every point of the fitted series
};

// Least squares on relative error (alpha, beta, gamma >= 0; Lawson-Hanson NNLS, Eigen) over every point of `series`
// (Open MPI allreduce series: key.algo must name an Open MPI algorithm, key.nranks ranks one per node). The message-
// size breakpoints are chosen among `candidate_breakpoints_bytes` (at most `max_segments` - 1 of them) by the
// smallest RMS relative error. Throws std::invalid_argument on an empty input or a non-MPI algorithm.
// Default candidates: powers of two from 4 KiB to 16 MiB (Open MPI's TCP eager limit is 64 KiB; large CPU
// reductions leave the caches past a few MiB: both show as slope changes in data/measured/osu-openmpi).
AlphaBetaGammaFit fit_alpha_beta_gamma(const std::vector<Series>& series, int max_segments = 3,
                                       const std::vector<std::int64_t>& candidate_breakpoints_bytes = {
                                           4096, 8192, 16384, 32768, 65536, 131072, 262144, 1048576, 4194304,
                                           16777216});

// Relative-error quality of `model` replayed on `series`.
FitQuality alpha_beta_gamma_quality(const AlphaBetaGamma& model, const std::vector<Series>& series);

}  // namespace vgsim::calibrate
