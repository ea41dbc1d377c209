// `vgsim train --cluster <preset|file> --workload <model|file> [--scenario name] [--set key=value ...] ...`:
// resolves the job (scenario < command line), simulates it and its 1-GPU baseline, prints the summary, and writes
// --json / --trace atomically. Bad input is an InputError (exit 2).
#include "train_command.hpp"

#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "calibration_option.hpp"
#include "catalog_option.hpp"
#include "nccl_options.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/progress.hpp"
#include "vgsim/sim/llm/llm_run.hpp"
#include "vgsim/sim/llm/plan_search.hpp"
#include "vgsim/sim/training/cpu_report.hpp"
#include "vgsim/sim/training/report.hpp"
#include "vgsim/sim/training/scenarios.hpp"
#include "vgsim/sim/training/training_run.hpp"
#include "whole_number_check.hpp"

namespace vgsim::cli {

namespace {

constexpr int kNotGiven = std::numeric_limits<int>::min();

struct TrainArgs {
  std::string scenario, cluster, workload;
  std::string workers;  // "", "gpu" or "cpu" ("": the scenario's, else gpu)
  std::uint32_t nodes = 0, gpus_per_node = 0;
  std::vector<std::string> sets;
  std::string calibration;
  std::uint64_t max_transfers = sim::kDefaultMaxTransfers;
  bool fold_channels = false;  // JobSpec::fold_channels
  int iterations = kNotGiven;  // 0 and negatives are refused by resolve_job, not taken as "not given"
  std::string json_out, trace_out;
  bool quiet = false;
  sim::NcclKnobs nccl = [] {  // only what the command line sets overrides a scenario's knobs
    sim::NcclKnobs k;
    k.version.clear();
    return k;
  }();
  bool overlap_collectives = false, no_replay = false, list = false, search_plans = false;
};

// Large-model training (sim/llm): the workload is a Transformer shape; the plan comes from --set tp=... pp=...
void run_llm(const TrainArgs& a, const sim::training::JobSpec& spec) {
  // --calibration is in `spec` already: a large-model profile (calibrate fit-training on large-model rows) sets
  // llm.eff_*; a parameter a large-model job does not take is refused by resolve_llm_job, naming the profile.
  if (a.overlap_collectives || a.no_replay || a.fold_channels)
    throw InputError("", "--workload " + spec.workload, "option not available for large-model (Transformer shape) jobs",
                     "--overlap-collectives / --no-replay / --fold-channels", "none of them");
  const topo::Catalog catalog = topo::Catalog::load_default();
  const sim::llm::LlmJob job = sim::llm::resolve_llm_job(spec, catalog, !a.search_plans);
  std::ostringstream out;
  if (a.search_plans) {
    const auto found = sim::llm::search_plans(job);
    sim::llm::write_plan_search(out, job, found);
    std::cout << out.str();
    write_files_atomically(
        {{"--json", a.json_out, a.json_out.empty() ? "" : sim::llm::plan_search_json(job, found).dump(2) + "\n"}});
    return;
  }
  const sim::llm::LlmResult r = sim::llm::simulate_llm_iteration(job);
  sim::llm::write_llm_summary(out, job, r);
  std::cout << out.str();
  write_files_atomically(
      {{"--json", a.json_out, a.json_out.empty() ? "" : sim::llm::llm_json(job, r).dump(2) + "\n"},
       {"--trace", a.trace_out, a.trace_out.empty() ? "" : sim::llm::llm_chrome_trace(job, r).dump() + "\n"}});
}

// CPU workers (cpu_job.hpp): the job, its scaling table over node counts in both sparse-gradient modes, the report.
void run_cpu(const TrainArgs& a, const sim::training::JobSpec& spec) {
  using namespace sim::training;
  if (!a.calibration.empty() || a.overlap_collectives || a.no_replay || !a.trace_out.empty() || a.fold_channels)
    throw InputError("", "--workers cpu", "option not available for CPU workers",
                     "--calibration / --overlap-collectives / --no-replay / --trace / --fold-channels", "none of them");
  const topo::Catalog catalog = topo::Catalog::load_default();
  const CpuTrainingJob job = resolve_cpu_job(spec, catalog);
  const CpuTrainingResult result = simulate_cpu_training(job);
  const auto scaling = cpu_scaling(job);
  std::ostringstream summary;
  write_cpu_training_summary(summary, job, result, scaling);
  std::cout << summary.str();
  write_files_atomically(
      {{"--json", a.json_out, a.json_out.empty() ? "" : cpu_training_json(job, result, scaling).dump(2) + "\n"}});
}

void run(const TrainArgs& a) {
  using namespace sim::training;
  if (a.list) {
    for (const auto& s : list_scenarios()) std::cout << s.name << "  " << s.description << "\n";
    return;
  }
  JobSpec spec;
  std::string workers = "gpu";
  if (!a.scenario.empty()) {
    const Scenario sc = load_scenario(a.scenario);
    spec = sc.spec;
    workers = sc.workers;
  }
  if (!a.workers.empty()) workers = a.workers;
  if (!a.cluster.empty()) spec.cluster = a.cluster, spec.cluster_at = {"", "--cluster"};
  if (!a.workload.empty()) spec.workload = a.workload, spec.workload_at = {"", "--workload"};
  if (a.nodes) spec.nodes = a.nodes;
  if (a.gpus_per_node) spec.gpus_per_node = a.gpus_per_node;
  if (a.iterations != kNotGiven) spec.iterations = a.iterations;
  if (!a.sets.empty()) {
    // Scenario pairs first, then the command line's (last one wins); keep their origins apart in the report.
    for (const auto& kv : a.sets) spec.sets.push_back(kv);
    spec.sets_origin = a.scenario.empty() ? "--set" : spec.sets_origin + " / --set";
  }
  if (!a.calibration.empty()) {
    const auto cal = calibration_sets(a.calibration);
    spec.sets.insert(spec.sets.begin(), cal.begin(), cal.end());
    spec.sets_origin = "calibration " + a.calibration + " / " + spec.sets_origin;
  }
  spec.max_transfers = a.max_transfers;
  spec.fold_channels = a.fold_channels;
  spec.nccl.merge(a.nccl);
  if (a.overlap_collectives) spec.serialize_collectives = false;
  if (a.no_replay) spec.reuse_collective_times = false;
  if (workers == "cpu") return run_cpu(a, spec);
  if (sim::llm::is_llm_workload(spec.workload)) return run_llm(a, spec);
  if (a.search_plans)
    throw InputError("", "--search-plans", "plan search needs a large-model workload", spec.workload,
                     "a Transformer shape of workloads/llm/transformer_shapes.json (e.g. llama2-7b)");

  const topo::Catalog catalog = topo::Catalog::load_default();
  // A long run is not silent: after 2 s a terminal shows which collective of which iteration is simulated (the study
  // runs several passes: tick phases, the 1-GPU baseline and the exposure counterfactuals).
  ProgressLine progress("vgsim train", a.quiet ? ProgressLine::Show::Never : ProgressLine::Show::OnTerminal);
  TrainingJob job = resolve_job(spec, catalog);
  if (progress.enabled()) job.progress = [&progress](const std::string& state) { progress.update(state); };
  const TrainingStudy study = simulate_study(job);
  progress.done();
  std::ostringstream summary;
  write_training_summary(summary, job, study);
  std::cout << summary.str();
  // Both outputs or neither (a bad --trace path must not leave a fresh --json behind; one path for both is refused).
  write_files_atomically(
      {{"--json", a.json_out, a.json_out.empty() ? "" : training_json(job, study).dump(2) + "\n"},
       {"--trace", a.trace_out, a.trace_out.empty() ? "" : chrome_trace(job, study.result).dump() + "\n"}});
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* c =
      app.add_subcommand("train", "Simulate data-parallel training (throughput, overlap, scaling efficiency)");
  c->add_option("--scenario", a->scenario, "named scenario (workloads/scenarios) or scenario JSON file");
  c->add_flag("--list-scenarios", a->list, "list the named scenarios and exit");
  c->add_option("--workers", a->workers,
                "gpu: ranks on GPUs; cpu: ranks on the CPU sockets of GPU-less nodes, Horovod over Open MPI "
                "(cpu.ranks_per_node, cpu.threads_per_rank, mpi.*; default: the scenario's, else gpu)")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  c->add_option("--cluster", a->cluster, "cluster preset name or JSON file");
  c->add_option("--workload", a->workload,
                "model library name (resnet50, bert_large, ...) or model JSON file; a Transformer shape (llama2-7b, "
                "gpt3-175b, megatron-*) runs a large-model job with --set tp=, pp=, dp=, zero_stage=, micro_batch=, "
                "global_batch=, schedule=, virtual_stages=, sequence_parallel=, recompute=");
  c->add_flag("--search-plans", a->search_plans,
              "large-model job: try every tp x pp x dp x micro-batch x schedule x ZeRO plan that fits and rank them");
  c->add_option("--nodes", a->nodes, "hosts to use (default: all)")->check(cli::whole_number_at_least(1));
  c->add_option("--gpus-per-node", a->gpus_per_node, "GPUs per host (default: all of the first host)")
      ->check(cli::whole_number_at_least(1));
  c->add_option("--set", a->sets,
                "override: training settings (batch_per_gpu=256, precision=amp, framework=horovod, "
                "horovod.fusion_threshold=64MiB, ddp.bucket_cap_mb=50, grad_accumulation_steps=4, scaling=strong, "
                "global_batch=4096), compute.* (eff_compute, eff_memory, saturation, measured_throughput) or nccl.* "
                "(see vgsim params)");
  c->add_flag("--quiet", a->quiet, "no progress line on stderr (shown on a terminal after 2 s)");
  c->add_option("--iterations", a->iterations, "iterations to simulate (default 3; the last is reported)");
  c->add_option("--json", a->json_out, "write the full report as JSON");
  c->add_option("--calibration", a->calibration, "training profile (vgsim calibrate fit-training) to apply");
  c->add_option("--max-transfers", a->max_transfers,
                "refuse a collective whose schedule needs more step transfers (~64 B each; 0 = no limit)")
      ->capture_default_str()
      ->check(cli::whole_number_at_least(0));
  add_fold_channels_flag(c, a->fold_channels);
  c->add_option("--trace", a->trace_out, "write a Chrome trace (Perfetto) of every iteration");
  add_nccl_options(c, a->nccl);
  add_catalog_option(c);
  c->add_flag("--overlap-collectives", a->overlap_collectives,
              "start every group's collective when it is ready (they contend for links) instead of one NCCL stream");
  c->add_flag("--no-replay", a->no_replay, "simulate every collective on the engine (no reuse of identical ones)");
  c->callback([a] { run(*a); });
}

}  // namespace vgsim::cli
