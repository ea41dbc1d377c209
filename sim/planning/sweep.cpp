// Sweep orchestration: thread pool, journal, resume, final CSV, summary (see include/vgsim/sim/planning/sweep.hpp).
#include "vgsim/sim/planning/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/parallel_for.hpp"
#include "vgsim/sim/planning/effects.hpp"
#include "vgsim/sim/planning/journal.hpp"
#include "vgsim/sim/planning/pareto.hpp"
#include "vgsim/sim/planning/summary_groups.hpp"
#include "vgsim/sim/training/exposure.hpp"

namespace vgsim::sim::planning {

namespace {

std::string cause_column(std::size_t k) { return std::string("exposed_") + training::kExposureCauses[k] + "_ms"; }

const std::vector<std::string> kFigures = [] {
  std::vector<std::string> f = {"ranks",        "throughput", "unit",           "efficiency",
                                "iteration_ms", "compute_ms", "exposed_comm_ms"};
  for (std::size_t k = 0; k < training::kExposureCauses.size(); ++k) f.push_back(cause_column(k));
  for (const char* x : {"comm_busy_ms", "bottleneck", "bottleneck_share", "busiest_link", "busiest_link_utilisation",
                        "gpus", "hosts", "nic_ports", "cost", "cost_per_throughput", "fidelity", "error"})
    f.push_back(x);
  return f;
}();

std::string quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c == '\n' ? ' ' : c;
  }
  return o + "\"";
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool q = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (q) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        q = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      q = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// CSV figures: the shortest text that reads back to the same double (std::to_chars), so a results file is lossless
// and a sweep resumed from it computes exactly what the uninterrupted run did.
std::string exact(double v) {
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}

std::string fmt(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

double num(const std::string& s) { return s.empty() ? 0.0 : std::strtod(s.c_str(), nullptr); }

PointResult parse_row(const std::vector<std::string>& header, const std::vector<std::string>& f) {
  std::map<std::string, std::string> m;
  for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) m[header[i]] = f[i];
  PointResult r;
  r.id = m["point_id"];
  r.label = m["label"];
  r.error = m["error"];
  r.fidelity = m["fidelity"];
  r.ranks = static_cast<std::uint32_t>(num(m["ranks"]));
  r.throughput = num(m["throughput"]);
  r.unit = m["unit"];
  r.efficiency = num(m["efficiency"]);
  r.iteration_ms = num(m["iteration_ms"]);
  r.compute_ms = num(m["compute_ms"]);
  r.exposed_comm_ms = num(m["exposed_comm_ms"]);
  r.comm_busy_ms = num(m["comm_busy_ms"]);
  for (std::size_t k = 0; k < r.exposed_cause_ms.size(); ++k) r.exposed_cause_ms[k] = num(m[cause_column(k)]);
  r.bottleneck = m["bottleneck"];
  r.bottleneck_share = num(m["bottleneck_share"]);
  r.busiest_link = m["busiest_link"];
  r.busiest_link_utilisation = num(m["busiest_link_utilisation"]);
  r.gpus = static_cast<std::uint32_t>(num(m["gpus"]));
  r.hosts = static_cast<std::uint32_t>(num(m["hosts"]));
  r.nic_ports = static_cast<std::uint32_t>(num(m["nic_ports"]));
  r.cost = num(m["cost"]);
  r.cost_per_throughput = num(m["cost_per_throughput"]);
  return r;
}

// Rows of an earlier run (final CSV or journal) by point id; checks the header. Only complete rows count: a row must
// end with its line end (each row is one write(), so a row without one was torn by a kill) and have exactly the
// header's field count; anything else is dropped with a note on stderr and its point runs again.
void read_previous(const std::string& path, const std::string& header, const char* fidelity,
                   std::map<std::string, std::string>& rows) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::size_t first = text.find('\n');
  if (first == std::string::npos) return;  // not even a complete header: nothing finished
  const std::string line0 = text.substr(0, first);
  if (line0 + "\n" != header)
    throw InputError(path, "header", "results file was written by a different plan (columns differ)",
                     "'" + line0.substr(0, 80) + "'", "the columns of this plan, or run without --resume");
  const auto names = split_csv(header.substr(0, header.size() - 1));
  const std::size_t fields = names.size();
  const std::size_t fid_col =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "fidelity") - names.begin());
  std::size_t pos = first + 1, dropped = 0, row = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {  // torn tail
      ++dropped;
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    const auto f = split_csv(line);
    ++row;
    if (f.size() != fields) {
      ++dropped;
      continue;
    }
    // A row computed at another fidelity would be mixed silently into this run's results (an error row has none).
    if (fid_col < fields && !f[fid_col].empty() && f[fid_col] != fidelity)
      throw InputError(path, "row " + std::to_string(row) + ", column fidelity",
                       "results computed at another fidelity than this run's (" + std::string(fidelity) + ")",
                       f[fid_col], "--fidelity " + f[fid_col] + " to resume them, or run without --resume");
    rows[f[1]] = line;
  }
  if (dropped)
    std::fprintf(stderr,
                 "vgsim sweep: %s: %zu incomplete row(s) dropped (torn by an interruption); their points run again\n",
                 path.c_str(), dropped);
}

}  // namespace

