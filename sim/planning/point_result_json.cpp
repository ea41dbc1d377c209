// PointResult <-> JSON without loss (see include/vgsim/sim/planning/point_result_json.hpp).
#include "vgsim/sim/planning/point_result_json.hpp"

#include <cmath>
#include <cstdlib>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::sim::planning {

namespace {

nlohmann::ordered_json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

struct Fields {
  const nlohmann::json& j;
  const std::string& file;
  const std::string& where;
  const nlohmann::json& at(const char* k) const {
    auto it = j.find(k);
    if (it == j.end())
      throw InputError(file, where + "." + k, "field missing from a sweep result", "", "every field of a result");
    return *it;
  }
  std::string str(const char* k) const {
    const auto& v = at(k);
    if (!v.is_string()) throw InputError(file, where + "." + k, "not a string", v.dump().substr(0, 40), "a string");
    return v.get<std::string>();
  }
  std::uint64_t count(const char* k) const {
    const auto& v = at(k);
    if (!v.is_number_unsigned())
      throw InputError(file, where + "." + k, "not a count", v.dump().substr(0, 40), "an integer >= 0");
    return v.get<std::uint64_t>();
  }
  double real(const nlohmann::json& v, const std::string& path) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (s == "inf") return INFINITY;
      if (s == "-inf") return -INFINITY;
      if (s == "nan") return NAN;
    }
    throw InputError(file, path, "not a number", v.dump().substr(0, 40), "a number, \"inf\", \"-inf\" or \"nan\"");
  }
  double real(const char* k) const { return real(at(k), where + "." + k); }
};

}  // namespace

nlohmann::ordered_json to_json(const PointResult& r) {
  nlohmann::ordered_json j;
  j["index"] = r.index;
  j["id"] = r.id;
  j["label"] = r.label;
  j["error"] = r.error;
  j["fidelity"] = r.fidelity;
  j["ranks"] = r.ranks;
  j["throughput"] = number(r.throughput);
  j["unit"] = r.unit;
  j["efficiency"] = number(r.efficiency);
  j["iteration_ms"] = number(r.iteration_ms);
  j["compute_ms"] = number(r.compute_ms);
  j["exposed_comm_ms"] = number(r.exposed_comm_ms);
  j["comm_busy_ms"] = number(r.comm_busy_ms);
  auto causes = nlohmann::ordered_json::array();
  for (double v : r.exposed_cause_ms) causes.push_back(number(v));
  j["exposed_cause_ms"] = causes;
  j["bottleneck"] = r.bottleneck;
  j["bottleneck_share"] = number(r.bottleneck_share);
  j["busiest_link"] = r.busiest_link;
  j["busiest_link_utilisation"] = number(r.busiest_link_utilisation);
  j["gpus"] = r.gpus;
  j["hosts"] = r.hosts;
  j["nic_ports"] = r.nic_ports;
  j["cost"] = number(r.cost);
  j["cost_per_throughput"] = number(r.cost_per_throughput);
  return j;
}

PointResult point_result_from_json(const nlohmann::json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "a sweep result must be a JSON object", "", "{...}");
  const Fields f{j, file, where};
  PointResult r;
  r.index = f.count("index");
  r.id = f.str("id");
  r.label = f.str("label");
  r.error = f.str("error");
  r.fidelity = f.str("fidelity");
  auto u32 = [&](const char* k) {
    const std::uint64_t v = f.count(k);
    if (v > UINT32_MAX) throw InputError(file, where + "." + k, "count out of range", std::to_string(v), "< 2^32");
    return static_cast<std::uint32_t>(v);
  };
  r.ranks = u32("ranks");
  r.throughput = f.real("throughput");
  r.unit = f.str("unit");
  r.efficiency = f.real("efficiency");
  r.iteration_ms = f.real("iteration_ms");
  r.compute_ms = f.real("compute_ms");
  r.exposed_comm_ms = f.real("exposed_comm_ms");
  r.comm_busy_ms = f.real("comm_busy_ms");
  const auto& causes = f.at("exposed_cause_ms");
  if (!causes.is_array() || causes.size() != r.exposed_cause_ms.size())
    throw InputError(file, where + ".exposed_cause_ms", "wrong shape", causes.dump().substr(0, 40),
                     "an array of " + std::to_string(r.exposed_cause_ms.size()) + " numbers");
  for (std::size_t k = 0; k < r.exposed_cause_ms.size(); ++k)
    r.exposed_cause_ms[k] = f.real(causes[k], where + ".exposed_cause_ms[" + std::to_string(k) + "]");
  r.bottleneck = f.str("bottleneck");
  r.bottleneck_share = f.real("bottleneck_share");
  r.busiest_link = f.str("busiest_link");
  r.busiest_link_utilisation = f.real("busiest_link_utilisation");
  r.gpus = u32("gpus");
  r.hosts = u32("hosts");
  r.nic_ports = u32("nic_ports");
  r.cost = f.real("cost");
  r.cost_per_throughput = f.real("cost_per_throughput");
  return r;
}

}  // namespace vgsim::sim::planning
