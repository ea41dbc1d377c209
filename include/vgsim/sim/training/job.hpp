// A data-parallel training job as the simulator runs it: the cluster, the ranks, the model, the training settings,
// the compute-model parameters and the NCCL options, each resolved value recorded with where it came from (catalog,
// model file, defaults, scenario, --set). JobSpec is what a user writes (strings, key=value overrides); resolve_job
// validates it (InputError naming the option or file, the value and the expectation) and returns a TrainingJob.
// Not the simulation itself (training_run.hpp). Units: Time (ps), Bytes, samples/s.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/communicator.hpp"
#include "vgsim/sim/nccl_knobs.hpp"
#include "vgsim/sim/training/compute_clock.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/models/compute_model.hpp"
#include "vgsim/workloads/models/model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::sim::training {

// [assumption] per-GPU batch when neither a scenario nor --set gives one: 64, the tf_cnn_benchmarks / Horovod 2017
// batch (docs/SOURCES.md#workload-specs, docs/SOURCES.md#horovod-tcp-rdma).
constexpr std::int64_t kDefaultBatchPerGpu = 64;
// Iterations simulated; the last one is reported as the steady state.
constexpr int kDefaultIterations = 3;
// [assumption: uniform phase, K samples] Horovod's cycle ticks are uniformly distributed in phase relative to an
// iteration (its background thread sleeps cycle_time between loops, independently of the training loop), so the
// steady state is the mean over K evenly spaced tick phases (training_run.hpp). 4 keeps the cost at 4 runs and the
// last group's wait exact (midpoint phases); not a measured number.
constexpr int kDefaultTickPhases = 4;

// What the user asked for. Empty strings / 0 / nullopt mean "not given" (the scenario's or the default value applies).
struct JobSpec {
  std::string cluster;   // preset name or cluster JSON file
  std::string workload;  // model library name or model JSON file
  // Where `cluster` and `workload` were given: {file, JSON path}, or {"", option} for the command line. An unknown
  // preset or model name is reported there (e.g. a jobs file's "$.jobs[0].workload").
  std::pair<std::string, std::string> cluster_at{"", "--cluster"}, workload_at{"", "--workload"},
      endpoints_at{"", "--endpoints"};
  std::uint32_t nodes = 0;          // 0: all OS instances (hosts or VMs) of the cluster
  std::uint32_t gpus_per_node = 0;  // 0: all GPU endpoints of the first OS instance
  // Explicit ranks: endpoint names (Cluster::endpoints(), e.g. "host0/vm1/gpu0"), node-major; overrides nodes and
  // gpus_per_node (nodes = distinct OS instances, each with the same number of ranks).
  std::vector<std::string> endpoints;
  Json settings = Json::object();            // training-settings JSON object (e.g. from a scenario)
  std::string settings_origin = "defaults";  // label of `settings` for the parameter sources ("scenario X")
  std::vector<std::string> sets;             // key=value: training settings, compute.*, nccl.*, vgpu.* (last one wins)
  std::string sets_origin = "--set";
  int iterations = kDefaultIterations;
  NcclKnobs nccl;                            // same knobs as `vgsim collective`; empty = NCCL's default
  std::string nccl_origin = "command line";  // label for the knobs above
  // Collectives run one after the other on one NCCL stream (true, NCCL's behaviour for one communicator) or start
  // as soon as their group is ready and contend for links in the engine (false).
  bool serialize_collectives = true;
  // Fast path: when collectives are serialized, a collective of the same op and size as an earlier one takes the
  // same time on the idle network, so it is simulated once and replayed (with its per-link bytes).
  bool reuse_collective_times = true;
  // Resource guard per collective (CommOptions::max_transfers; --max-transfers).
  std::uint64_t max_transfers = kDefaultMaxTransfers;
  // Approximation for large scales (CommOptions::fold_channels; --fold-channels). Default off.
  bool fold_channels = false;
  // The job runs forward passes only (vgsim infer): the batch memory floor counts no gradients or optimizer states.
  bool inference = false;
};

// One parameter as used, with its origin.
struct ParamRecord {
  std::string name;
  Json value;
  std::string source;
  bool settable = true;  // a registry parameter (--set accepts it); false for catalog facts and derived values
};

