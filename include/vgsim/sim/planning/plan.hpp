// A what-if sweep plan: a base training job plus a grid (cartesian product) and/or a list of parameter overrides;
// expanding it gives the design points in a fixed order (list entries outer, grid keys in sorted name order, values
// in file order, the last grid key varying fastest). Parameters are JSON scalars by name: job fields (cluster,
// workload, nodes, gpus_per_node, NCCL knobs), training settings / compute.* / nccl.* / vgpu.* (passed as --set
// key=value), for a Transformer-shape workload (sim::llm::is_llm_workload) the large-model plan and llm.* names of
// sim::llm::llm_workload_params (tp, pp, dp, zero_stage, micro_batch, global_batch, ...), and free template variables
// "var.*". String values may contain {name} templates filled from the point's parameters. Prices turn a design into
// a cost. Parsed with JsonReader (errors name file, JSON path, value).
// Not the runner (point_runner.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/training/job.hpp"

namespace vgsim::sim::planning {

// Step: the engine. Folded: the engine with the channel fold (CommOptions::fold_channels, an approximation for large
// scales; a large-model point, which does not take it, runs at step). Analytical: closed forms (analytical.hpp).
enum class Fidelity { Step, Folded, Analytical };
Fidelity parse_fidelity(const std::string& s);  // "step" | "folded" | "analytical" (InputError otherwise)
const char* to_string(Fidelity f);

// Prices per unit (any currency; the plan names it); a point may override one with a price.gpu / price.host /
// price.nic_port / price.switch_port parameter (e.g. a 100 GbE port costs more than a 25 GbE one). Cost of a design =
//   gpu x distinct physical GPUs used + host x hosts used + (nic_port + switch_port) x cabled NIC ports of those hosts.
struct Prices {
  std::string currency = "USD", source;
  double gpu = 0, host = 0, nic_port = 0, switch_port = 0;
};

struct SweepPlan {
  std::string file, name, description, source;
  std::map<std::string, Json> base;                             // parameters of every point (before overrides)
  std::vector<std::pair<std::string, std::vector<Json>>> grid;  // sorted by name
  std::vector<std::map<std::string, Json>> list;                // each entry: overrides (may carry "label")
  std::optional<Prices> prices;
  Fidelity fidelity = Fidelity::Step;
};

struct PlanPoint {
  std::size_t index = 0;
  std::string id;                      // 16 hex digits: FNV-1a 64 of the canonical parameters JSON
  std::string label;                   // list entry label ("" if none)
  std::map<std::string, Json> params;  // resolved (templates filled), base + list entry + grid values
};

// Reads and validates a plan file (unknown keys, unknown parameter names with a did-you-mean, empty grid axes,
// non-scalar values, templates naming unknown parameters).
SweepPlan load_plan(const std::string& file);
SweepPlan parse_plan(const Json& j, const std::string& file);

// Number of points = max(1, |list|) x product of the grid axis lengths.
std::size_t point_count(const SweepPlan& plan);
std::vector<PlanPoint> expand(const SweepPlan& plan);

// The point as a training JobSpec (scenario first if given, then its parameters). InputError names the plan file.
training::JobSpec to_job_spec(const SweepPlan& plan, const PlanPoint& point);

// Parameter names that differ between points (or are set in the base): the CSV's parameter columns, sorted.
std::vector<std::string> parameter_columns(const std::vector<PlanPoint>& points);

// Scalar as text: strings verbatim, numbers / booleans as JSON ("1024", "true").
std::string scalar_text(const Json& v);

}  // namespace vgsim::sim::planning
