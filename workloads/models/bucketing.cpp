// Gradient grouping per framework (see include/vgsim/workloads/models/bucketing.hpp).
#include "vgsim/workloads/models/bucketing.hpp"

#include <algorithm>
#include <numeric>

namespace vgsim::models {

const char* to_string(GroupKind k) { return k == GroupKind::AllReduce ? "allreduce" : "allgather"; }

std::vector<GradientTensor> gradient_tensors(const ComputeResult& r, Time backward_start) {
  std::vector<GradientTensor> out;
  out.reserve(r.layers.size());
  Time t = backward_start;
  for (const auto& l : r.layers) {
    t += l.backward;
    out.push_back(GradientTensor{l.name, l.grad_bytes, t, l.sparse, l.sparse_bytes_per_rank});
  }
  return out;
}

namespace {

std::vector<GradientGroup> ddp_buckets(const std::vector<GradientTensor>& g, const DdpSettings& d) {
  // torch compute_bucket_assignment_by_size: add tensors in order; close the bucket once it reaches the limit
  // (first limit 1 MiB, then bucket_cap).
  std::vector<GradientGroup> out;
  GradientGroup cur;
  Bytes limit = d.first_bucket;
  for (int i = 0; i < static_cast<int>(g.size()); ++i) {
    cur.tensors.push_back(i);
    cur.bytes += g[i].bytes;
    cur.last_ready = std::max(cur.last_ready, g[i].ready);
    if (cur.bytes >= limit) {
      out.push_back(std::move(cur));
      cur = GradientGroup{};
      limit = d.bucket_cap;
    }
  }
  if (!cur.tensors.empty()) out.push_back(std::move(cur));
  Time issue{};
  for (auto& b : out) {  // issued in bucket-index order
    issue = std::max(issue, b.last_ready);
    b.earliest_start = issue;
  }
  return out;
}

// Horovod's fusion rule over the tensors order[first, last) of one negotiation (mpi_ops.cc / controller.cc
// FuseResponses): consecutive dense tensors share a buffer up to `threshold` (a tensor that does not fit starts the
// next; 0 = no fusion); a sparse tensor without sparse_as_dense is an allgather of its own. Groups are appended to
// `out` with earliest_start = `start`.
void fuse(const std::vector<GradientTensor>& g, const std::vector<int>& order, std::size_t first, std::size_t last,
          Bytes threshold, Time start, std::vector<GradientGroup>& out) {
  GradientGroup cur;
  auto flush = [&] {
    if (!cur.tensors.empty()) out.push_back(std::move(cur));
    cur = GradientGroup{};
  };
  for (std::size_t k = first; k < last; ++k) {
    const int i = order[k];
    if (g[i].sparse) {
      GradientGroup s;
      s.kind = GroupKind::AllGather;
      s.bytes = g[i].sparse_bytes_per_rank;
      s.last_ready = g[i].ready;
      s.earliest_start = start;
      s.tensors = {i};
      out.push_back(std::move(s));
      continue;
    }
    if (!cur.tensors.empty() && (threshold == 0 || cur.bytes + g[i].bytes > threshold)) flush();
    cur.tensors.push_back(i);
    cur.bytes += g[i].bytes;
    cur.last_ready = std::max(cur.last_ready, g[i].ready);
    cur.earliest_start = start;
  }
  flush();
}

// Requests queued at dispatch (HorovodSettings::requests_at_dispatch): every request of the backward pass is in
// rank 0's queue before the first gradient is ready, so one negotiation fuses them all in request (backward) order.
// The background thread then runs the responses in order, each after polling the ready events of all its entries
// (WAIT_FOR_OTHER_TENSOR_DATA; 100 ns sleeps, taken as 0): a response starts when its last gradient is ready and not
// before the previous response started.
std::vector<GradientGroup> horovod_dispatch_fusion(const std::vector<GradientTensor>& g, Bytes threshold) {
  std::vector<int> order(g.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<GradientGroup> out;
  fuse(g, order, 0, order.size(), threshold, Time{0}, out);
  Time issue{};
  for (auto& grp : out) {
    issue = std::max(issue, grp.last_ready);
    grp.earliest_start = issue;
  }
  return out;
}

std::vector<GradientGroup> horovod_fusion(const std::vector<GradientTensor>& g, const HorovodSettings& h,
                                          int local_size, Time tick_origin) {
  Bytes threshold = h.fusion_threshold;
  if (h.hierarchical_allreduce && threshold > 0) {
    const Bytes unit = static_cast<Bytes>(std::max(1, local_size)) * 8 * 64;
    threshold = (threshold + unit - 1) / unit * unit;
  }
  if (h.requests_at_dispatch) return horovod_dispatch_fusion(g, threshold);
  // Tensors in ready order (ties: backward order).
  std::vector<int> order(g.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return g[a].ready < g[b].ready; });
  std::vector<GradientGroup> out;
  std::size_t next = 0;
  while (next < order.size()) {
    // The first tick at or after the earliest unsent tensor is ready.
    const Time tick = next_tick(g[order[next]].ready, tick_origin, h.cycle_time);
    std::size_t end = next;
    while (end < order.size() && g[order[end]].ready <= tick) ++end;
    fuse(g, order, next, end, threshold, tick, out);
    next = end;
  }
  return out;
}

}  // namespace

Time next_tick(Time t, Time tick_origin, Time cycle) {
  const std::int64_t c = std::max<std::int64_t>(1, cycle.ps);
  const std::int64_t d = t.ps - tick_origin.ps;
  const std::int64_t q = d >= 0 ? (d + c - 1) / c : -((-d) / c);  // ceil(d / c) for either sign
  return Time::from_ps(tick_origin.ps + q * c);
}

std::vector<GradientGroup> group_gradients(const std::vector<GradientTensor>& g, const TrainingSettings& s,
                                           int local_size, Time tick_origin) {
  if (g.empty()) return {};
  switch (s.framework) {
    case Framework::DDP:
      return ddp_buckets(g, s.ddp);
    case Framework::Horovod:
      return horovod_fusion(g, s.horovod, local_size, tick_origin);
    case Framework::None:
      break;
  }
  GradientGroup all;
  for (int i = 0; i < static_cast<int>(g.size()); ++i) {
    all.tensors.push_back(i);
    all.bytes += g[i].bytes;
    all.last_ready = std::max(all.last_ready, g[i].ready);
  }
  all.earliest_start = all.last_ready;
  return {all};
}

}  // namespace vgsim::models
