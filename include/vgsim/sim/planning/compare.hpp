// Side-by-side comparison of two simulated training designs: each is a `vgsim train --json` report or a sweep plan
// point ("plan.json#INDEX", simulated here with the plan's fidelity). The comparison holds, for A and B: throughput,
// scaling efficiency, the iteration breakdown (compute, exposed and busy communication, overlap), the saturated
// link (highest utilisation) and the parameters that differ (name, A value, B value; "(unset)" when one side lacks
// it). Rendered as markdown (stdout) or JSON. Reports are read with JsonReader (errors name file and JSON path).
#pragma once

#include <ostream>
#include <string>

#include "vgsim/kernel/json_input.hpp"

namespace vgsim::sim::planning {

// A train report from a file, or from a plan point "plan.json#INDEX". `label` is what the user typed.
// `extra_sets` (key=value, e.g. a training calibration profile's) apply to a plan point under the plan's own
// parameters; a report JSON is read as it is.
Json load_design(const std::string& file_or_point, const std::vector<std::string>& extra_sets = {});

// {"a": {...summary...}, "b": {...}, "differences": [{"name", "a", "b"}], "ratio_throughput": b/a}.
Json compare_designs(const Json& a, const std::string& label_a, const Json& b, const std::string& label_b);

void write_compare_markdown(std::ostream& out, const Json& comparison);

}  // namespace vgsim::sim::planning