void finish_sweep(const SweepResult& r) {
  if (!r.journal.empty()) std::remove(r.journal.c_str());
}

void run_points_on_threads(const std::vector<std::size_t>& todo, unsigned jobs, const PointRun& run,
                           const PointDone& done) {
  parallel_for(todo.size(), jobs, [&](unsigned, std::size_t k) { done(todo[k], run(todo[k])); });
}

std::string csv_header(const std::vector<std::string>& cols) {
  std::string h = "index,point_id,label";
  for (const auto& c : cols) h += "," + quote(c);
  for (const auto& c : kFigures) h += "," + c;
  return h + "\n";
}

std::string csv_row(const PlanPoint& p, const PointResult& r, const std::vector<std::string>& cols) {
  std::string s = std::to_string(p.index) + "," + p.id + "," + quote(p.label);
  for (const auto& c : cols) {
    auto it = p.params.find(c);
    s += "," + (it == p.params.end() ? std::string() : quote(scalar_text(it->second)));
  }
  const bool ok = r.error.empty();
  auto n = [&](double v) { return ok ? exact(v) : std::string(); };
  s += "," + (ok ? std::to_string(r.ranks) : std::string()) + "," + n(r.throughput) + "," + r.unit + "," +
       n(r.efficiency) + "," + n(r.iteration_ms) + "," + n(r.compute_ms) + "," + n(r.exposed_comm_ms);
  for (double v : r.exposed_cause_ms) s += "," + n(v);
  s += "," + n(r.comm_busy_ms) + "," + quote(r.bottleneck) + "," + n(r.bottleneck_share) + "," + quote(r.busiest_link) +
       "," + n(r.busiest_link_utilisation) + "," + (ok ? std::to_string(r.gpus) : "") + "," +
       (ok ? std::to_string(r.hosts) : "") + "," + (ok ? std::to_string(r.nic_ports) : "") + "," + n(r.cost) + "," +
       n(r.cost_per_throughput) + "," + r.fidelity + "," + quote(r.error);
  return s + "\n";
}

