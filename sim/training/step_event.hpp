// The timer events of one job's step engine (job_runner.hpp), typed. The engine gives a timer event one 64-bit tag
// (its events are 32-byte records: time, sequence, kind and two integers, the handler taking one of them), so a
// StepEvent travels as a tag: kind (8 bits) | generation (24 bits) | group (32 bits). It is encoded and decoded
// here only; the handlers see the struct.
#pragma once

#include <cstdint>

namespace vgsim::sim::training {

enum class StepEventKind : std::uint8_t {
  GroupReady = 0,      // the framework issues gradient group `group` (its wait after its last gradient is over)
  ReplayDone = 1,      // the replayed collective of group `group` finishes (collective_stream.hpp)
  IterationStart = 2,  // the next iteration's first forward starts
  WorkReached = 3,     // backward work up to group `group`'s last gradient is done at compute rate `generation`
};

struct StepEvent {
  // Generations are compared modulo 2^24: a stale event would pass for a current one only after exactly 2^24 rate
  // changes (one per collective start or end) while it waits.
  static constexpr std::uint32_t kGenerationMask = 0xffffffu;

  StepEventKind kind = StepEventKind::IterationStart;
  std::uint32_t group = 0;       // gradient group index (GroupReady, ReplayDone, WorkReached)
  std::uint32_t generation = 0;  // WorkReached: compute-rate generation, modulo 2^24

  static StepEvent group_ready(std::uint32_t g) { return {StepEventKind::GroupReady, g, 0}; }
  static StepEvent replay_done(std::uint32_t g) { return {StepEventKind::ReplayDone, g, 0}; }
  static StepEvent iteration_start() { return {StepEventKind::IterationStart, 0, 0}; }
  static StepEvent work_reached(std::uint32_t g, std::uint64_t generation) {
    return {StepEventKind::WorkReached, g, static_cast<std::uint32_t>(generation & kGenerationMask)};
  }

  std::uint64_t tag() const {
    return (static_cast<std::uint64_t>(kind) << 56) | (static_cast<std::uint64_t>(generation & kGenerationMask) << 32) |
           group;
  }
  static StepEvent from_tag(std::uint64_t tag) {
    return {static_cast<StepEventKind>(tag >> 56), static_cast<std::uint32_t>(tag & 0xffffffffu),
            static_cast<std::uint32_t>((tag >> 32) & kGenerationMask)};
  }
};

}  // namespace vgsim::sim::training
