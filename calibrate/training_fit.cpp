// Training-level calibration (see include/vgsim/calibrate/training_fit.hpp).
#include "vgsim/calibrate/training_fit.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "detail/golden_section.hpp"
#include "vgsim/calibrate/llm_fit.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"
#include "vgsim/sim/planning/analytical.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/sim/training/training_run.hpp"

namespace vgsim::calibrate {

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        out.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

// What decides one GPU's compute (cluster, workload and the settings other than the framework's): the key that pairs
// a multi-GPU row with its 1-GPU row (whose framework column may differ: one GPU runs no allreduce).
std::string compute_key(const TrainingCase& c) {
  std::vector<std::string> s;
  for (const auto& x : c.sets)
    if (x.rfind("framework=", 0) != 0 && x.rfind("horovod.", 0) != 0 && x.rfind("ddp.", 0) != 0) s.push_back(x);
  std::sort(s.begin(), s.end());
  std::string k = c.cluster + "|" + c.workload;
  for (const auto& x : s) k += "|" + x;
  return k;
}

// Data-parallel rows measure throughput in the model's units per second (large-model rows have their own metrics,
// llm_fit.cpp); an empty metric means the same.
void check_throughput_metric(const TrainingCase& c, const std::string& file) {
  static const std::vector<std::string> kMetrics = {"img_per_s", "images/s", "img/s", "samples_per_s", "samples/s"};
  if (c.metric.empty() || std::find(kMetrics.begin(), kMetrics.end(), c.metric) != kMetrics.end()) return;
  throw InputError(file, "line " + std::to_string(c.line) + ", column metric", "not a throughput metric",
                   "'" + c.metric + "'", "img_per_s, images/s, img/s, samples_per_s or samples/s (or empty)");
}

struct Param {
  std::string key;
  double lo, hi, catalog;
  std::string meaning;
};

void apply(sim::training::TrainingJob& j, const std::vector<Param>& ps, const std::vector<double>& v) {
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const std::string& key = ps[k].key;
    if (key == "compute.nccl_sm_per_channel")
      j.nccl_sm_per_channel = v[k];
    else
      j.comm.capacity_scale[key.substr(std::string("capacity_scale.").size())] = v[k];
  }
}

struct Fitter {
  std::vector<sim::training::TrainingJob> jobs;
  std::vector<double> measured;
  std::vector<Param> params;

  double predict(std::size_t i, const std::vector<double>& v) const {
    sim::training::TrainingJob j = jobs[i];
    apply(j, params, v);
    // The analytical fidelity (within 1 % of the engine on these jobs, test_analytical_fidelity) where it applies:
    // the fit evaluates every row a few hundred times.
    return (sim::planning::analytical_supported(j) ? sim::planning::simulate_training_analytical(j)
                                                   : sim::training::simulate_training(j))
        .work_per_s;
  }
  double loss(const std::vector<double>& v, std::size_t skip) const {
    double f = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (i == skip) continue;
      const double e = std::log(predict(i, v) / measured[i]);
      f += e * e;
    }
    return f;
  }
  // Coordinate descent, golden-section search per parameter inside its bounds (16 steps: the bracket shrinks to
  // 0.618^16 = 0.00045 of the range), 2 rounds (the loss is smooth in each parameter; a second round settles the
  // interactions).
  std::vector<double> fit(std::size_t skip) const {
    std::vector<double> v;
    for (const auto& p : params) v.push_back(p.catalog);
    for (int round = 0; round < 2; ++round)
      for (std::size_t k = 0; k < params.size(); ++k) {
        auto at = [&](double x) {
          std::vector<double> w = v;
          w[k] = x;
          return loss(w, skip);
        };
        const double x = detail::golden_section(at, params[k].lo, params[k].hi, 16);
        if (at(x) <= loss(v, skip)) v[k] = x;  // never worse than where the round started
      }
    return v;
  }
};

}  // namespace

