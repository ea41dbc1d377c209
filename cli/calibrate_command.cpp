// `vgsim calibrate ...` (see calibrate_command.hpp). The work is in vgsim::calibrate; this file parses options,
// reads and writes files (atomically) and prints tables. Bad input -> InputError (exit status 2).
#include "calibrate_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "calibrate_mpi.hpp"
#include "catalog_option.hpp"
#include "nccl_options.hpp"
#include "vgsim/calibrate/calibration_profile.hpp"
#include "vgsim/calibrate/fit_report.hpp"
#include "vgsim/calibrate/horovod_timeline_import.hpp"
#include "vgsim/calibrate/jsonl.hpp"
#include "vgsim/calibrate/megatron_log_import.hpp"
#include "vgsim/calibrate/mpi_fit.hpp"
#include "vgsim/calibrate/nccl_tests_import.hpp"
#include "vgsim/calibrate/osu_import.hpp"
#include "vgsim/calibrate/sim_fit.hpp"
#include "vgsim/calibrate/size_holdout.hpp"
#include "vgsim/calibrate/training_fit.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"
#include "vgsim/kernel/progress.hpp"
#include "vgsim/kernel/units.hpp"
#include "vgsim/topologies/cluster.hpp"
#include "whole_number_check.hpp"

namespace vgsim::cli {

namespace {

namespace fs = std::filesystem;
using namespace vgsim::calibrate;

struct ImportArgs {
  std::vector<std::string> files;
  std::int64_t nranks = 0, nnodes = 0, gpus_per_node = 0;
  std::string op, out;
  bool allow_simulated = false;
};

struct TargetArgs {
  std::string cluster;
  std::uint32_t nodes = 0, gpus_per_node = 0;
  sim::NcclKnobs nccl;  // the knobs the measured cluster ran with (same options as vgsim collective)
  // Open MPI records (validate): a fit-mpi profile (as vgsim collective --mpi-profile), then mpi.* --set values.
  std::string mpi_profile;
  std::vector<std::string> mpi_sets;
};

struct FitArgs {
  std::string input, out, date = "unknown", note;
  TargetArgs target;
  unsigned jobs = 0;             // threads for the replays (0: hardware threads)
  std::string holdout = "auto";  // size_holdout.hpp: auto, none, sizes>=X
  bool no_size_corrections = false;
};

struct ValidateArgs {
  std::string input, calibration, holdout, date = "unknown";
  TargetArgs target;
};

struct TrainingFitArgs {
  std::string input, out;
};

// Fits a training profile from measured throughputs and prints, per multi-GPU row, the catalog, fitted and
// leave-one-out predictions.
void run_fit_training(const TrainingFitArgs& a) {
  check_output_path(a.out, "--out");  // before the fit and its leave-one-out re-fits
  const auto cases = read_training_cases(a.input);
  const topo::Catalog catalog = topo::Catalog::load_default();
  std::cerr << "vgsim calibrate fit-training: " << cases.size() << " row(s); fitting (one re-fit per row for the "
            << "leave-one-out column)...\n";
  const TrainingProfile p = fit_training(cases, catalog, a.input);
  char buf[256];
  std::cout << "parameters (bounded; catalog -> fitted):\n";
  for (const auto& x : p.params) {
    std::snprintf(buf, sizeof buf, "  %-32s %8.4f -> %8.4f  in [%g, %g]\n", x.key.c_str(), x.catalog, x.value, x.lo,
                  x.hi);
    std::cout << buf;
  }
  // A parameter that ends at a bound explains the rows only as far as its physical range allows: say so.
  for (const auto& x : p.params)
    if (std::abs(x.value - x.lo) <= 1e-6 * (x.hi - x.lo) || std::abs(x.value - x.hi) <= 1e-6 * (x.hi - x.lo))
      std::cerr << "vgsim calibrate fit-training: warning: " << x.key << " ended at its bound ("
                << (std::abs(x.value - x.lo) < std::abs(x.value - x.hi) ? "lower" : "upper")
                << "): the rows ask for more than its range allows; check the measurements (errors below)\n";
  std::snprintf(buf, sizeof buf, "%-28s %12s %12s %8s %12s %8s %12s %8s\n", "case", "measured", "catalog", "err",
                "fitted", "err", "held-out", "err");
  std::cout << buf;
  for (const auto& r : p.rows) {
    auto e = [&](double v) { return 100.0 * (v / r.measured - 1.0); };
    std::snprintf(buf, sizeof buf, "%-28s %12.2f %12.2f %7.1f%% %12.2f %7.1f%% %12.2f %7.1f%%\n", r.case_id.c_str(),
                  r.measured, r.catalog, e(r.catalog), r.fitted, e(r.fitted), r.held_out, e(r.held_out));
    std::cout << buf;
  }
  std::snprintf(buf, sizeof buf, "median |error|: catalog %.1f %%, fitted %.1f %%, held-out (leave-one-out) %.1f %%\n",
                100 * p.median_catalog, 100 * p.median_fitted, 100 * p.median_held_out);
  std::cout << buf;
  write_file_atomically(a.out, p.to_json().dump(2) + "\n");
  std::cout << "profile: " << a.out << " (apply with --calibration on train, sweep, compare and jobs)\n";
}

struct MegatronImportArgs {
  std::vector<std::string> logs;
  std::string cluster, out, shape_dir;
  std::uint32_t nodes = 0, gpus_per_node = 0;
  int skip = 1;
};

// Megatron-LM logs -> a fit-training CSV; a log whose shape is not a built-in one gets a shape file beside the CSV
// (or in --shape-dir), which the row names as its workload. Every output is written, or none.
void run_import_megatron(const MegatronImportArgs& a) {
  check_output_path(a.out, "--out");
  (void)topo::Cluster::resolve(a.cluster, topo::Catalog::load_default());  // an unknown --cluster, before any log
  std::vector<TrainingCase> cases;
  std::vector<OutputFile> outputs;
  const fs::path dir = a.shape_dir.empty() ? fs::path(a.out).parent_path() : fs::path(a.shape_dir);
  for (const std::string& path : a.logs) {
    const MegatronLog log = read_megatron_log(path);
    const std::string stem = fs::path(path).stem().string();
    const models::TransformerShape shape = megatron_shape(log, stem);
    std::string workload = matching_builtin_shape(shape);
    if (workload.empty()) {
      workload = (dir / (stem + "-shape.json")).string();
      outputs.push_back({"--shape-dir", workload, shape_file_json(shape).dump(2) + "\n"});
    }
    cases.push_back(megatron_case(log, a.cluster, a.nodes, a.gpus_per_node, workload, a.skip));
    const TrainingCase& c = cases.back();
    std::cout << c.case_id << ": " << workload << ", " << log.iteration_ms.size() << " interval(s), median of the last "
              << log.iteration_ms.size() - static_cast<std::size_t>(a.skip) << ": " << c.value << " s per iteration\n";
  }
  outputs.push_back({"--out", a.out, training_cases_csv(cases)});
  write_files_atomically(outputs);
  std::cout << "rows: " << a.out << " (fit with: vgsim calibrate fit-training " << a.out << " --out profile.json)\n";
}

bool looks_like_osu(const std::string& path) {
  std::ifstream in = open_input(path);
  if (!in) throw InputError(path, "", "cannot open file", "", "a readable nccl-tests or OSU output file");
  std::string line;
  for (int i = 0; i < 40 && std::getline(in, line); ++i)
    if (line.find("OSU MPI") != std::string::npos || line.find("Avg Latency(us)") != std::string::npos) return true;
  return false;
}

void run_import(const ImportArgs& a) {
  if (!a.out.empty()) check_output_path(a.out, "--out");  // before reading the files
  ImportHints h;
  h.nranks = a.nranks, h.nnodes = a.nnodes, h.gpus_per_node = a.gpus_per_node, h.op = a.op;
  h.allow_simulated = a.allow_simulated;
  for (const auto& [name, v] : {std::pair<const char*, std::int64_t>{"--nranks", a.nranks},
                                {"--nodes", a.nnodes},
                                {"--gpus-per-node", a.gpus_per_node}})
    if (v < 0) throw InputError("", name, "not a count", std::to_string(v), "an integer >= 1");
  if (const auto& ops = collective_ops(); !a.op.empty() && std::find(ops.begin(), ops.end(), a.op) == ops.end()) {
    std::string list;
    for (const auto& o : ops) list += (list.empty() ? "" : ", ") + o;
    const std::string hint = did_you_mean(a.op, ops);
    throw InputError("", "--op", "unknown collective" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), a.op,
                     "one of " + list);
  }
  std::vector<Measurement> all;
  for (const auto& f : a.files) {
    std::error_code ec;
    if (fs::is_directory(f, ec))
      throw InputError(f, "", "is a directory", "", "an nccl-tests or OSU output file or a Horovod timeline JSON");
    if (looks_like_horovod_timeline(f)) {
      HorovodPhaseTotals t;
      auto r = import_horovod_timeline(f, h, &t);
      std::cerr << "imported " << r.size() << " fused NCCL allreduces from " << f << " (Horovod timeline: " << t.tensors
                << " tensors, " << t.allreduces << " tensor allreduces); time per phase, summed over tensors:\n";
      for (const auto& [name, us] : t.phase_us) std::cerr << "  " << name << " " << us / 1e3 << " ms\n";
      all.insert(all.end(), r.begin(), r.end());
      continue;
    }
    auto r = looks_like_osu(f) ? import_osu(f, h) : import_nccl_tests(f, h);
    std::cerr << "imported " << r.size() << " records from " << f << "\n";
    all.insert(all.end(), r.begin(), r.end());
  }
  if (a.out.empty())
    std::cout << to_jsonl(all);
  else
    write_jsonl(a.out, all);
}

// Layout defaults: from the records (the first NCCL record's nnodes x gpus_per_node) when not given. Without NCCL
// records there is no NCCL layout (nodes 0; the cluster may have no GPUs); with Open MPI records the target carries
// the cluster's Open MPI configuration (catalog, then --mpi-profile, then --set).
std::unique_ptr<SimTarget> make_target(const TargetArgs& t, const std::vector<Measurement>& recs,
                                       std::unique_ptr<topo::Cluster>& holder, const topo::Catalog& catalog) {
  bool any_nccl = false, any_mpi = false;
  std::int64_t nn = 0, gpn = 0;
  for (const auto& r : recs)
    if (const auto* c = std::get_if<CollectiveMeasurement>(&r); c && (c->library == "nccl" || c->library == "rccl")) {
      if (!any_nccl) nn = c->nnodes, gpn = c->gpus_per_node;
      any_nccl = true;
    } else if (c) {
      any_mpi = true;
    }
  if (t.cluster.empty()) {
    if (!t.mpi_profile.empty() || !t.mpi_sets.empty())
      throw InputError("", "--cluster", "missing", "",
                       "the cluster the Open MPI records ran on (--mpi-profile, --set)");
    if (any_nccl)
      throw InputError("", "--cluster", "missing", "", "a cluster preset or file to replay the NCCL records on");
    return nullptr;
  }
  holder = std::make_unique<topo::Cluster>(topo::Cluster::resolve(t.cluster, catalog));
  auto target = std::make_unique<SimTarget>();
  target->cluster = holder.get();
  target->options.nccl = t.nccl.tuning();
  t.nccl.apply(target->options);
  if (any_mpi || !t.mpi_profile.empty() || !t.mpi_sets.empty()) {  // a given profile or --set is checked
    std::vector<std::string> sets;
    if (!t.mpi_profile.empty()) sets = read_mpi_fit_sets(t.mpi_profile);
    sets.insert(sets.end(), t.mpi_sets.begin(), t.mpi_sets.end());
    target->mpi = sim::mpi_config_from(*holder, catalog, sets, "--set");
  }
  if (!any_nccl) return target;
  target->nodes = t.nodes ? t.nodes : static_cast<std::uint32_t>(std::max<std::int64_t>(1, nn));
  target->gpus_per_node =
      t.gpus_per_node ? t.gpus_per_node : static_cast<std::uint32_t>(std::max<std::int64_t>(1, gpn));
  sim::place_ranks(*holder, target->nodes, target->gpus_per_node);  // InputError when the cluster is too small
  return target;
}

// A fit-mpi profile applied to layouts or a cluster it was not fitted on: one warning line per fact (stderr), for
// each distinct nodes x ranks-per-node of the Open MPI records.
void warn_mpi_profile(const std::string& path, const SimTarget& t, const std::vector<Measurement>& recs) {
  std::set<std::pair<std::int64_t, std::int64_t>> layouts;
  for (const auto& r : recs)
    if (const auto* c = std::get_if<CollectiveMeasurement>(&r); c && c->library != "nccl" && c->library != "rccl")
      layouts.insert({std::max<std::int64_t>(1, c->nnodes), std::max<std::int64_t>(1, c->gpus_per_node)});
  std::set<std::string> seen;
  for (const auto& [nodes, rpn] : layouts)
    for (const auto& w : mpi_profile_warnings(path, *t.mpi, nodes, rpn))
      if (seen.insert(w).second) std::cerr << "vgsim: warning: " << w << "\n";
}

std::string environment_nccl_version(const std::vector<Measurement>& recs) {
  for (const auto& r : recs)
    if (const auto* e = std::get_if<EnvironmentRecord>(&r))
      for (const char* k : {"nccl_version", "nccl"})
        if (e->fields.contains(k) && e->fields[k].is_string()) return e->fields[k].get<std::string>();
  return "";
}

CalibrationProvenance provenance_for(const std::string& input, const std::vector<Measurement>& recs,
                                     const std::string& date, const std::string& cluster) {
  CalibrationProvenance p;
  std::vector<std::string> sources{fs::path(input).filename().string()};
  for (const auto& r : recs)
    if (const auto* c = std::get_if<CollectiveMeasurement>(&r))
      if (std::find(sources.begin(), sources.end(), c->source) == sources.end()) sources.push_back(c->source);
  p.sources = sources;
  p.hardware = cluster;
  p.nccl_version = environment_nccl_version(recs);
  p.date = date;
  return p;
}

void add_target_options(CLI::App* c, TargetArgs& t) {
  c->add_option("--cluster", t.cluster, "cluster preset name or JSON file the NCCL records ran on");
  add_catalog_option(c);
  c->add_option("--nodes", t.nodes, "nodes (default: from the records)");
  c->add_option("--gpus-per-node", t.gpus_per_node, "GPUs per node (default: from the records)");
  add_nccl_options(c, t.nccl);  // as the measured cluster ran: --gdr-disable, --ib-disable, --nccl-version, ...
}

void print_quality(const CalibrationProfile& p) {
  std::printf("%-72s %5s | %15s | %15s | %15s\n", "series", "pts", "before med/max%", "params med/max%",
              "after med/max%");
  for (const auto& q : p.quality)
    std::printf("%-72.72s %5lld | %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f\n", q.series.c_str(),
                static_cast<long long>(q.points), 100 * q.median_before, 100 * q.max_before, 100 * q.median_params,
                100 * q.max_params, 100 * q.median_after, 100 * q.max_after);
}

void run_fit(const FitArgs& a) {
  CalibrationFitOptions options;
  options.holdout = parse_size_holdout(a.holdout);
  options.size_corrections = !a.no_size_corrections;
  check_output_path(a.out, "--out");  // before the fit, which may take minutes
  const auto recs = read_jsonl(a.input);
  const topo::Catalog catalog = topo::Catalog::load_default();
  std::unique_ptr<topo::Cluster> cluster;
  const auto target = make_target(a.target, recs, cluster, catalog);
  CalibrationProvenance prov = provenance_for(a.input, recs, a.date, a.target.cluster);
  prov.note = a.note;
  ProgressLine progress("vgsim calibrate fit");  // on a terminal, after 2 s: the pass and its stage
  if (target && progress.enabled()) target->progress = [&progress](const std::string& s) { progress.update(s); };
  if (target) target->jobs = a.jobs;
  const CalibrationProfile p = fit_calibration(recs, target.get(), prov, options);
  progress.done();
  print_quality(p);
  if (!p.cluster.empty()) {
    const FittedScalars& f = p.fitted;
    std::string kinds;
    for (const auto& k : f.bottleneck_kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    std::printf("fitted: hop latency x%.3f, bandwidth efficiency %.3f on %s\n", f.hop_latency_scale,
                f.bandwidth_efficiency, kinds.empty() ? "(no bottleneck found)" : kinds.c_str());
    for (const auto& [pair, us] : f.base_latency_us) std::printf("  base latency %-12s %8.2f us\n", pair.c_str(), us);
    for (const auto& [proto, eff] : f.flow_cap_efficiency)
      std::printf("  %s per-channel ceiling x%.3f\n", proto.c_str(), eff);
    for (const auto& c : p.plans) {
      std::printf("calibrated plan choice (%s, %lldx%lld; monotone in size):", c.op.c_str(),
                  static_cast<long long>(c.nnodes), static_cast<long long>(c.gpus_per_node));
      for (const auto& g : c.segments)
        std::printf(" from %lld B %s/%s;", static_cast<long long>(g.start_bytes), g.algo.c_str(), g.proto.c_str());
      std::printf("\n");
    }
    for (const auto& r : p.residuals)
      if (!r.gaps.empty()) {
        std::printf("factors pinned between measured sizes (%s/%s/%s; the curve would fall there):", r.op.c_str(),
                    r.algo.c_str(), r.proto.c_str());
        for (const auto& g : r.gaps)
          std::printf(" %s-%s;", format_bytes(static_cast<Bytes>(g.from_bytes)).c_str(),
                      format_bytes(static_cast<Bytes>(g.to_bytes)).c_str());
        std::printf("\n");
      }
    for (const auto& nm : p.not_measured) std::printf("not measured (catalog value kept): %s\n", nm.c_str());
  }
  if (!p.fit_note.empty()) std::printf("note: %s\n", p.fit_note.c_str());
  if (!p.mpi_models.empty())  // issue 15: the physical Open MPI model has its own fit
    std::printf(
        "note: the alpha-beta Open MPI models above serve calibrate validate only without --cluster; fit the "
        "physical Open MPI model with: vgsim calibrate fit-mpi <OSU files> --out mpi.json (then calibrate "
        "validate --cluster <cluster> --mpi-profile mpi.json)\n");
  write_fit_report_text(std::cout, p.report);  // the decomposition and held-out errors (fit_report.hpp)
  for (const auto& w : p.report.warnings) std::cerr << "vgsim calibrate fit: WARNING: " << w << "\n";
  write_calibration_profile(a.out, p);
  std::printf("wrote %s\n", a.out.c_str());
}

// "--holdout sizes>=X" (X a byte size, e.g. 1MiB) or "--holdout nodes>N".
struct Holdout {
  bool by_size = false;
  std::int64_t threshold = 0;
  bool held(const CollectiveMeasurement& m) const { return by_size ? m.size_bytes >= threshold : m.nnodes > threshold; }
};
Holdout parse_holdout(const std::string& s) {
  Holdout h;
  const std::string expect = "sizes>=<bytes> (e.g. sizes>=1MiB) or nodes><N> (e.g. nodes>2)";
  try {
    if (s.rfind("sizes>=", 0) == 0) {
      h.by_size = true;
      h.threshold = parse_bytes(s.substr(7));
      if (h.threshold <= 0) throw UnitError("size must be > 0");
      return h;
    }
    if (s.rfind("nodes>", 0) == 0) {
      std::size_t used = 0;
      const std::string v = s.substr(6);
      h.threshold = std::stoll(v, &used);
      if (used != v.size() || h.threshold < 1) throw UnitError("bad node count");
      return h;
    }
  } catch (const std::exception&) {
  }
  throw InputError("", "--holdout", "bad hold-out rule", s, expect);
}

// A profile applied to a cluster, layout or transport it was not fitted on: one warning line per fact (stderr).
void warn_coverage(const CalibrationProfile& profile, const SimTarget& t) {
  const sim::Communicator comm(*t.cluster, sim::place_ranks(*t.cluster, t.nodes, t.gpus_per_node), t.options);
  for (const auto& w :
       coverage_warnings(profile, t.cluster->name(), t.nodes, t.gpus_per_node, comm.describe_transports()))
    std::cerr << "vgsim: warning: " << w << "\n";
}

// A calibration profile; a fit-mpi profile given to --calibration by mistake is named as such (it goes to
// --mpi-profile), not reported as a calibration profile missing its keys.
CalibrationProfile read_profile_for_validate(const std::string& path) {
  try {
    return read_calibration_profile(path);
  } catch (const InputError& e) {
    std::vector<std::string> sets;
    try {
      sets = read_mpi_fit_sets(path);
    } catch (const InputError&) {
      throw e;
    }
    if (sets.empty() || sets.front().rfind("mpi.", 0) != 0) throw;
    throw InputError(path, "--calibration", "an Open MPI fit profile (vgsim calibrate fit-mpi --out)", "",
                     "a calibration profile (vgsim calibrate fit --out); give this file with --mpi-profile");
  }
}

void run_validate(const ValidateArgs& a) {
  auto recs = read_jsonl(a.input);
  const topo::Catalog catalog = topo::Catalog::load_default();
  std::unique_ptr<topo::Cluster> cluster;
  std::unique_ptr<CalibrationProfile> profile;
  if (!a.calibration.empty()) profile = std::make_unique<CalibrationProfile>(read_profile_for_validate(a.calibration));
  std::vector<Measurement> report_on = recs;
  std::string title = "replay of " + a.input + (profile ? " with " + a.calibration : " (catalog defaults)");
  if (!a.holdout.empty()) {
    if (profile)
      throw InputError("", "--holdout", "cannot combine with --calibration", a.holdout,
                       "either a given profile or a hold-out fit");
    const Holdout h = parse_holdout(a.holdout);
    std::vector<Measurement> train, test;
    for (const auto& r : recs) {
      const auto* c = std::get_if<CollectiveMeasurement>(&r);
      (c && h.held(*c) ? test : train).push_back(r);
    }
    if (test.empty() || train.empty())
      throw InputError(a.input, "--holdout", "the rule leaves one side empty", a.holdout,
                       "a rule that splits the records (train " + std::to_string(train.size()) + ", test " +
                           std::to_string(test.size()) + ")");
    // The target layout comes from the training records (e.g. nodes>2 trains on 2 nodes).
    const auto target = make_target(a.target, train, cluster, catalog);
    profile = std::make_unique<CalibrationProfile>(
        fit_calibration(train, target.get(), provenance_for(a.input, train, a.date, a.target.cluster)));
    report_on = test;
    title = "hold-out " + a.holdout + ": fitted on " + std::to_string(train.size()) + " records, reported on " +
            std::to_string(test.size());
  }
  const auto target = make_target(a.target, report_on, cluster, catalog);
  if (profile && target && target->nodes > 0) warn_coverage(*profile, *target);  // also a hold-out fit's layouts
  if (!a.target.mpi_profile.empty() && target && target->mpi)
    warn_mpi_profile(a.target.mpi_profile, *target, report_on);
  const ValidationReport rep = validate_measurements(report_on, target.get(), profile.get());
  std::printf("# %s\n%-64s %12s %12s %12s %8s %s\n", title.c_str(), "series", "size(B)", "measured us", "simulated us",
              "error", "chosen");
  for (const auto& r : rep.rows)
    std::printf("%-64.64s %12lld %12.2f %12.2f %7.1f%% %s\n", r.series.c_str(), static_cast<long long>(r.size_bytes),
                r.measured_us, r.simulated_us, 100 * r.rel_error, r.chosen.c_str());
  for (const auto& why : rep.skip_reasons) std::printf("# skipped: %s\n", why.c_str());
  std::printf("# points %lld, skipped %lld, median relative error %.2f %%, max %.2f %%\n",
              static_cast<long long>(rep.quality.points), static_cast<long long>(rep.skipped),
              100 * rep.quality.median_rel_error, 100 * rep.quality.max_rel_error);
  if (!a.holdout.empty()) {  // cross-validation: does the profile fitted on the rest beat the catalog on them?
    const ValidationReport rep0 = validate_measurements(report_on, target.get(), nullptr);
    std::printf("# the same held-out points uncalibrated: median %.2f %%, max %.2f %%\n",
                100 * rep0.quality.median_rel_error, 100 * rep0.quality.max_rel_error);
  }
}

void run_probe() {
  // The probe is a separate MPI + CUDA + NCCL program (calibrate/probe), built only where those are found.
  std::vector<std::string> candidates;
  if (const char* self = std::getenv("VGSIM_PROBE")) candidates.push_back(self);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back((exe.parent_path() / "vgsim-probe").string());
    candidates.push_back((exe.parent_path().parent_path() / "calibrate" / "probe" / "vgsim-probe").string());
  }
  std::string found;
  for (const auto& c : candidates)
    if (fs::exists(c, ec)) {
      found = c;
      break;
    }
  std::cout << "vgsim calibrate probe: vgsim does not measure anything itself. Run the probe on the real cluster:\n";
  if (!found.empty())
    std::cout << "  probe: " << found << "\n";
  else
    std::cout << "  probe: not built here (it needs CUDA, NCCL, cuBLAS and MPI; configure with them found, target "
                 "vgsim-probe)\n";
  std::cout << "  one node:   vgsim-probe --out probe.jsonl\n"
               "  many nodes: mpirun -np <ranks> -N <gpus per node> -x NCCL_DEBUG=WARN vgsim-probe --out probe.jsonl\n"
               "then: vgsim calibrate fit probe.jsonl --cluster <preset> --out profile.json --date YYYY-MM-DD\n"
               "details: calibrate/probe/README.md\n";
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  CLI::App* cal = app.add_subcommand("calibrate", "Import measurements, fit and validate calibration profiles");
  cal->require_subcommand(1);

  cal->add_subcommand("probe", "How to measure a real cluster with vgsim-probe")->callback([] { run_probe(); });

  auto imp = std::make_shared<ImportArgs>();
  CLI::App* i = cal->add_subcommand("import", "nccl-tests / OSU text output or Horovod timelines -> measurement JSONL");
  i->add_option("files", imp->files,
                "nccl-tests or OSU output files, or Horovod timeline JSON (HOROVOD_TIMELINE; format auto-detected)")
      ->required();
  i->add_option("--nranks", imp->nranks, "ranks, when the file does not say");
  i->add_option("--nodes,--nnodes", imp->nnodes, "nodes, when the file does not say (--nnodes: older name)");
  i->add_option("--gpus-per-node", imp->gpus_per_node, "ranks per node, when the file does not say");
  i->add_option("--op", imp->op, "collective, when the file does not say");
  i->add_option("--out", imp->out, "output JSONL (default: stdout)");
  i->add_flag("--allow-simulated", imp->allow_simulated,
              "import a table `vgsim collective` wrote (refused by default)");
  i->callback([imp] { run_import(*imp); });

  auto fit = std::make_shared<FitArgs>();
  CLI::App* f = cal->add_subcommand("fit", "Fit a calibration profile from measurement JSONL");
  f->add_option("measurements", fit->input, "measurement JSONL (vgsim calibrate import, or the probe)")->required();
  add_target_options(f, fit->target);
  f->add_option("--out", fit->out, "profile JSON to write")->required();
  f->add_option("--date", fit->date, "date recorded in the provenance (never read from the clock)")
      ->capture_default_str();
  f->add_option("--note", fit->note, "free text recorded in the provenance");
  f->add_option("--holdout", fit->holdout,
                "sizes to hold out and predict with a profile fitted without them: auto (every 4th inner size and "
                "the largest eighth), none, or sizes>=X")
      ->capture_default_str();
  f->add_flag("--no-size-corrections", fit->no_size_corrections,
              "fit the physical parameters (and plan choice) only, no per-size correction factors");
  f->add_option("--jobs", fit->jobs,
                "threads that replay the records (default: hardware threads; the profile is the same for any count)");
  f->callback([fit] { run_fit(*fit); });

  auto tf = std::make_shared<TrainingFitArgs>();
  CLI::App* t = cal->add_subcommand("fit-training", "Fit a training profile from measured training throughputs (CSV)");
  t->add_option("measurements", tf->input,
                "CSV: case_id, cluster, workload (or model), nodes, gpus_per_node, value [, settings, batch_per_gpu, "
                "precision, framework, transport, gdr_level, gdr_disable]")
      ->required();
  t->add_option("--out", tf->out, "training profile JSON to write")->required();
  add_catalog_option(t);
  t->callback([tf] { run_fit_training(*tf); });

  auto mg = std::make_shared<MegatronImportArgs>();
  CLI::App* m =
      cal->add_subcommand("import-megatron", "Megatron-LM training logs -> large-model rows for fit-training");
  m->add_option("logs", mg->logs, "Megatron-LM logs (the arguments block and the iteration lines)")->required();
  m->add_option("--cluster", mg->cluster, "the cluster the logs ran on (preset or file)")->required();
  m->add_option("--nodes", mg->nodes, "hosts (or VMs) the run used")->required()->check(whole_number_at_least(1));
  m->add_option("--gpus-per-node", mg->gpus_per_node, "GPUs per host the run used")
      ->required()
      ->check(whole_number_at_least(1));
  m->add_option("--out", mg->out, "CSV to write (fit-training's format)")->required();
  m->add_option("--skip", mg->skip, "logged intervals to skip at the start (start-up, warm-up)")
      ->capture_default_str()
      ->check(whole_number_at_least(0));
  m->add_option("--shape-dir", mg->shape_dir,
                "folder for shape files of models vgsim has no shape for (default: the CSV's)");
  m->callback([mg] { run_import_megatron(*mg); });

  auto val = std::make_shared<ValidateArgs>();
  add_calibrate_mpi_command(cal);  // fit-mpi (calibrate_mpi.cpp)
  CLI::App* v = cal->add_subcommand("validate", "Replay measurements through the simulator and print the error");
  v->add_option("measurements", val->input, "measurement JSONL")->required();
  add_target_options(v, val->target);
  v->add_option("--calibration", val->calibration, "calibration profile to apply (vgsim calibrate fit --out)");
  v->add_option("--mpi-profile", val->target.mpi_profile,
                "Open MPI records: fit-mpi profile to apply (vgsim calibrate fit-mpi --out; needs --cluster)");
  v->add_option("--set", val->target.mpi_sets,
                "Open MPI records: mpi.* parameter name=value (vgsim params --library mpi)");
  v->add_option("--holdout", val->holdout, "cross-validation: fit on the rest, report on sizes>=X or nodes>N");
  v->callback([val] { run_validate(*val); });
}

}  // namespace vgsim::cli
