// Simulates a data-parallel training job on the engine: one Simulator and one Fabric for the whole job. Per rank
// (ranks are symmetric, so the compute timeline is computed once): grad_accumulation_steps micro-steps of forward
// then backward layer by layer; in the last micro-step each gradient is ready when its layer's backward ends; the
// framework groups gradients (DDP buckets, Horovod fusion of requests queued at dispatch or of what is ready at each
// cycle tick, or one allreduce after backward; models::group_gradients); each
// group is one NCCL collective (allreduce, or allgather for sparse groups) planned by the Communicator and run step
// by step as flows; the optimizer step starts when backward and the last collective are done; then the next
// iteration. Collectives are issued in group order on one NCCL stream (a group starts after its ready time and after
// the previous group's collective), unless JobSpec::serialize_collectives is false (then they overlap and contend).
// Compute times are divided by the VM's compute efficiency (job.compute_efficiency). Ranks on time-sliced vGPUs run
// their compute (forward, per-layer backward, optimizer) through the vGPU scheduler; communication does not need the
// GPU slice [assumption: NCCL kernels are not descheduled with the VM's compute context].
// NCCL kernels hold channels x compute.nccl_sm_per_channel SMs while a collective runs, so the backward pass overlapped
// with it progresses at 1 - share (compute_clock.hpp; not on time-sliced vGPUs).
// Horovod cycle ticks (horovod.requests=ready; with the default, requests at dispatch, no tick decides a start):
// the background thread's phase relative to an iteration is uniform over [0, cycle) (it sleeps
// cycle_time between loops, independently of the training loop), so one phase is an arbitrary sample (a 5 ms tick
// moved whole results by up to a cycle). The steady state is the mean over K = job.tick_phases evenly spaced phases
// (midpoint rule): run k anchors a tick at (k + 1/2) x cycle / K after the iteration's last gradient is ready
// (unslowed plan), ticks repeat every cycle both ways, so the last group waits exactly cycle/2 on average, the
// continuous expectation, and earlier groups get a K-point sample of theirs. Anchoring to the iteration (not to the
// engine's clock) makes every iteration alike and the result independent of when the job starts. A closed form is
// not used: the phase also changes which tensors are fused together. DDP and framework none have no ticks: one run.
// Not modelled: HBM bandwidth taken by NCCL reductions (bounded under 1 %, report.cpp not_modelled), input pipeline,
// host-side framework overheads. Exposed communication by cause: exposure.hpp.
#pragma once

#include <string>
#include <vector>

#include "vgsim/sim/training/job.hpp"
#include "vgsim/workloads/models/bucketing.hpp"

