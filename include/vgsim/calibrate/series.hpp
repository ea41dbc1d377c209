// Grouping of collective measurements into series: one series = one (op, algo, proto, dtype, ranks/nodes, in-place,
// library, source) configuration measured over a range of sizes. A series is what the fitting code fits.
// Points are sorted by size (then time); records of other kinds are ignored.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/calibrate/measurement.hpp"

namespace vgsim::calibrate {

struct SeriesKey {
  std::string op, algo, proto, dtype;
  std::int64_t nranks = 0, nnodes = 0, gpus_per_node = 0;
  bool in_place = false;
  std::string library, source;
  std::optional<bool> mpi_dynamic_rules;  // as in CollectiveMeasurement (nullopt: not stated)

  auto operator<=>(const SeriesKey&) const = default;
  bool operator==(const SeriesKey&) const = default;
  // "allreduce/ring/simple float n16 (2x8) out-of-place nccl <source>" (+ " dynamic_rules=yes|no" when stated)
  std::string label() const;
};

struct SeriesPoint {
  std::int64_t size_bytes = 0;
  double time_us = 0.0;
};

struct Series {
  SeriesKey key;
  std::vector<SeriesPoint> points;  // ascending size_bytes
};

SeriesKey series_key(const CollectiveMeasurement& m);

// Groups the collective records; series come out sorted by key. Unusable records (usable == false: a wrong result)
// are dropped. Records with size_bytes == 0 (nccl-tests' no-op rows,
// which time an empty launch, not a transfer) are dropped unless keep_zero_size.
std::vector<Series> group_series(const std::vector<Measurement>& records, bool keep_zero_size = false);

}  // namespace vgsim::calibrate
