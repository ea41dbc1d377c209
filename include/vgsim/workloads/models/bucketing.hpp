// Gradient grouping: turns the gradients of one backward pass (in backward order, with their ready times) into the
// collectives the framework issues: PyTorch DDP buckets, Horovod tensor-fusion rounds, or one allreduce after
// backward. Pure function of its inputs; no engine, no network. Units: Bytes, Time relative to backward start.
// Invariant: every tensor appears in exactly one group; groups are in issue order.
#pragma once

#include <vector>

#include "vgsim/kernel/units.hpp"
#include "vgsim/workloads/models/compute_model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::models {

struct GradientTensor {
  std::string name;
  Bytes bytes = 0;      // dense gradient bytes
  Time ready;           // when backward has produced it
  bool sparse = false;  // allgathered (Horovod without sparse_as_dense)
  Bytes sparse_bytes_per_rank = 0;
};

enum class GroupKind { AllReduce, AllGather };
const char* to_string(GroupKind k);

struct GradientGroup {
  GroupKind kind = GroupKind::AllReduce;
  Bytes bytes = 0;           // allreduce buffer bytes, or one rank's contribution for an allgather
  Time last_ready;           // when its last gradient is ready
  Time earliest_start;       // when the framework can issue it (Horovod: the cycle tick; DDP: in bucket order)
  std::vector<int> tensors;  // indices into the input (backward order)
  // Bytes the collective moves in total: `bytes` for an allreduce, ranks x bytes for an allgather.
  Bytes total_bytes(int ranks) const { return kind == GroupKind::AllGather ? bytes * ranks : bytes; }
};

// Gradients of a compute result in backward order; ready = backward_start + cumulative backward time.
std::vector<GradientTensor> gradient_tensors(const ComputeResult& r, Time backward_start = {});

// Groups per framework:
//  DDP: parameters in backward (reverse model.parameters()) order fill buckets: first bucket closes at >= 1 MiB, the
//       others at >= bucket_cap (a tensor is never split, so one bigger than the cap is its own bucket); buckets are
//       issued in index order, so earliest_start = max(last_ready, previous earliest_start). Sparse flags are ignored
//       (PyTorch embeddings are dense by default).
//  Horovod, requests at dispatch (the default, HorovodSettings::requests_at_dispatch): all tensors in backward
//       order packed consecutively into buffers of at most fusion_threshold; a buffer starts when its last tensor is
//       ready, in order (no tick: the background thread is already waiting on the ready events).
//  Horovod, requests when ready: ticks at tick_origin + n x cycle_time (n any integer; the caller picks the phase, see
//       sim/training/training_run.hpp for the phase-averaged steady state); at each tick the ready, unsent tensors (in
//       ready order) are packed consecutively into buffers of at most fusion_threshold (a bigger tensor goes alone;
//       threshold 0 = no fusion); sparse tensors without sparse_as_dense are separate allgathers. With hierarchical
//       allreduce the threshold is rounded up to a multiple of local_size x 8 B x 64 [recalled from operations.cc].
//  None: one allreduce of everything after the last gradient.
// tick_origin is ignored by DDP and None (they have no ticks).
std::vector<GradientGroup> group_gradients(const std::vector<GradientTensor>& backward_order, const TrainingSettings& s,
                                           int local_size = 1, Time tick_origin = {});

// First Horovod tick at or after `t`: tick_origin + ceil((t - tick_origin) / cycle) x cycle (floor division, so
// `t` before the origin works too). cycle <= 0 is treated as 1 ps.
Time next_tick(Time t, Time tick_origin, Time cycle);

}  // namespace vgsim::models