namespace {

// Refuses a plan of more points than SweepOptions::max_points allows, before anything is expanded.
void check_point_limit(const SweepPlan& plan, const SweepOptions& o) {
  const std::size_t count = point_count(plan);
  if (!o.max_points || count <= o.max_points) return;
  const double mib = static_cast<double>(count) * kSweepBytesPerPoint / (1024.0 * 1024.0);
  throw InputError(plan.file, "--max-points",
                   "the plan has " + std::to_string(count) + " points (about " + fmt(mib, 0) +
                       " MiB of points and results held in memory until the CSV is written)",
                   std::to_string(o.max_points) + " allowed",
                   "a smaller grid, or --max-points " + std::to_string(count) + " to run it");
}

// The sweep's rows as they fill in: CSV lines by point index ("" = not finished) and the points still to run.
// Tells the user about rows or records of an earlier run whose point id is no point of this plan (an edited plan,
// or the file of another plan): they are kept out of this run's results.
template <typename Map>
void report_foreign(const std::string& path, const Map& by_id, const char* what, const std::vector<PlanPoint>& points) {
  if (by_id.empty()) return;
  std::set<std::string> ids;
  for (const PlanPoint& p : points) ids.insert(p.id);
  std::size_t foreign = 0;
  for (const auto& kv : by_id) foreign += ids.count(kv.first) == 0;
  if (foreign)
    std::fprintf(stderr, "vgsim sweep: %s: %zu %s of points not in this plan ignored (another or an edited plan)\n",
                 path.c_str(), foreign, what);
}

struct SweepRows {
  std::vector<std::string> lines;
  std::vector<std::size_t> todo;
  std::vector<PointResult> kept;  // journal records of this plan's points, rewritten into the resumed journal
};

// Takes the finished points of an earlier run: rows of its final CSV (values as printed) and the journal's records
// (full precision; they win). Rows are keyed by point id, so an edited plan keeps what still applies. Every other
// point of this rank goes to `todo`.
SweepRows take_finished_points(const SweepOptions& o, const std::string& header, const std::string& key,
                               Fidelity fidelity, const std::string& journal, const std::vector<std::string>& cols,
                               SweepResult& out) {
  const std::size_t n = out.points.size();
  std::map<std::string, std::string> previous;  // point id -> CSV line
  JournalContents journaled;
  if (o.resume && !o.out.empty()) {
    read_previous(o.out, header, to_string(fidelity), previous);
    journaled = read_journal(journal, header, key);
    if (journaled.dropped)
      std::fprintf(stderr,
                   "vgsim sweep: %s: %zu damaged or torn record(s) dropped (first: %s); their points run again\n",
                   journal.c_str(), journaled.dropped, journaled.first_problem.c_str());
    report_foreign(o.out, previous, "row(s)", out.points);
    report_foreign(journal, journaled.results, "record(s)", out.points);
  }
  SweepRows rows;
  rows.lines.resize(n);
  out.results.resize(n);
  const auto header_fields = split_csv(header.substr(0, header.size() - 1));
  for (std::size_t i = 0; i < n; ++i) {
    if (i % o.world != o.rank) continue;
    const PlanPoint& p = out.points[i];
    if (auto jt = journaled.results.find(p.id); jt != journaled.results.end()) {
      PointResult r = jt->second;
      r.index = i;  // the index may have moved if the plan was edited
      rows.lines[i] = csv_row(p, r, cols);
      rows.kept.push_back(r);
      out.results[i] = std::move(r);
      ++out.skipped;
    } else if (auto it = previous.find(p.id); it != previous.end()) {
      auto f = split_csv(it->second);
      f[0] = std::to_string(i);
      std::string line = f[0];
      for (std::size_t k = 1; k < f.size(); ++k) line += "," + quote(f[k]);
      rows.lines[i] = line + "\n";
      out.results[i] = parse_row(header_fields, f);
      out.results[i].index = i;
      ++out.skipped;
    } else {
      rows.todo.push_back(i);
    }
  }
  return rows;
}

// Opens the write-ahead journal into `wal` (journal "" = none). A resumed journal is first rewritten with only its
// intact records (atomically), so that new records never follow a torn line; then records are appended as points
// finish.
void open_journal(std::optional<SweepJournal>& wal, const std::string& journal, const std::string& header,
                  const std::string& key, bool resume, const std::vector<PointResult>& kept) {
  if (journal.empty()) return;
  if (resume) write_file_atomically(journal, journal_text(header, key, kept));
  wal.emplace(journal, header, key, /*fresh=*/!resume);
}

// Runs the points of rows.todo with the plan's executor; each finished point is journaled, becomes its CSV line and
// shows progress.
void run_todo(const SweepPlan& plan, const SweepOptions& o, Fidelity fidelity, const std::vector<std::string>& cols,
              std::optional<SweepJournal>& wal, SweepRows& rows, SweepResult& out) {
  const topo::Catalog catalog = topo::Catalog::load_default();
  const std::vector<std::size_t>& todo = rows.todo;
  std::mutex mu;
  std::size_t done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const PointRun run = [&](std::size_t i) { return run_point(plan, out.points[i], catalog, fidelity); };
  const PointDone on_done = [&](std::size_t i, PointResult r) {
    std::string line = csv_row(out.points[i], r, cols);
    r.index = i;
    std::lock_guard<std::mutex> lock(mu);
    if (wal) wal->append(r);
    rows.lines[i] = std::move(line);
    out.results[i] = std::move(r);
    ++done;
    if (o.progress) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double eta = el / static_cast<double>(done) * static_cast<double>(todo.size() - done);
      std::fprintf(stderr, "\rvgsim sweep: %zu/%zu points, %.1f s elapsed, ETA %.1f s   ", done, todo.size(), el, eta);
      if (done == todo.size()) std::fprintf(stderr, "\n");
    }
  };
  try {
    if (o.executor)
      o.executor(todo, run, on_done);
    else
      run_points_on_threads(todo, o.jobs, run, on_done);
  } catch (...) {
    if (wal) wal->close();
    throw;
  }
  if (wal) wal->close();
  if (done != todo.size()) {
    throw std::runtime_error("sweep executor finished " + std::to_string(done) + " of " + std::to_string(todo.size()) +
                             " points");
  }
  out.ran = todo.size();
}