sim::training::JobSpec training_case_spec(const TrainingCase& c, const std::string& file) {
  sim::training::JobSpec spec;
  spec.cluster = c.cluster;
  spec.workload = c.workload;
  spec.nodes = c.nodes;
  spec.gpus_per_node = c.gpus_per_node;
  spec.sets = c.sets;
  spec.sets_origin = file + " line " + std::to_string(c.line);
  spec.nccl_origin = spec.sets_origin;
  spec.cluster_at = {file, "line " + std::to_string(c.line) + ": cluster"};
  spec.workload_at = {file, "line " + std::to_string(c.line) + ": workload"};
  if (c.ib_disable) spec.nccl.ib_disable = true;
  if (c.gdr_disable) spec.nccl.gdr_disable = true;
  if (!c.gdr_level.empty()) spec.nccl.gdr_level = c.gdr_level;
  return spec;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double median_abs_error(std::vector<double> v) {
  for (auto& x : v) x = std::abs(x);
  return median(std::move(v));
}

std::vector<TrainingCase> read_training_cases(const std::string& path) {
  std::ifstream in = open_input(path);
  if (!in) throw InputError(path, "", "cannot open file", "", "a readable training measurements CSV");
  std::string line;
  int ln = 0;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++ln;
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    header = split_csv_line(line);
    for (auto& h : header) h = trim(h);
    break;
  }
  auto col = [&](const std::string& name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int workload_col = col("workload") >= 0 ? col("workload") : col("model");
  for (const char* req : {"case_id", "cluster", "nodes", "gpus_per_node", "value"})
    if (col(req) < 0)
      throw InputError(path, "line " + std::to_string(ln), "missing column", "'" + std::string(req) + "'",
                       "a header with case_id, cluster, workload (or model), nodes, gpus_per_node, value");
  if (workload_col < 0)
    throw InputError(path, "line " + std::to_string(ln), "missing column", "'workload'", "workload (or model)");
  // Every column is one the reader uses or a known descriptive one; anything else is most likely a misspelt setting
  // that would silently not apply (issue 40: an extra column was accepted).
  static const std::vector<std::string> kColumns = {"case_id",
                                                    "cluster",
                                                    "workload",
                                                    "model",
                                                    "nodes",
                                                    "gpus_per_node",
                                                    "value",
                                                    "metric",
                                                    "source",
                                                    "batch_per_gpu",
                                                    "precision",
                                                    "framework",
                                                    "settings",
                                                    "transport",
                                                    "gdr_level",
                                                    "gdr_disable",
                                                    "notes",
                                                    "gpu",
                                                    "interconnect_intra",
                                                    "network_inter",
                                                    "virtualization",
                                                    "published_tflops_per_gpu"};
  for (const std::string& h : header)
    if (std::find(kColumns.begin(), kColumns.end(), h) == kColumns.end()) {
      const std::string guess = did_you_mean(h, kColumns);
      throw InputError(path, "line " + std::to_string(ln), "unknown column", "'" + h + "'",
                       (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") +
                           "one of the columns docs/COMMANDS.md lists for fit-training");
    }
  std::map<std::string, int> first_line;  // case_id -> line
  std::vector<TrainingCase> out;
  while (std::getline(in, line)) {
    ++ln;
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto f = split_csv_line(line);
    auto get = [&](int c) { return c >= 0 && c < static_cast<int>(f.size()) ? trim(f[c]) : std::string(); };
    auto where = [&](const std::string& c) { return "line " + std::to_string(ln) + ", column " + c; };
    auto number = [&](const std::string& c, double lo, double hi) {
      const std::string s = get(col(c));
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
        throw InputError(path, where(c), "not a number in range", "'" + s.substr(0, 40) + "'",
                         "a number in [" + json_snippet(Json(lo)) + ", " + json_snippet(Json(hi)) + "]");
      return v;
    };
    auto count = [&](const std::string& c) {  // a whole count of hosts or GPUs
      const double v = number(c, 1, 1e6);
      if (v != std::floor(v))
        throw InputError(path, where(c), "not a whole number", "'" + get(col(c)) + "'", "an integer >= 1");
      return static_cast<std::uint32_t>(v);
    };
    TrainingCase c;
    c.line = ln;
    c.case_id = get(col("case_id"));
    if (c.case_id.empty()) throw InputError(path, where("case_id"), "empty case_id", "''", "a name for the row");
    if (auto [it, fresh] = first_line.emplace(c.case_id, ln); !fresh)
      throw InputError(path, where("case_id"), "duplicate case_id (first on line " + std::to_string(it->second) + ")",
                       "'" + c.case_id + "'", "a case_id of its own per row");
    c.cluster = get(col("cluster"));
    c.workload = get(workload_col);
    if (c.cluster.empty()) throw InputError(path, where("cluster"), "empty cluster", "''", "a preset name or file");
    if (c.workload.empty()) throw InputError(path, where("workload"), "empty workload", "''", "a model name or file");
    c.nodes = count("nodes");
    c.gpus_per_node = count("gpus_per_node");
    c.value = number("value", 1e-300, 1e300);
    c.metric = get(col("metric"));
    c.source = get(col("source"));
    for (const char* k : {"batch_per_gpu", "precision"}) {
      const std::string v = get(col(k));
      if (!v.empty() && v.find('?') == std::string::npos && v.find(' ') == std::string::npos)
        c.sets.push_back(std::string(k) + "=" + v);
    }
    const std::string fw = get(col("framework"));
    if (fw.find("horovod") != std::string::npos)
      c.sets.push_back("framework=horovod");
    else if (fw.find("ddp") != std::string::npos)
      c.sets.push_back("framework=ddp");
    std::stringstream settings(get(col("settings")));
    for (std::string pair; std::getline(settings, pair, ';');)
      if (!trim(pair).empty()) c.sets.push_back(trim(pair));
    const std::string transport = get(col("transport"));
    c.ib_disable = transport == "tcp";
    c.gdr_level = get(col("gdr_level"));
    const std::string gd = get(col("gdr_disable"));
    if (!gd.empty() && gd != "true" && gd != "false")
      throw InputError(path, where("gdr_disable"), "not a boolean", "'" + gd + "'", "true or false");
    c.gdr_disable = gd == "true";
    out.push_back(std::move(c));
  }
  if (out.empty()) throw InputError(path, "", "no measurement rows", "", "at least one data row after the header");
  return out;
}

std::vector<std::string> TrainingProfile::sets() const {
  std::vector<std::string> s;
  for (const auto& p : params) {
    std::ostringstream v;
    v.precision(17);
    v << p.value;
    s.push_back(p.key + "=" + v.str());
  }
  return s;
}

Json TrainingProfile::to_json() const {
  Json j;
  j["kind"] = "training";
  j["fitted_on"] = file;
  Json ps = Json::array();
  for (const auto& p : params)
    ps.push_back({{"key", p.key},
                  {"value", p.value},
                  {"catalog", p.catalog},
                  {"lo", p.lo},
                  {"hi", p.hi},
                  {"meaning", p.meaning}});
  j["parameters"] = ps;
  Json rs = Json::array();
  for (const auto& r : rows)
    rs.push_back({{"case_id", r.case_id},
                  {"measured", r.measured},
                  {"catalog", r.catalog},
                  {"fitted", r.fitted},
                  {"held_out", r.held_out},
                  {"compute_from", r.compute_from}});
  j["rows"] = rs;
  j["median_abs_error"] = {{"catalog", median_catalog}, {"fitted", median_fitted}, {"held_out", median_held_out}};
  return j;
}

TrainingProfile fit_training(const std::vector<TrainingCase>& cases, const topo::Catalog& catalog,
                             const std::string& file) {
  std::size_t llm_rows = 0;
  for (const auto& c : cases) llm_rows += is_llm_case(c);
  if (llm_rows == cases.size()) return fit_llm(cases, catalog, file);
  if (llm_rows > 0)
    throw InputError(file, "", "mixes large-model rows (a Transformer shape) with data-parallel rows",
                     std::to_string(llm_rows) + " of " + std::to_string(cases.size()) + " rows",
                     "one kind per file: the two fits calibrate different parameters");
  std::map<std::string, const TrainingCase*> single;
  for (const auto& c : cases) {
    check_throughput_metric(c, file);
    if (c.nodes * c.gpus_per_node != 1) continue;
    single[compute_key(c)] = &c;
    (void)sim::training::resolve_job(training_case_spec(c, file), catalog);  // its settings are checked as any row's
  }
  Fitter fit;
  TrainingProfile prof;
  prof.file = file;
  bool multi_node = false, sockets = false;
  for (const auto& c : cases) {
    if (c.nodes * c.gpus_per_node == 1) continue;
    sim::training::JobSpec spec = training_case_spec(c, file);
    TrainingRow row;
    row.case_id = c.case_id;
    row.measured = c.value;
    if (auto it = single.find(compute_key(c)); it != single.end()) {
      std::ostringstream v;
      v.precision(17);
      v << it->second->value;
      spec.sets.push_back("compute.measured_throughput=" + v.str());
      row.compute_from = it->second->case_id;
    }
    fit.jobs.push_back(sim::training::resolve_job(spec, catalog));
    fit.measured.push_back(c.value);
    prof.rows.push_back(row);
    multi_node = multi_node || c.nodes > 1;
    sockets = sockets || fit.jobs.back().comm.path.ib_disable;
  }
  if (fit.jobs.empty())
    throw InputError(file, "", "no multi-GPU row", "",
                     "rows with nodes x gpus_per_node > 1 (1-GPU rows calibrate compute)");
  fit.params.push_back({"compute.nccl_sm_per_channel", 0.0, 8.0, sim::training::kDefaultNcclSmPerChannel,
                        "SMs one NCCL channel takes from compute while it runs (1 = one CTA per channel, NCCL's "
                        "layout; up to 8 stands for HBM and scheduling interference beyond its own SM)"});
  if (multi_node)
    fit.params.push_back({"capacity_scale.nic-port", 0.5, 1.0, 1.0,
                          "achievable fraction of the NIC port's line rate (NCCL busbw reaches 94-98 % of it with "
                          "GDR, docs/SOURCES.md#measured-bandwidths; 0.5 bounds a badly configured fabric)"});
  if (sockets)
    fit.params.push_back({"capacity_scale.socket-threads", 0.05, 4.0, 1.0,
                          "scale of the socket threads' TCP throughput (the presets' per-thread figures are "
                          "estimates; 0.05-4 spans one slow core to a tuned multi-queue stack)"});
  std::vector<double> catalog_v;
  for (const auto& p : fit.params) catalog_v.push_back(p.catalog);
  const std::vector<double> best = fit.fit(SIZE_MAX);
  std::vector<double> e_cat, e_fit, e_held;
  for (std::size_t i = 0; i < fit.jobs.size(); ++i) {
    TrainingRow& r = prof.rows[i];
    r.catalog = fit.predict(i, catalog_v);
    r.fitted = fit.predict(i, best);
    r.held_out = fit.jobs.size() > 1 ? fit.predict(i, fit.fit(i)) : r.fitted;
    e_cat.push_back(r.catalog / r.measured - 1);
    e_fit.push_back(r.fitted / r.measured - 1);
    e_held.push_back(r.held_out / r.measured - 1);
  }
  prof.median_catalog = median_abs_error(e_cat);
  prof.median_fitted = median_abs_error(e_fit);
  prof.median_held_out = median_abs_error(e_held);
  for (std::size_t k = 0; k < fit.params.size(); ++k) {
    const Param& p = fit.params[k];
    prof.params.push_back({p.key, p.lo, p.hi, p.catalog, best[k], p.meaning});
  }
  return prof;
}

std::vector<std::string> load_training_profile_sets(const std::string& path) {
  const Json j = load_json_file(path);
  JsonReader r(j, path);
  const std::string kind = r.string("kind");
  if (kind != "training")
    r.fail("kind", "not a training profile (kind '" + kind + "')",
           "\"training\" (written by `vgsim calibrate fit-training`)");
  r.allow("fitted_on");
  r.allow("rows");
  r.allow("median_abs_error");
  std::vector<std::string> out;
  for (JsonReader& p : r.objects("parameters")) {
    const std::string key = p.string("key");
    const double lo = p.number("lo"), hi = p.number("hi");
    const double v = p.number("value", lo, hi);
    p.allow("catalog");
    p.allow("meaning");
    p.finish();
    std::ostringstream s;
    s.precision(17);
    s << v;
    out.push_back(key + "=" + s.str());
  }
  r.finish();
  return out;
}

}  // namespace vgsim::calibrate
