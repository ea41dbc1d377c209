// A data-parallel training job on CPU workers (issue 15): MPI ranks on the CPU sockets of GPU-less nodes, each
// running TensorFlow's intra-op threads (OMP_NUM_THREADS), Horovod over Open MPI on CPU buffers. Resolved from the
// same JobSpec as a GPU job (cluster, workload, nodes, settings, name=value overrides); gpus_per_node and endpoints
// do not apply (ranks per node is cpu.ranks_per_node). Every value is recorded with its source. The parameters are
// the training settings, cpu.* / tf.* (workloads/models/cpu_compute_model.hpp), mpi.* (sim/mpi_collective.hpp) and
// sim.horovod_tick_phases. Not the simulation itself (cpu_training_run.hpp). Units: Time (ps), Bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vgsim/kernel/parameter.hpp"
#include "vgsim/sim/mpi_collective.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "vgsim/workloads/models/cpu_compute_model.hpp"
#include "vgsim/workloads/models/model.hpp"
#include "vgsim/workloads/models/training_settings.hpp"

namespace vgsim::sim::training {

struct CpuTrainingJob {
  std::shared_ptr<const topo::Cluster> cluster;
  std::uint32_t nodes = 1;
  models::Model model;
  models::TrainingSettings settings;
  models::CpuNodeSpec node;
  models::CpuWorkerParams cpu;
  MpiConfig mpi;
  int tick_phases = kDefaultTickPhases;
  std::vector<ParamRecord> params;  // every parameter used, then facts (settable = false)
  std::uint32_t ranks_per_node() const { return static_cast<std::uint32_t>(cpu.ranks_per_node); }
  std::uint32_t ranks() const { return nodes * ranks_per_node(); }
};

// Every name a CPU job accepts: training settings, cpu.* and tf.*, mpi.*, sim.horovod_tick_phases.
const ParamRegistry& cpu_job_registry();

// The CPU node of a cluster's first host: its catalog CPU (with the "compute" object), sockets. InputError when the
// host has GPUs (a GPU cluster: use a GPU job) or its CPU has no compute figures.
models::CpuNodeSpec cpu_node_spec(const topo::Cluster& cluster, const topo::Catalog& catalog);

// Validates and resolves (InputError naming the option or file, the value and the expectation). Settings defaults
// for CPU workers before the spec's: framework horovod, precision fp32, horovod.requests ready (an op runs when its
// input is computed: there is no device queue for the host to run ahead of, docs/SOURCES.md#horovod).
CpuTrainingJob resolve_cpu_job(const JobSpec& spec, const topo::Catalog& catalog);

// The same job on another node count (scaling tables); every other parameter kept.
CpuTrainingJob with_nodes(const CpuTrainingJob& job, std::uint32_t nodes);

}  // namespace vgsim::sim::training