// Marks the Pareto front of cost against throughput within each summary group (workload, throughput unit) over the
// finished points without errors: a ResNet-50 point never dominates a BERT one.
void mark_pareto(const std::vector<std::string>& lines, SweepResult& out) {
  out.pareto.assign(out.points.size(), false);
  for (const SummaryGroup& g : summary_groups(out.points, out.results)) {
    std::vector<double> cost, tput;
    std::vector<std::size_t> at;
    for (std::size_t i : g.points) {
      if (lines[i].empty()) continue;
      at.push_back(i);
      cost.push_back(out.results[i].cost);
      tput.push_back(out.results[i].throughput);
    }
    const std::vector<bool> front = pareto_front(cost, tput);
    for (std::size_t k = 0; k < at.size(); ++k) out.pareto[at[k]] = front[k];
  }
}

}  // namespace

SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& o) {
  check_point_limit(plan, o);
  SweepResult out;
  out.points = expand(plan);
  const auto cols = parameter_columns(out.points);
  const std::string header = csv_header(cols);
  const std::string journal = o.out.empty() ? std::string() : o.out + ".journal";
  const Fidelity fidelity = o.fidelity.value_or(plan.fidelity);
  const std::string key = std::string("fidelity ") + to_string(fidelity) + (o.run_key.empty() ? "" : "; " + o.run_key);
  SweepRows rows = take_finished_points(o, header, key, fidelity, journal, cols, out);
  std::optional<SweepJournal> wal;
  open_journal(wal, journal, header, key, o.resume, rows.kept);
  run_todo(plan, o, fidelity, cols, wal, rows, out);

  std::string csv = header;
  for (const std::string& line : rows.lines) csv += line;
  out.csv = csv;
  if (!o.out.empty()) {
    write_file_atomically(o.out, csv);
    out.journal = journal;
    if (!o.keep_journal) finish_sweep(out);
  }
  mark_pareto(rows.lines, out);
  return out;
}

