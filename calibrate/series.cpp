// Grouping of collective measurements into fit series (include/vgsim/calibrate/series.hpp).
#include "vgsim/calibrate/series.hpp"

#include <algorithm>
#include <map>

namespace vgsim::calibrate {

std::string SeriesKey::label() const {
  return op + "/" + algo + "/" + proto + " " + dtype + " n" + std::to_string(nranks) + " (" + std::to_string(nnodes) +
         "x" + std::to_string(gpus_per_node) + ") " + (in_place ? "in-place" : "out-of-place") + " " + library + " " +
         source + (mpi_dynamic_rules ? (*mpi_dynamic_rules ? " dynamic_rules=yes" : " dynamic_rules=no") : "");
}

SeriesKey series_key(const CollectiveMeasurement& m) {
  SeriesKey k;
  k.op = m.op, k.algo = m.algo, k.proto = m.proto, k.dtype = m.dtype;
  k.nranks = m.nranks, k.nnodes = m.nnodes, k.gpus_per_node = m.gpus_per_node;
  k.in_place = m.in_place;
  k.library = m.library, k.source = m.source;
  k.mpi_dynamic_rules = m.mpi_dynamic_rules;
  return k;
}

std::vector<Series> group_series(const std::vector<Measurement>& records, bool keep_zero_size) {
  std::map<SeriesKey, std::vector<SeriesPoint>> groups;
  for (const auto& r : records) {
    const auto* c = std::get_if<CollectiveMeasurement>(&r);
    if (!c || !c->usable || (c->size_bytes == 0 && !keep_zero_size)) continue;
    groups[series_key(*c)].push_back(SeriesPoint{c->size_bytes, c->time_us});
  }
  std::vector<Series> out;
  for (auto& [key, pts] : groups) {
    std::sort(pts.begin(), pts.end(), [](const SeriesPoint& a, const SeriesPoint& b) {
      return a.size_bytes != b.size_bytes ? a.size_bytes < b.size_bytes : a.time_us < b.time_us;
    });
    out.push_back(Series{key, std::move(pts)});
  }
  return out;
}

}  // namespace vgsim::calibrate
