// Private to workloads/collectives: the builder of Open MPI schedules (ompi_allreduce.cpp, ompi_allgather.cpp). One
// MPI process = one sequential program: a rank's send waits for the rank's previous send and for the receive it
// forwards or combines; a round's receives become the receivers' last receives when the round ends.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "builder.hpp"
#include "vgsim/workloads/collectives/ompi_allreduce.hpp"

namespace vgsim::coll::detail {

class OmpiBuilder {
 public:
  static constexpr std::uint64_t kNone = Appender::kNone;
  OmpiBuilder(OmpiSchedule& out, std::uint32_t ranks)
      : out_(out), app_(out.schedule, 64, 128), last_send_(ranks, kNone), last_recv_(ranks, kNone) {}

  // A message src -> dst of `bytes`; waits for src's previous send, src's last completed receive and `extra`.
  // `posted_together`: a non-blocking send posted with the rank's previous ones (MPI_Isend), not after them.
  std::uint64_t send(std::uint32_t src, std::uint32_t dst, Bytes bytes, bool reduce, std::uint32_t step,
                     std::uint64_t extra = kNone, bool posted_together = false) {
    std::vector<std::uint64_t> deps{posted_together ? kNone : last_send_[src], last_recv_[src], extra};
    app_.add_list(src, dst, 0, step, bytes, deps);
    out_.reduces.push_back(reduce ? 1 : 0);
    const std::uint64_t id = out_.schedule.transfers.size() - 1;
    last_send_[src] = id;
    pending_recv_.emplace_back(dst, id);
    return id;
  }
  // Ends a round: receives posted in this round become the receivers' last receives (a round = sends that may
  // proceed concurrently, e.g. both directions of an exchange).
  void end_round() {
    for (auto [dst, id] : pending_recv_) last_recv_[dst] = std::max(last_recv_[dst] == kNone ? 0 : last_recv_[dst], id);
    pending_recv_.clear();
  }

 private:
  OmpiSchedule& out_;
  Appender app_;
  std::vector<std::uint64_t> last_send_, last_recv_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pending_recv_;
};

}  // namespace vgsim::coll::detail