struct TrainingJob {
  std::shared_ptr<const topo::Cluster> cluster;  // shared: the Communicator keeps a reference
  std::uint32_t nodes = 1, gpus_per_node = 1;
  std::vector<std::uint32_t> rank_to_endpoint;
  models::Model model;
  models::TrainingSettings settings;
  models::ComputeParams compute;              // calibration_scale set when measured_throughput is given
  std::optional<double> measured_throughput;  // calibrated mode: measured 1-GPU samples/s
  models::GpuComputeSpec gpu;
  CommOptions comm;
  // Virtualization: compute speed of the ranks' VM relative to bare metal (VirtOverheads::compute_efficiency; 1 on
  // bare metal) and the vGPU time-slicing scheduler (vgpu.scheduler, vgpu.time_slice, vgpu.switch_cost).
  double compute_efficiency = 1.0;
  // SMs one NCCL channel takes from compute while a collective runs (compute_clock.hpp; compute.nccl_sm_per_channel).
  double nccl_sm_per_channel = kDefaultNcclSmPerChannel;
  virt::VgpuSchedulerOptions vgpu;
  int iterations = kDefaultIterations;
  // Tick phases averaged for Horovod (kDefaultTickPhases); ignored by DDP and framework none (no ticks).
  int tick_phases = kDefaultTickPhases;
  // Engine time at which the job's first iteration starts (0 by default). Results do not depend on it when nothing
  // else runs on the engine: Horovod ticks are anchored to each iteration, not to the engine's clock.
  Time clock_offset{0};
  bool serialize_collectives = true;
  bool reuse_collective_times = true;
  // Counterfactual switch of the exposure breakdown (exposure.hpp), not a user parameter: false issues every
  // gradient group as soon as its last gradient is ready (no Horovod tick, no response or bucket order wait).
  bool framework_waits = true;
  std::vector<ParamRecord> params;  // every parameter used, in a stable order
  // Called as each collective is issued ("iteration 2/3, collective 5/12"): the CLI shows it on a progress line.
  std::function<void(const std::string& state)> progress;
  std::uint32_t ranks() const { return static_cast<std::uint32_t>(rank_to_endpoint.size()); }
};

// Fills the compute-model view of a catalog GPU (whole GPU: sm_fraction = memory_fraction = 1).
models::GpuComputeSpec gpu_compute_spec(const topo::GpuModel& g);

// Endpoint names -> endpoint indices (node-major, equal ranks per OS instance); sets nodes and gpus_per_node.
// Unknown names throw InputError with a did-you-mean.
std::vector<std::uint32_t> resolve_endpoints(const topo::Cluster& cluster, const std::vector<std::string>& names,
                                             std::uint32_t& nodes, std::uint32_t& gpus_per_node);
// Validates and resolves. `catalog` must outlive nothing (the cluster copies what it needs).
TrainingJob resolve_job(const JobSpec& spec, const topo::Catalog& catalog);

// The platform of a GPU job, for job kinds that bring their own workload and parameters (large-model training,
// sim/llm): cluster, ranks and their GPU, NCCL options and the VM's compute efficiency, resolved as resolve_job does,
// with spec.sets checked against platform_parameters(..., workload) (training settings and compute.* are unknown
// names there). The values given for the `workload` declarations come back in `workload_values` (canonical name,
// checked value, where it was given; in the order given) for the caller to apply; job.params lists the platform's
// parameters only. spec.workload is not read.
struct WorkloadValue {
  std::string name;
  Json value;
  std::string origin;
};
TrainingJob resolve_platform(const JobSpec& spec, const topo::Catalog& catalog, const std::vector<ParamDecl>& workload,
                             std::vector<WorkloadValue>& workload_values);

// The same job on `nodes` x `gpus_per_node` ranks of the same cluster (e.g. the 1-GPU baseline); the compute
// calibration and every other parameter are kept.
TrainingJob with_ranks(const TrainingJob& job, std::uint32_t nodes, std::uint32_t gpus_per_node);

}  // namespace vgsim::sim::training
