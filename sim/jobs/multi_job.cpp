// Multi-job runs (see include/vgsim/sim/jobs/multi_job.hpp).
#include "vgsim/sim/jobs/multi_job.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/training/report.hpp"
#include "vgsim/sim/virtualization/vgpu_scheduler.hpp"

namespace vgsim::sim::virt {

namespace fs = std::filesystem;

MultiJobSpec parse_jobs(const Json& j, const std::string& file) {
  JsonReader r(j, file);
  MultiJobSpec s;
  s.file = file;
  s.cluster = r.string("cluster");
  if (auto v = r.opt_object("vgpu")) {
    if (auto p = v->opt_one_of("scheduler", {"best_effort", "equal_share", "fixed_share"}))
      s.vgpu_sets.push_back("vgpu.scheduler=" + *p);
    if (auto t = v->opt_time("time_slice")) s.vgpu_sets.push_back("vgpu.time_slice=" + format_time(*t));
    if (auto t = v->opt_time("switch_cost")) s.vgpu_sets.push_back("vgpu.switch_cost=" + format_time(*t));
    v->finish();
    // Checked here, against the scheduler's defaults, so that an error names $.vgpu rather than each job.
    std::vector<std::pair<std::string, Json>> values;
    for (const std::string& kv : s.vgpu_sets)
      values.emplace_back(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
    virt::VgpuSchedulerOptions check;
    virt::apply_vgpu_params(check, values, file + " " + v->path());
  }
  std::set<std::string> seen;
  auto jobs = r.objects("jobs");
  if (jobs.empty()) r.fail("jobs", "no jobs", "at least one job object");
  for (auto& jr : jobs) {
    training::JobSpec js;
    const std::string name = jr.string("name");
    if (name.empty()) jr.fail("name", "an empty job name (the report could not name the job)", "a non-empty name");
    if (!seen.insert(name).second) jr.fail("name", "duplicate job name", "unique names");
    js.cluster = s.cluster;
    js.workload = jr.string("workload");
    js.cluster_at = {file, r.path_of("cluster")};
    js.workload_at = {file, jr.path_of("workload")};
    js.endpoints_at = {file, jr.path_of("endpoints")};
    JobPlacement place;
    place.path = jr.path();
    const int given = int(jr.has("endpoints")) + int(jr.has("nodes")) + int(jr.has("mpijob"));
    if (given != 1)
      jr.fail("endpoints", given == 0 ? "no placement" : "more than one placement",
              "exactly one of \"endpoints\", \"nodes\" (with \"ranks_per_node\") or \"mpijob\"");
    if (jr.has("endpoints")) {
      js.endpoints = jr.strings("endpoints");
      if (js.endpoints.empty()) jr.fail("endpoints", "no endpoints", "at least one endpoint name");
    } else if (jr.has("nodes")) {
      NodeRanks nr;
      nr.nodes = jr.strings("nodes");
      if (nr.nodes.empty()) jr.fail("nodes", "no nodes", "at least one VM or host name");
      nr.ranks_per_node = static_cast<std::uint32_t>(jr.opt_integer("ranks_per_node", 1, 1024).value_or(1));
      place.nodes = nr;
    } else {
      jr.allow("mpijob");
      const Json& m = jr.json()["mpijob"];
      if (m.is_string()) {
        const fs::path mp = fs::path(file).parent_path() / m.get<std::string>();
        std::error_code ec;
        if (!fs::is_regular_file(mp, ec))
          jr.fail("mpijob", "no such MPIJob manifest: " + mp.string(), "a manifest file, relative to the jobs file");
        place.mpijob = load_mpijob(mp.string());
      } else {
        place.mpijob = parse_mpijob(m, file + " " + jr.path() + ".mpijob");
      }
    }
    if (!jr.has("nodes")) (void)jr.opt_integer("ranks_per_node", 1, 1024);
    if (jr.has("set")) js.sets = jr.strings("set");
    for (const auto& v : s.vgpu_sets) js.sets.push_back(v);
    js.sets_origin = file + " " + jr.path();
    js.settings_origin = file + " " + jr.path();
    if (auto it = jr.opt_integer("iterations", 1, 1000)) js.iterations = static_cast<int>(*it);
    jr.finish();
    s.names.push_back(name);
    s.jobs.push_back(std::move(js));
    s.placements.push_back(std::move(place));
  }
  r.finish();
  return s;
}

MultiJobSpec load_jobs_file(const std::string& path) { return parse_jobs(load_json_file(path), path); }

MultiJobResult run_jobs(const MultiJobSpec& spec, const topo::Catalog& catalog) {
  MultiJobResult r;
  r.names = spec.names;
  std::set<std::uint32_t> used;
  std::set<std::string> taken;  // endpoints given to a job so far (explicit ones first, then placed ones in job order)
  for (const auto& js : spec.jobs) taken.insert(js.endpoints.begin(), js.endpoints.end());
  std::optional<topo::Cluster> cluster;
  for (std::size_t k = 0; k < spec.jobs.size(); ++k) {
    training::JobSpec js = spec.jobs[k];
    const JobPlacement& pl = spec.placements.size() > k ? spec.placements[k] : JobPlacement{};
    if (pl.nodes || pl.mpijob) {
      if (!cluster) cluster.emplace(topo::Cluster::resolve(spec.cluster, catalog));
      js.endpoints = pl.nodes ? place_on_nodes(*cluster, *pl.nodes, taken, spec.file, pl.path)
                              : place_mpijob(*cluster, *pl.mpijob, taken, spec.file, pl.path + ".mpijob");
    }
    training::TrainingJob job = training::resolve_job(js, catalog);
    for (std::uint32_t e : job.rank_to_endpoint)
      if (!used.insert(e).second)
        throw InputError(spec.file, "$.jobs[" + std::to_string(k) + "].endpoints", "endpoint used by two jobs",
                         job.cluster->endpoints()[e].name, "one job per endpoint (a VM runs one job)");
    r.jobs.push_back(std::move(job));
  }
  const std::vector<training::TrainingResult> shared = training::simulate_training_together(r.jobs);
  for (std::size_t k = 0; k < r.jobs.size(); ++k) {
    training::TrainingStudy st;
    st.result = shared[k];
    training::TrainingJob one = training::with_ranks(r.jobs[k], 1, 1);
    one.iterations = 1;
    st.single_gpu = training::simulate_training(one);
    st.scaling_efficiency = st.result.samples_per_s / (st.result.ranks * st.single_gpu.samples_per_s);
    r.studies.push_back(std::move(st));
    r.alone.push_back(training::simulate_training(r.jobs[k]));
  }
  return r;
}

void write_jobs_summary(std::ostream& out, const MultiJobResult& r) {
  for (std::size_t k = 0; k < r.jobs.size(); ++k) {
    out << "== job " << r.names[k] << " ==\n";
    training::write_training_summary(out, r.jobs[k], r.studies[k]);
    const double shared = r.studies[k].result.samples_per_s, alone = r.alone[k].samples_per_s;
    char line[200];
    std::snprintf(line, sizeof line, "  sharing: %.2f samples/s with the other jobs vs %.2f alone (x%.3f)\n", shared,
                  alone, shared / alone);
    out << line;
    out << "  per-iteration time:";
    for (const auto& it : r.studies[k].result.iterations) out << " " << format_time(it.duration());
    out << "\n";
  }
}

Json jobs_json(const MultiJobResult& r) {
  Json j;
  j["tool"] = "vgsim jobs";
  Json jobs = Json::array();
  for (std::size_t k = 0; k < r.jobs.size(); ++k) {
    Json one = training::training_json(r.jobs[k], r.studies[k]);
    one["name"] = r.names[k];
    one["alone_samples_per_s"] = r.alone[k].samples_per_s;
    one["sharing_ratio"] = r.studies[k].result.samples_per_s / r.alone[k].samples_per_s;
    jobs.push_back(std::move(one));
  }
  j["jobs"] = jobs;
  return j;
}

}  // namespace vgsim::sim::virt
