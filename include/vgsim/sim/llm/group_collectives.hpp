// Collectives of several groups at once on one engine: the same call (op, bytes) issued together by every group of
// a pattern that shares nodes with the first (llm_placement.hpp contending_with_first), each group an NCCL
// communicator of its own (its algorithm, protocol, channels and rings chosen as NCCL would for that group) whose
// steps are flows on the shared fabric, so groups that share a NIC, a PCIe switch or an NVSwitch port contend for it.
// The result is the time until the last group finishes. Results are cached per (pattern, op, bytes): a job issues
// the same calls many times. Units: Bytes, Time (ps).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/llm/llm_placement.hpp"

namespace vgsim::sim::llm {

struct GroupCallResult {
  Time time{0};                // all groups started together at 0; the last one's finish
  std::string algo, proto;     // the first group's choice
  std::uint32_t channels = 0;  // the first group's
  std::uint32_t groups = 0;    // groups simulated together
  std::uint64_t events = 0;    // engine events
};

class GroupCollectives {
 public:
  // `world_endpoints[r]`: world rank r's cluster endpoint; `node_of[r]` its OS instance. Both must outlive this.
  GroupCollectives(const topo::Cluster& cluster, const CommOptions& options,
                   const std::vector<std::uint32_t>& world_endpoints, const std::vector<std::uint32_t>& node_of);

  // The call `op` of `bytes` (the NCCL count x element size, as nccl-tests' size) on every group of `groups` that
  // contends with the first. `pattern` names the group kind for the cache ("tp", "dp", "pp1", ...). A group of one
  // rank takes no time. SendRecv on a pair is NCCL's: each rank sends `bytes` to the other.
  GroupCallResult run(const std::string& pattern, const Groups& groups, coll::Op op, Bytes bytes);
  // Engine events of the calls actually simulated (cache hits add none).
  std::uint64_t events_simulated() const { return events_; }

 private:
  const topo::Cluster& cluster_;
  CommOptions options_;
  const std::vector<std::uint32_t>& world_endpoints_;
  const std::vector<std::uint32_t>& node_of_;
  std::map<std::tuple<std::string, int, Bytes>, GroupCallResult> cache_;
  std::uint64_t events_ = 0;
};

}  // namespace vgsim::sim::llm
