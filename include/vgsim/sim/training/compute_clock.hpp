// Backward-pass progress of one rank when NCCL kernels share the GPU with it: NCCL launches one CTA per channel and
// each CTA holds an SM for the whole collective, so while collectives run, compute gets the remaining SMs and
// progresses at rate 1 - share (share = channels x SMs per channel / SMs of the GPU, capped below 1). Work is
// measured in unslowed compute time (ps of backward at full speed); wall time in ps. Header-only, shared by the step
// engine (sim/training) and the analytical fidelity (sim/planning) so both apply the same closed form. Not modelled:
// the HBM bandwidth the reductions take (memory-bound layers slow further) and any effect on forward or optimizer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "vgsim/kernel/units.hpp"

namespace vgsim::sim::training {

// SMs one NCCL channel occupies while a collective runs: 1. NCCL's device kernel is launched with one CTA per channel
// (grid = nChannels, enqueue.cc) of 512-640 threads (docs/SOURCES.md#nccl-tuning: Simple up to 512 + a sync warp, LL
// 512, LL128 640) and tens of KiB of shared memory, so one CTA fills one SM's scheduling slots [assumption: no compute
// CTA co-resides on that SM]. 0 switches the slowdown off. Settable: --set compute.nccl_sm_per_channel=X.
constexpr double kDefaultNcclSmPerChannel = 1.0;
// [assumption] cap on the share of SMs NCCL can take from compute (64 channels on a small MIG slice would otherwise
// stop compute); NCCL's own hard cap is MAXCHANNELS = 64 (docs/SOURCES.md#nccl-tuning).
constexpr double kMaxNcclSmShare = 0.9;

// Share of the compute SMs a collective with `channels` channels takes: channels x sm_per_channel / sms, in [0, 0.9].
inline double nccl_sm_share(std::uint32_t channels, double sms, double sm_per_channel) {
  if (!(sms > 0.0) || !(sm_per_channel > 0.0)) return 0.0;
  return std::clamp(static_cast<double>(channels) * sm_per_channel / sms, 0.0, kMaxNcclSmShare);
}

// Piecewise-linear work(t): starts at `start` with work 0 and rate 1; set_share(now, s) changes the rate to 1 - s.
// Work saturates at `total` (the backward pass is done); done_at() is when it got there. The past pieces are kept,
// so time_when() also answers for work reached before the last change (the analytical fidelity asks for a group's
// ready time after the previous collective has moved the clock on).
class ComputeClock {
 public:
  ComputeClock() = default;
  ComputeClock(Time start, Time total) : t0_(start), total_(total) {
    if (total_.ps <= 0) done_ = start;
  }

  // Work done at `now` (>= the last change).
  double work_at(Time now) const {
    return std::min(static_cast<double>(total_.ps), w0_ + rate_ * static_cast<double>((now - t0_).ps));
  }
  bool finished() const { return done_.ps >= 0; }
  Time done_at() const { return done_; }
  Time total() const { return total_; }

  // Wall time at which `work` (ps of unslowed compute) is reached: under the current rate for work ahead, on the
  // piece it was reached on for work already done (work <= 0: the start).
  Time time_when(Time work) const {
    const double w = static_cast<double>(work.ps);
    if (w > w0_) return t0_ + Time{static_cast<std::int64_t>(std::llround((w - w0_) / rate_))};
    for (auto p = past_.rbegin(); p != past_.rend(); ++p)  // the latest piece that started below w
      if (p->w0 < w) return p->t0 + Time{static_cast<std::int64_t>(std::llround((w - p->w0) / p->rate))};
    return past_.empty() ? t0_ : past_.front().t0;
  }

  // From `now` on, compute runs at 1 - share.
  void set_share(Time now, double share) {
    advance(now);
    rate_ = 1.0 - std::clamp(share, 0.0, kMaxNcclSmShare);
  }

 private:
  void advance(Time now) {
    if (now.ps <= t0_.ps) return;
    const double w = w0_ + rate_ * static_cast<double>((now - t0_).ps);
    const double total = static_cast<double>(total_.ps);
    if (!finished() && w >= total) done_ = t0_ + Time{static_cast<std::int64_t>(std::llround((total - w0_) / rate_))};
    if (w0_ < total) past_.push_back({t0_, w0_, rate_});  // pieces after the end are never asked about
    w0_ = std::min(w, total);
    t0_ = now;
  }

  struct Piece {
    Time t0;
    double w0, rate;
  };
  std::vector<Piece> past_;  // earlier pieces, in time order

  Time t0_{0};
  double w0_ = 0.0;    // work done at t0_
  double rate_ = 1.0;  // work ps per wall ps
  Time total_{0};
  Time done_{-1};  // < 0: not finished yet
};

}  // namespace vgsim::sim::training