namespace vgsim::sim::training {

struct CollectiveRecord {
  int group = 0;  // index in issue order within the iteration
  models::GroupKind kind = models::GroupKind::AllReduce;
  Bytes bytes = 0;           // buffer bytes (allgather: one rank's contribution)
  Bytes total_bytes = 0;     // bytes the collective is called with (allgather: ranks x bytes)
  std::vector<int> tensors;  // indices into TrainingResult::compute.layers (backward order)
  Time ready{0};             // the framework can issue it (DDP bucket order, Horovod tick)
  Time start{0}, finish{0};
  std::string algo, proto;
  std::uint32_t channels = 0;
  bool replayed = false;  // fast path: time reused from an identical earlier collective
  Time duration() const { return finish - start; }
};

// The record of gradient group `g` as issued by `ranks` ranks (ready, start and finish left for the caller), and the
// framework's own wait beyond its last gradient (Horovod tick, DDP bucket order) when backward starts at
// `backward_start`. Shared by the step engine and the analytical fidelity.
CollectiveRecord group_record(const models::GradientGroup& grp, int g, std::uint32_t ranks);
Time framework_wait(const models::GradientGroup& grp, Time backward_start);

struct IterationRecord {
  Time start{0};           // first forward of the first micro-step
  Time backward_start{0};  // backward of the last micro-step (the one that communicates)
  Time backward_end{0};
  Time optimizer_start{0};
  Time end{0};  // optimizer step done
  // Backward time lost to NCCL kernels holding SMs (backward_end - unslowed backward end; compute_clock.hpp).
  Time nccl_slowdown{0};
  std::vector<CollectiveRecord> collectives;
  Time duration() const { return end - start; }
};

struct ResourceUse {
  std::string name, kind;
  double capacity_bytes_per_s = 0.0;
  double bytes = 0.0;        // carried during the steady-state iteration
  double utilisation = 0.0;  // bytes / (capacity x iteration time)
};

// One Horovod tick phase of the steady state (see the file comment).
struct TickPhaseSample {
  Time offset{0};  // the anchored tick is this long after the last gradient is ready
  Time iteration_time{0};
  Time exposed_communication{0};
};

// One cause's share of the exposed communication (exposure.hpp: explain_exposure).
struct ExposureCause {
  std::string name;  // interference, framework, host_staging, socket_cpu, network, interaction (signed)
  Time time{0};
};

struct TrainingResult {
  std::uint32_t ranks = 1, nodes = 1, gpus_per_node = 1;
  models::ComputeResult compute;               // one micro-step on one rank (layers in backward order)
  std::int64_t micro_steps = 1;                // grad_accumulation_steps
  std::vector<IterationRecord> iterations;     // with Horovod ticks: the records of the first tick phase's run
  std::string transports;                      // Communicator::describe_transports(), "" for one GPU
  std::vector<std::string> transport_reasons;  // Communicator::transport_reasons(): "why: ..." lines
  std::string nccl_net;                        // Communicator::describe_net(), "" on one node
  // Steady state = the last iteration; with Horovod ticks, the mean over the tick phases' last iterations (every
  // figure below averaged the same way; rates = work / mean iteration time, the long-run rate).
  std::vector<TickPhaseSample> tick_phases;  // empty without ticks (DDP, framework none, one rank)
  Time iteration_time{0};
  Time compute_time{0};                 // micro_steps x (forward + backward) + optimizer
  Time exposed_communication{0};        // iteration_time - compute_time (includes nccl_slowdown)
  Time nccl_slowdown{0};                // backward slowed by NCCL's SMs during overlap (part of the exposed time)
  Time communication_busy{0};           // sum of the collectives' durations (time the NCCL stream was busy)
  double overlap_fraction = 0.0;        // 1 - exposed / busy (share of the communication hidden by compute)
  double samples_per_s = 0.0;           // all ranks
  double work_per_s = 0.0;              // samples or tokens (the model's unit), all ranks
  std::vector<ResourceUse> resources;   // every resource that carried bytes, by utilisation (desc), then name
  std::uint64_t events = 0, flows = 0;  // engine work (all iterations, all tick phases)
  std::vector<ExposureCause> exposure;  // exposed communication by cause (explain_exposure); empty = not explained
};

// Share of the rank's SMs a collective of `channels` channels takes from compute while it runs:
// channels x job.nccl_sm_per_channel / (gpu SMs x MIG sm_fraction), capped (compute_clock.hpp). Shared by the step
// engine and the analytical fidelity.
double nccl_compute_share(const TrainingJob& job, std::uint32_t channels);

// The gradient groups of one iteration (models::group_gradients with the job's settings and GPUs per node), each
// issued at its last gradient when job.framework_waits is false. Shared by the step engine and the analytical fidelity.
std::vector<models::GradientGroup> job_groups(const TrainingJob& job,
                                              const std::vector<models::GradientTensor>& tensors, Time tick_origin);

// True when the job waits for Horovod cycle ticks (framework horovod, more than one rank): its steady state is
// averaged over tick phases.
bool has_tick_phases(const TrainingJob& job);
// Offset of tick phase k of K: (2k + 1) x cycle_time / (2K), the midpoint of the k-th of K equal slices of a cycle.
Time tick_phase_offset(const TrainingJob& job, int k, int phases);
// Tick origin for an iteration's gradients (absolute ready times): the last ready time + offset.
Time tick_origin(const std::vector<models::GradientTensor>& tensors, Time offset);
// Mean of one job's per-phase results (same job, phase k in runs[k], offsets[k] its tick offset): iteration,
// exposed communication, NCCL slowdown and busy time averaged (ps, rounded), rates and overlap recomputed from the
// means, per-resource bytes averaged by name, engine work summed; records kept from runs[0].
TrainingResult average_tick_phases(const std::vector<TrainingResult>& runs, const std::vector<Time>& offsets);

// A result with the job's shape and its per-rank compute (ranks, nodes, micro-steps, scaled compute) filled in;
// the starting point of both the step engine and the analytical fidelity.
TrainingResult result_header(const TrainingJob& job);

// Runs job.iterations iterations and fills the steady-state figures (Horovod: once per tick phase, averaged).
// Deterministic.
TrainingResult simulate_training(const TrainingJob& job);

// Fills the steady-state figures of `out` (throughput, iteration, compute, exposed communication, overlap, per-resource
// utilisation sorted by use) from its last iteration record, its compute result and the bytes each resource carried
// in that iteration. `out.iterations`, `out.compute`, `out.ranks` and `out.micro_steps` must be set. Shared by the
// step engine and the analytical fidelity (sim/planning).
void summarize_steady_state(const TrainingJob& job, const std::vector<double>& last_bytes, const Simulator& sim,
                            TrainingResult& out);

// Several jobs at once on one engine (one Simulator, one Fabric, one VgpuScheduler): they contend for links (max-min
// flows) and for time-sliced GPUs. Every job must be resolved on the same cluster file; the first job's NCCL path
// options, capacity scales and vGPU scheduler options configure the shared engine. A job's steady state is its own
// last iteration; its per-resource bytes include the other jobs' traffic in that window. Collectives are never
// replayed from a cache here (the network is not idle). When a job has tick phases, the whole set runs once per
// phase (K = the largest tick_phases among them; every Horovod job at phase k) and every job's figures are averaged.
std::vector<TrainingResult> simulate_training_together(const std::vector<TrainingJob>& jobs);

// A job's result plus its 1-GPU baseline (same GPU kind, same settings: weak scaling keeps the per-GPU batch,
// strong scaling puts the global batch on one GPU) and the scaling efficiency
//   efficiency = throughput(N) / (N x throughput(1)).
struct TrainingStudy {
  TrainingResult result;
  TrainingResult single_gpu;
  double scaling_efficiency = 1.0;
};
TrainingStudy simulate_study(const TrainingJob& job);

}  // namespace vgsim::sim::training
