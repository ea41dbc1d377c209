// A sweep point's result as JSON, losslessly: every field of PointResult (point_runner.hpp), doubles written so that
// they read back bit for bit (finite values as JSON numbers, which nlohmann prints round-trip exact; inf/nan as
// strings). Used by the sweep journal (journal.hpp) and by the MPI sweep's result messages, so a resumed or
// distributed sweep sees exactly the values a local uninterrupted run computed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "vgsim/sim/planning/point_runner.hpp"

namespace vgsim::sim::planning {

nlohmann::ordered_json to_json(const PointResult& r);
// Throws InputError(file, "<where>.<field>", ...) when a field is missing or has the wrong type.
PointResult point_result_from_json(const nlohmann::json& j, const std::string& file, const std::string& where);

}  // namespace vgsim::sim::planning
