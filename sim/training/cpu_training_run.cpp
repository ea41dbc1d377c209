// One CPU-worker training job's steady state and scaling table (see include/vgsim/sim/training/cpu_training_run.hpp).
#include "vgsim/sim/training/cpu_training_run.hpp"

#include <algorithm>

#include "vgsim/sim/training/compute_clock.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::sim::training {

namespace {

// One core's DRAM streaming rate (bytes/s) for Horovod's fusion-buffer memcpy.
double copy_rate(const CpuTrainingJob& job) { return job.mpi.physics.core_dram_GBps * 1e9; }

// The rank's memory rate (bytes/s), as the roofline uses it.
double rank_memory_rate(const CpuTrainingJob& job) {
  const double n = models::effective_cores(job.cpu, job.node);
  return job.node.memory_bandwidth.bytes_per_s * job.node.sockets * job.cpu.eff_memory *
         std::min(1.0, n / job.node.cores());
}

// One iteration with Horovod's tick anchored `tick_offset` after the last gradient (unslowed plan).
struct Iteration {
  Time end{0}, backward_end{0}, comm_busy{0};
  std::vector<CpuCollectiveRecord> collectives;
};

CpuCollectiveRecord run_group(const CpuTrainingJob& job, const models::GradientGroup& grp, Time start) {
  CpuCollectiveRecord c;
  c.kind = grp.kind;
  c.bytes = grp.bytes;
  c.tensors = static_cast<int>(grp.tensors.size());
  c.start = start;
  if (grp.kind == models::GroupKind::AllReduce && grp.tensors.size() > 1 && copy_rate(job) > 0.0)
    c.copy = Time::from_s(2.0 * static_cast<double>(grp.bytes) / copy_rate(job));
  const coll::Op op = grp.kind == models::GroupKind::AllGather ? coll::Op::AllGather : coll::Op::AllReduce;
  const MpiCollectiveResult r =
      simulate_mpi_collective(*job.cluster, job.mpi, op, grp.bytes, job.nodes, job.ranks_per_node());
  c.mpi = r.time;
  c.algorithm = r.algorithm;
  c.finish = start + c.copy + c.mpi;
  return c;
}

Iteration run_iteration(const CpuTrainingJob& job, const models::ComputeResult& cr, Time tick_offset) {
  Iteration it;
  const Time backward_start = (cr.forward + cr.backward) * (job.settings.grad_accumulation_steps - 1) + cr.forward;
  ComputeClock clock(backward_start, cr.backward);
  Time prev = backward_start;
  if (job.ranks() > 1) {
    const auto tensors = models::gradient_tensors(cr, backward_start);
    const auto groups =
        models::group_gradients(tensors, job.settings, job.cpu.ranks_per_node, tick_origin(tensors, tick_offset));
    const double share = models::comm_compute_share(job.cpu, job.node);
    for (const auto& grp : groups) {
      if (grp.bytes == 0) continue;  // parameterless layers (positional encodings): nothing to send
      const Time ready = clock.time_when(grp.last_ready - backward_start) + framework_wait(grp, backward_start);
      const Time start = std::max(ready, prev);
      clock.set_share(start, share);
      CpuCollectiveRecord c = run_group(job, grp, start);
      c.ready = ready;
      clock.set_share(c.finish, 0.0);
      prev = c.finish;
      it.comm_busy += c.finish - c.start;
      it.collectives.push_back(std::move(c));
    }
  }
  it.backward_end = clock.finished() ? clock.done_at() : clock.time_when(clock.total());
  it.end = std::max(prev, it.backward_end);  // optimizer start; the caller adds the optimizer step
  return it;
}

Time sparse_apply_time(const CpuTrainingJob& job, const models::ComputeResult& cr) {
  double gathered = 0.0;
  for (const auto& l : cr.layers)
    if (l.sparse) gathered += static_cast<double>(l.sparse_bytes_per_rank) * job.ranks();
  return gathered > 0.0 ? Time::from_s(gathered / rank_memory_rate(job)) : Time{0};
}

}  // namespace

CpuTrainingResult simulate_cpu_training(const CpuTrainingJob& job) {
  CpuTrainingResult out;
  out.nodes = job.nodes;
  out.ranks = job.ranks();
  out.compute =
      models::cpu_compute_iteration(job.model, job.settings, job.node, job.cpu, static_cast<int>(job.ranks()));
  const models::ComputeResult& cr = out.compute;
  out.sparse_apply = job.ranks() > 1 ? sparse_apply_time(job, cr) : Time{0};
  const Time optimizer = cr.optimizer + out.sparse_apply;
  const bool ticks = !job.settings.horovod.requests_at_dispatch && job.ranks() > 1;
  const int phases = ticks ? std::max(1, job.tick_phases) : 1;
  std::int64_t sum_end = 0, sum_busy = 0, sum_bwd = 0;
  for (int k = 0; k < phases; ++k) {
    const Time offset = Time::from_ps((2 * k + 1) * job.settings.horovod.cycle_time.ps / (2 * phases));
    Iteration it = run_iteration(job, cr, offset);
    sum_end += (it.end + optimizer).ps;
    sum_busy += it.comm_busy.ps;
    sum_bwd += it.backward_end.ps;
    if (k == 0) out.collectives = std::move(it.collectives);
  }
  const std::int64_t steps = job.settings.grad_accumulation_steps;
  out.iteration = Time::from_ps(sum_end / phases);
  out.comm_busy = Time::from_ps(sum_busy / phases);
  const Time unslowed_bwd_end = (cr.forward + cr.backward) * steps;
  out.comm_slowdown = Time::from_ps(sum_bwd / phases) - unslowed_bwd_end;
  out.compute_time = unslowed_bwd_end + optimizer;
  out.exposed = out.iteration - out.compute_time;
  out.units_per_s = cr.work_per_step * static_cast<double>(steps) * job.ranks() / out.iteration.s();
  return out;
}

namespace {

std::vector<std::uint32_t> node_counts(std::uint32_t max_nodes) {
  std::vector<std::uint32_t> n;
  for (std::uint32_t k = 1; k < max_nodes; k *= 2) n.push_back(k);
  n.push_back(max_nodes);
  return n;
}

}  // namespace

std::vector<CpuScalingRow> cpu_scaling(const CpuTrainingJob& job) {
  CpuTrainingJob other = job;
  other.settings.horovod.sparse_as_dense = !job.settings.horovod.sparse_as_dense;
  std::vector<CpuScalingRow> rows;
  double base = 0.0, other_base = 0.0;
  for (std::uint32_t n : node_counts(job.nodes)) {
    const CpuTrainingResult r = simulate_cpu_training(with_nodes(job, n));
    const CpuTrainingResult o = simulate_cpu_training(with_nodes(other, n));
    if (n == 1) base = r.units_per_s, other_base = o.units_per_s;
    CpuScalingRow row;
    row.nodes = n;
    row.units_per_s = r.units_per_s;
    row.other_units_per_s = o.units_per_s;
    row.efficiency = base > 0 ? r.units_per_s / (n * base) : 0.0;
    row.other_efficiency = other_base > 0 ? o.units_per_s / (n * other_base) : 0.0;
    for (const auto& c : r.collectives) row.largest_message = std::max(row.largest_message, c.bytes);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace vgsim::sim::training
