// Large-model calibration (issue 17): measured iterations of Transformer jobs (rows of the fit-training CSV whose
// workload is a shape of workloads/llm/transformer_shapes.json, the plan in the settings column: "tp=8;pp=4;...")
// -> one factor x that scales the layer model's four kernel efficiencies together (llm.eff_gemm,
// llm.eff_gemm_backward, llm.eff_memory, llm.eff_flash): the measured software stack's kernel speed relative to the
// stack they were fitted on (Megatron-LM 2022, Korthikanti et al. Table 4). Every layer kernel's time scales exactly by
// 1 / x (both sides of a GEMM's roofline and every memory-bound kernel); exposed communication and the optimizer step
// do not. The network is not fitted here: calibrate it from collective measurements (`vgsim calibrate fit`) and pass
// it in the rows' settings (e.g. capacity_scale.nvlink=0.83).
//
// The profile is a training profile (TrainingProfile, kind "training": the four keys at catalog x x), applied with
// `--calibration` by train, sweep, compare and jobs. A row's value is tokens/s (metric "tokens/s" or empty) or seconds
// per iteration (metric "iteration_s"); rows, predictions and errors are in the row's own metric.
#pragma once

#include <string>
#include <vector>

#include "vgsim/calibrate/training_fit.hpp"

namespace vgsim::calibrate {

// True when the row's workload is a Transformer shape (a large-model row).
bool is_llm_case(const TrainingCase& c);

// [assumption] lower bound of the factor: a stack whose kernels run at half the fitted speed (e.g. an untuned
// framework or a GPU held back by its clocks); the upper bound is where the first efficiency reaches 1.
constexpr double kLlmKernelFactorMin = 0.5;

// Fits x by golden-section search inside its bounds, minimising the sum of squared log errors over the rows, on a
// two-point model of each row's iteration time, T(x) = a + b / x (simulated at x = 1 and x = 0.8: the layer kernels
// scale by 1 / x, the rest is taken as constant); then re-fits without each row (leave-one-out). Every prediction
// reported (catalog, fitted, held-out) is a simulation at that x, not the two-point model. Rows are simulated without
// the memory check (they ran). InputError naming the file and line for a row that is not a large-model job, names a
// metric other than tokens/s or iteration_s, or sets one of the four efficiencies itself.
TrainingProfile fit_llm(const std::vector<TrainingCase>& cases, const topo::Catalog& catalog, const std::string& file);

}  // namespace vgsim::calibrate