namespace {

// Parameters whose value differs between the points `among` (var.* aside unless with_vars): the interesting ones.
std::vector<std::string> varied_parameters(const SweepResult& r, const std::vector<std::size_t>& among,
                                           bool with_vars) {
  std::vector<std::string> varied;
  for (const auto& c : parameter_columns(r.points)) {
    std::set<std::string> vals;
    for (std::size_t i : among) {
      auto it = r.points[i].params.find(c);
      vals.insert(it == r.points[i].params.end() ? "" : scalar_text(it->second));
    }
    if (vals.size() > 1 && (with_vars || c.rfind("var.", 0) != 0)) varied.push_back(c);
  }
  return varied;
}

// What the design column names: the varied parameters (var.* aside) and, beside a label, the grid axes.
struct DesignColumns {
  std::vector<std::string> varied, axes;
};

// The design column of a row: the label and the axes, or without a label the varied parameters.
std::string design_text(const SweepResult& r, std::size_t i, const DesignColumns& columns) {
  std::string design = r.points[i].label;
  // the label names the list entry: show only the grid axes beside it
  const std::vector<std::string>& shown_params = design.empty() ? columns.varied : columns.axes;
  for (const auto& c : shown_params) {
    auto it = r.points[i].params.find(c);
    if (it == r.points[i].params.end()) continue;
    if (!design.empty()) design += " ";
    design += c + "=" + scalar_text(it->second);
  }
  if (design.size() > 48) design = design.substr(0, 45) + "...";
  return design;
}

// One group's ranked table (by throughput, Pareto points marked '*', at most `top` rows plus every Pareto point) and
// its design effects.
void write_group(std::ostream& os, const SweepPlan& plan, const SweepResult& r, const std::vector<std::size_t>& points,
                 const DesignColumns& columns, std::size_t top) {
  std::vector<std::size_t> order = points;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return r.results[a].throughput > r.results[b].throughput; });
  const bool priced = plan.prices.has_value();
  // Fixed-width columns first; the busiest link (its name varies in length) last, so every column lines up. "limited
  // by" is the largest term of the iteration (compute or an exposure cause, training/bottleneck.hpp).
  os << "  #  pt   design" << std::string(44, ' ') << "throughput   eff   exposed_ms";
  if (priced) os << std::setw(14) << ("cost (" + plan.prices->currency + ")") << std::setw(17) << "cost/throughput";
  os << "  limited by      busiest link (busy while communicating)\n";
  std::size_t shown = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    if (k >= top && !r.pareto[i]) continue;
    ++shown;
    const PointResult& x = r.results[i];
    os << (r.pareto[i] ? "* " : "  ") << std::setw(3) << (k + 1) << " " << std::setw(4) << i << " " << std::left
       << std::setw(48) << design_text(r, i, columns) << std::right << std::setw(10) << fmt(x.throughput, 1) << " "
       << std::setw(6) << fmt(100 * x.efficiency, 1) << "% " << std::setw(10) << fmt(x.exposed_comm_ms, 3);
    if (priced) os << std::setw(14) << fmt(x.cost, 0) << std::setw(17) << fmt(x.cost_per_throughput, 3);
    const std::string limit = x.bottleneck.empty() ? "-" : x.bottleneck + " " + fmt(100 * x.bottleneck_share, 0) + "%";
    os << "  " << std::left << std::setw(15) << limit << std::right << " "
       << (x.busiest_link.empty() ? "-" : x.busiest_link + " " + fmt(100 * x.busiest_link_utilisation, 0) + "%")
       << "\n";
  }
  if (shown < order.size()) os << "  (" << order.size() - shown << " more in the CSV)\n";
  // Which design choice moves throughput most within the group (pairs that differ in one or two design keys and
  // agree on every workload and scale key; effects.hpp).
  const auto effects = design_effects(plan, r.points, r.results, points);
  if (!effects.empty()) {
    os << "largest design effect: " << describe_effect(effects.front(), r.points) << "\n";
    for (std::size_t k = 1; k < effects.size() && k < 4; ++k)
      os << "  next: " << describe_effect(effects[k], r.points) << "\n";
  }
}

}  // namespace

void write_sweep_summary(std::ostream& os, const SweepPlan& plan, const SweepResult& r, std::size_t top) {
  const std::size_t n = r.points.size();
  std::size_t errors = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!r.results[i].error.empty()) ++errors;
  const std::vector<SummaryGroup> groups = summary_groups(r.points, r.results);
  const bool several = groups.size() > 1;
  os << "vgsim sweep " << plan.name << ": " << n << " point(s), " << errors << " with errors";
  if (several)
    os << "; " << groups.size() << " groups of one workload and throughput unit, each ranked and compared alone";
  os << "\n";
  const bool priced = plan.prices.has_value();
  os << "ranked by throughput; * = on the " << (priced ? "cost-vs-throughput" : "throughput") << " Pareto front"
     << (several ? " of its group" : "") << "\n";
  if (!several) {  // one group: every point's parameters decide what the design column names, every grid axis shown
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    DesignColumns columns{varied_parameters(r, all, false), {}};
    for (const auto& [k, _] : plan.grid) columns.axes.push_back(k);
    write_group(os, plan, r, groups.empty() ? std::vector<std::size_t>{} : groups.front().points, columns, top);
  }
  for (std::size_t g = 0; several && g < groups.size(); ++g) {  // the heading names the workload: only what varies
    os << "\n[" << g + 1 << "/" << groups.size() << "] workload " << groups[g].workload << ", throughput in "
       << groups[g].unit << ": " << groups[g].points.size() << " point(s)\n";
    DesignColumns columns{varied_parameters(r, groups[g].points, false), {}};
    const auto with_vars = varied_parameters(r, groups[g].points, true);
    for (const auto& [k, _] : plan.grid)
      if (std::find(with_vars.begin(), with_vars.end(), k) != with_vars.end()) columns.axes.push_back(k);
    write_group(os, plan, r, groups[g].points, columns, top);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!r.results[i].error.empty()) os << "  point " << i << " failed: " << r.results[i].error << "\n";
}

}  // namespace vgsim::sim::planning
