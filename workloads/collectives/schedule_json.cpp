// JSON dump of a collective schedule (see schedule_json.hpp).
#include "vgsim/workloads/collectives/schedule_json.hpp"

#include <nlohmann/json.hpp>

#include "vgsim/workloads/collectives/generators.hpp"

namespace vgsim::coll {

namespace {
// A rank as a number; the NVLS switch endpoint (kSwitchRank) as the string "switch".
nlohmann::ordered_json endpoint(std::uint32_t rank) {
  return rank == kSwitchRank ? nlohmann::ordered_json("switch") : nlohmann::ordered_json(rank);
}
}  // namespace

std::string to_json(const CollectiveSchedule& streamed_or_stored, std::size_t max_transfers, int indent) {
  // A streamed ring or tree is dumped with its transfers (materialized here; the dump is for inspection and small
  // cases).
  const CollectiveSchedule stored =
      streamed_or_stored.streamed ? materialize(streamed_or_stored) : CollectiveSchedule{};
  const CollectiveSchedule& s = streamed_or_stored.streamed ? stored : streamed_or_stored;
  nlohmann::ordered_json j;
  j["op"] = to_string(s.op);
  j["algo"] = to_string(s.algo);
  j["proto"] = to_string(s.proto);
  j["ranks"] = s.ranks;
  j["ranks_per_node"] = s.ranks_per_node;
  j["channels"] = s.channels;
  j["size_bytes"] = s.size;
  j["chunk_bytes"] = s.chunk_bytes;
  j["slots"] = s.slots;
  j["slices"] = s.slices;
  j["loops"] = s.loops;
  j["root"] = s.root;
  j["transfers_total"] = s.transfers.size();
  auto arr = nlohmann::ordered_json::array();
  const std::size_t n = std::min(max_transfers, s.transfers.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Transfer& t = s.transfers[i];
    nlohmann::ordered_json tj;
    tj["i"] = i;
    tj["src"] = endpoint(t.src);
    tj["dst"] = endpoint(t.dst);
    tj["channel"] = t.channel;
    tj["step"] = t.step;
    tj["bytes"] = t.bytes;
    auto deps = nlohmann::ordered_json::array();
    for (std::uint32_t d = 0; d < t.dep_count; ++d) deps.push_back(s.deps[t.dep_begin + d]);
    tj["deps"] = std::move(deps);
    arr.push_back(std::move(tj));
  }
  j["transfers"] = std::move(arr);
  return j.dump(indent);
}

}  // namespace vgsim::coll
