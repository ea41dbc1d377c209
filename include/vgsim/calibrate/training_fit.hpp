// Training-level calibration: measured training throughputs (a CSV in the shape of training-cases.csv plus the
// vgsim columns that name the cluster) -> a training profile of bounded physical parameters, fitted so that the
// simulated multi-GPU throughputs match, with leave-one-out cross-validation. The profile is a list of `--set`
// pairs (capacity_scale.<kind>, compute.nccl_sm_per_channel) that `train`, `sweep`, `compare` and `jobs` apply with
// `--calibration`. Each multi-GPU row's compute is calibrated to the 1-GPU row of the same (cluster, workload,
// settings) when the file has one (compute.measured_throughput), so the fit explains only the communication side.
//
// CSV columns (header names, any order; extra columns are ignored):
//   case_id, cluster (preset or file), workload (or model), nodes, gpus_per_node, value (measured throughput in the
//   model's unit: samples/s, or tokens/s for token models), and optionally: settings ("k=v;k=v": batch_per_gpu,
//   precision, framework, horovod.*, ...), batch_per_gpu, precision, framework (as in training-cases.csv; a
//   framework containing "horovod" means horovod, "ddp" means ddp), transport (tcp -> NCCL_IB_DISABLE=1),
//   gdr_level, gdr_disable (true/false), metric, source.
// Large-model rows (workload a Transformer shape, the plan in settings: "tp=8;pp=4;micro_batch=1;global_batch=512")
// measure tokens/s or, with metric "iteration_s", seconds per iteration, and fit the layer kernels' speed
// (llm_fit.hpp).
#pragma once

#include <string>
#include <vector>

#include "vgsim/kernel/json_input.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/topologies/catalog.hpp"

namespace vgsim::calibrate {

struct TrainingCase {
  std::string case_id, cluster, workload, metric, source;
  std::uint32_t nodes = 1, gpus_per_node = 1;
  std::vector<std::string> sets;  // training settings as key=value
  std::string gdr_level;          // "" = NCCL's default
  bool ib_disable = false, gdr_disable = false;
  double value = 0;  // measured throughput
  int line = 0;      // CSV line (for messages)
};

// Reads the CSV; errors (InputError) name the file, line, column and value.
std::vector<TrainingCase> read_training_cases(const std::string& path);

// One fitted parameter: a --set key, its bounds, the catalog value and the fitted one.
struct TrainingParam {
  std::string key;  // e.g. "capacity_scale.nic-port"
  double lo = 0, hi = 0;
  double catalog = 1;   // the value without calibration
  double value = 1;     // fitted
  std::string meaning;  // what it is physically, and why these bounds
};

struct TrainingRow {
  std::string case_id;
  double measured = 0, catalog = 0, fitted = 0, held_out = 0;  // throughputs; held_out: leave-one-out prediction
  std::string compute_from;  // the 1-GPU case its compute was calibrated to ("" when none)
};

struct TrainingProfile {
  std::string file;  // the CSV fitted
  std::vector<TrainingParam> params;
  std::vector<TrainingRow> rows;  // multi-GPU rows (the ones the parameters explain)
  double median_catalog = 0, median_fitted = 0, median_held_out = 0;  // median |relative error|
  std::vector<std::string> sets() const;                              // key=value for every parameter
  Json to_json() const;
};

// Large-model rows (every row's workload a Transformer shape) go to fit_llm (llm_fit.hpp); a file that mixes them
// with data-parallel rows is an InputError. Otherwise: fits the parameters the rows exercise (capacity_scale.nic-port
// on every multi-node row, capacity_scale.socket-threads only when a row uses TCP sockets, compute.nccl_sm_per_channel
// always) by coordinate descent with golden-section search inside the bounds, minimising the sum of squared log errors;
// then re-fits once per multi-GPU row without it (leave-one-out). Throws InputError when the file has no multi-GPU row.
TrainingProfile fit_training(const std::vector<TrainingCase>& cases, const topo::Catalog& catalog,
                             const std::string& file);

// The job a row describes: cluster, workload, hosts, GPUs per host, the row's settings (origin "<file> line N") and
// its NCCL path (transport, gdr_level, gdr_disable).
sim::training::JobSpec training_case_spec(const TrainingCase& c, const std::string& file);

// Median of v (0 for none), and of |v_i|: the profiles' summary of relative errors.
double median(std::vector<double> v);
double median_abs_error(std::vector<double> v);

// Reads a profile written by fit_training (to_json) and returns its --set pairs; InputError naming the file and
// JSON path on anything else.
std::vector<std::string> load_training_profile_sets(const std::string& path);

}  // namespace vgsim::calibrate
