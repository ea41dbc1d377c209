// OSU micro-benchmark latency importer (include/vgsim/calibrate/osu_import.hpp). Everything is read from the file's
// content first: the "# OSU MPI <Op> Latency Test vX" title (collective, OSU version), the column header (layout),
// an mpirun / srun line (ranks, nodes, ranks per node, --mca coll_tuned_<op>_algorithm N and
// coll_tuned_use_dynamic_rules), and provenance comments ("nodes = 2, one MPI rank per node"). The file name
// (<op>-...-<N>cpu-algo<k>-...) is a fallback; where it and the content disagree the import fails naming both.
#include "vgsim/calibrate/osu_import.hpp"

#include <map>
#include <regex>
#include <stdexcept>

#include "detail/launch_line.hpp"
#include "detail/text_table.hpp"
#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/calibrate/series.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::calibrate {

namespace {

std::string at_line(int n) { return "line " + std::to_string(n); }

// One fact stated by the file (line > 0), its name (line 0) or the caller (line -1); a second statement that differs
// is an error naming both.
struct Fact {
  std::string value;
  int line = 0;
  std::string by;
  bool set = false;
  void state(const std::string& v, int ln, const std::string& how, const std::string& file, const std::string& what) {
    if (set && value != v)
      throw InputError(file, ln > 0 ? at_line(ln) : "", "the " + what + " stated by " + how + " contradicts " + by, v,
                       value + " as stated by " + by + (line > 0 ? " on " + at_line(line) : ""));
    if (!set) value = v, line = ln, by = how, set = true;
  }
  std::int64_t count(const std::string& file) const {
    if (!set) return 0;
    const std::int64_t n = detail::count_of(value);
    if (n == 0) throw InputError(file, line > 0 ? at_line(line) : "", "implausible count", value, "1 .. 1,000,000");
    return n;
  }
};

// Everything the file, its name and the caller say about the table.
struct OsuFacts {
  Fact op, algo, nnodes, nranks, per_node, dynamic_rules, version;
  std::string hostfile;
  std::map<std::string, std::pair<std::string, int>> mca;  // MCA setting -> (value, line), resolved once op is known
};

// OSU title names ("Allreduce", "Reduce_scatter", "All-to-All Personalized Exchange", ...) -> collective_ops().
std::string op_of_title(std::string t) {
  t = detail::to_lower(t);
  static const std::vector<std::pair<std::string, std::string>> names{{"allreduce", "allreduce"},
                                                                      {"allgather", "allgather"},
                                                                      {"reduce_scatter", "reducescatter"},
                                                                      {"reduce scatter", "reducescatter"},
                                                                      {"reduce-scatter", "reducescatter"},
                                                                      {"broadcast", "broadcast"},
                                                                      {"bcast", "broadcast"},
                                                                      {"all-to-all", "alltoall"},
                                                                      {"alltoall", "alltoall"},
                                                                      {"reduce", "reduce"}};
  for (const auto& [k, v] : names)
    if (t.rfind(k, 0) == 0) return v;
  return "";
}

// The requested algorithm number k of `op` as a record's algo: allreduce by name, others "algo<k>" (0 = "default",
// Open MPI's "ignore": its decision rules choose).
std::string algo_name(const std::string& op, int k, const std::string& file, const std::string& where) {
  if (k == 0) return "default";
  if (op != "allreduce") return "algo" + std::to_string(k);
  if (k < 1 || k > 6)
    throw InputError(file, where, "unknown Open MPI allreduce algorithm", std::to_string(k),
                     "1..6 (1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring, "
                     "6 rabenseifner) or 0 (default)");
  return openmpi_allreduce_algorithm(k);
}

// The file name's hints: <op>- at the start, <N>cpu and algo<k> anywhere between separators.
void read_name(const std::string& base, const std::string& file, OsuFacts& f) {
  static const std::regex op_re(
      R"(^(allreduce|allgather|reduce_scatter|reducescatter|bcast|broadcast|alltoall|reduce)[-_.])");
  static const std::regex cpu_re(R"((?:^|[-_.])(\d+)cpu(?:[-_.]|$))");
  static const std::regex algo_re(R"((?:^|[-_.])algo(\d+)(?:[-_.]|$))");
  std::smatch m;
  if (std::regex_search(base, m, op_re)) f.op.state(op_of_title(m[1]), 0, "the file name", file, "collective");
  if (std::regex_search(base, m, cpu_re)) f.nnodes.state(m[1], 0, "the file name", file, "node count");
  if (std::regex_search(base, m, algo_re) && f.op.set)
    f.algo.state(algo_name(f.op.value, static_cast<int>(std::min<std::int64_t>(detail::count_of(m[1]), 99)), file, ""),
                 0, "the file name", file, "algorithm");
}

// A launch command (mpirun / srun) in the file: layout and the coll/tuned MCA settings.
void read_launch(const detail::LaunchLine& L, int ln, const std::string& file, OsuFacts& f) {
  const std::string how = "the " + L.launcher + " line";
  if (L.np) f.nranks.state(std::to_string(L.np), ln, how, file, "rank count");
  if (L.nodes) f.nnodes.state(std::to_string(L.nodes), ln, how, file, "node count");
  if (L.per_node) f.per_node.state(std::to_string(L.per_node), ln, how, file, "ranks per node");
  if (!L.np && L.host_slots)
    f.nranks.state(std::to_string(L.host_slots), ln, how + " (host slots)", file, "rank count");
  if (!L.per_node && L.slots_each && (!L.np || L.np == L.host_slots))
    f.per_node.state(std::to_string(L.slots_each), ln, how + " (host slots)", file, "ranks per node");
  if (L.np && L.per_node && L.np % L.per_node == 0 && !L.nodes)
    f.nnodes.state(std::to_string(L.np / L.per_node), ln, how, file, "node count");
  if (!L.hostfile.empty()) f.hostfile = L.hostfile;
  if (const auto it = L.mca.find("coll_tuned_use_dynamic_rules"); it != L.mca.end())
    f.dynamic_rules.state(it->second == "0" || it->second == "false" ? "no" : "yes", ln, how, file,
                          "coll_tuned_use_dynamic_rules");
  for (const auto& [k, v] : L.mca) f.mca[k] = {v, ln};
}

// The algorithm requested for the file's collective with --mca coll_tuned_<op>_algorithm N (other ops' ignored).
void read_requested_algorithm(const std::string& file, OsuFacts& f) {
  static const std::regex alg_re(R"(^coll_tuned_([a-z_]+)_algorithm$)");
  for (const auto& [k, vl] : f.mca) {
    const auto& [v, ln] = vl;
    std::smatch m;
    if (!std::regex_match(k, m, alg_re) || op_of_title(m[1]) != f.op.value) continue;
    const auto n = v.size() > 3 ? std::nullopt : detail::parse_int_token(v);
    if (!n || *n < 0) throw InputError(file, at_line(ln), "bad " + k, v, "an algorithm number 0..999");
    f.algo.state(algo_name(f.op.value, static_cast<int>(*n), file, at_line(ln)), ln,
                 "the mpirun line (--mca " + k + ")", file, "algorithm");
  }
}

// Column positions from the latest "# Size  Avg Latency(us) ..." header (size < 0: none seen yet).
struct Columns {
  int size = -1, avg = -1, ncols = 0;
};

// Column header: "# Size  Avg Latency(us)  Min Latency(us) ..." (column names contain one space each).
Columns parse_column_header(const std::string& raw, std::size_t first, int ln, const std::string& file) {
  std::string h = raw.substr(first + 1);
  std::vector<std::string> names;
  for (std::size_t p = 0; p < h.size();) {
    while (p < h.size() && h[p] == ' ') ++p;
    if (p >= h.size()) break;
    std::size_t q = h.find("  ", p);  // names are separated by two or more spaces
    if (q == std::string::npos) q = h.size();
    names.push_back(h.substr(p, q - p));
    p = q;
  }
  Columns c;
  c.ncols = static_cast<int>(names.size());
  for (int i = 0; i < c.ncols; ++i) {
    if (names[static_cast<std::size_t>(i)] == "Size") c.size = i;
    if (names[static_cast<std::size_t>(i)] == "Avg Latency(us)" || names[static_cast<std::size_t>(i)] == "Latency (us)")
      c.avg = i;
  }
  if (c.size < 0 || c.avg < 0)
    throw InputError(file, at_line(ln), "OSU header lacks Size or Avg Latency(us)", raw, "'# Size  Avg Latency(us)'");
  return c;
}

// A comment line: title, launch command, provenance statements, column header.
void read_comment_line(const std::string& raw, std::size_t first, int ln, const std::string& file, OsuFacts& f,
                       Columns& cols) {
  static const std::regex title_re(R"(OSU MPI(?:-[A-Za-z]+)?\s+(.*?)\s*Latency Test(?:\s+v([0-9][0-9.]*))?)");
  static const std::regex nodes_re(R"(\bnodes\s*=\s*(\d+))");
  static const std::regex rank_per_node_re(R"(\bone MPI rank per node\b)", std::regex::icase);
  static const std::regex per_node_re(R"(\b(\d+)\s+(?:MPI\s+)?ranks?\s+per\s+node\b)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(raw, m, title_re)) {
    const std::string op = op_of_title(m[1]);
    if (op.empty())
      throw InputError(file, at_line(ln), "unsupported OSU benchmark", m.str(0),
                       "an OSU collective latency test (Allreduce, Allgather, Reduce, Reduce_scatter, Broadcast, "
                       "Alltoall)");
    f.op.state(op, ln, "the OSU title", file, "collective");
    if (m[2].matched) f.version.state(m[2], ln, "the OSU title", file, "OSU version");
  }
  if (auto L = detail::parse_launch_line(raw.substr(first + 1))) read_launch(*L, ln, file, f);
  if (std::regex_search(raw, m, nodes_re)) f.nnodes.state(m[1], ln, "'" + m.str(0) + "'", file, "node count");
  if (std::regex_search(raw, rank_per_node_re))
    f.per_node.state("1", ln, "'one MPI rank per node'", file, "ranks per node");
  if (std::regex_search(raw, m, per_node_re)) f.per_node.state(m[1], ln, "'" + m.str(0) + "'", file, "ranks per node");
  if (raw.find("Size") != std::string::npos && raw.find("Latency") != std::string::npos &&
      raw.find("Latency Test") == std::string::npos)
    cols = parse_column_header(raw, first, ln, file);
}

// The sizes OSU prints per collective -> nccl-tests' size (size_bytes): allgather and alltoall print the message per
// process (per peer), nccl-tests the whole array (x ranks); the others the buffer itself (osu_benchmarks util).
std::int64_t nccl_size(const std::string& op, std::int64_t osu_size, std::int64_t nranks) {
  return op == "allgather" || op == "alltoall" ? osu_size * nranks : osu_size;
}

// One data row: (size as OSU prints it, average latency); complaints name the file and line.
SeriesPoint parse_data_row(const std::string& raw, int ln, bool last_line, const std::string& text, const Columns& cols,
                           const std::string& file) {
  const auto toks = detail::split_ws(raw);
  if (cols.size < 0)
    throw InputError(file, at_line(ln), "data row before the '# Size  Avg Latency(us)' header", raw, "a header first");
  if (static_cast<int>(toks.size()) != cols.ncols)
    throw InputError(file, at_line(ln), "wrong number of columns", std::to_string(toks.size()) + " in '" + raw + "'",
                     std::to_string(cols.ncols));
  const auto size = detail::parse_int_token(toks[static_cast<std::size_t>(cols.size)]);
  if (!size || *size < 0)
    throw InputError(file, at_line(ln), "bad size", "'" + toks[static_cast<std::size_t>(cols.size)] + "'",
                     "a non-negative integer of bytes");
  const std::string& lat = toks[static_cast<std::size_t>(cols.avg)];
  // OSU prints every latency with two decimals ("%.2f"); a value without them is a row cut inside a number
  // (e.g. "504000  84" left of "504000  847.93"), never a measurement.
  const auto dot = lat.find('.');
  if (dot == std::string::npos || lat.size() - dot - 1 != 2)
    throw InputError(file, at_line(ln), "latency not in OSU's two-decimal format (a cut-off row?)", "'" + lat + "'",
                     "a latency printed as OSU does, e.g. 847.93");
  if (last_line && !text.empty() && text.back() != '\n')
    throw InputError(file, at_line(ln), "last row has no line end (the file looks cut off)", "'" + raw + "'",
                     "a complete OSU output file");
  const auto t = detail::parse_double_token(lat);
  if (!t || *t <= 0)
    throw InputError(file, at_line(ln), "bad latency", "'" + lat + "'", "a positive number of microseconds");
  return SeriesPoint{*size, *t};
}

// The caller's hints: they fill what the file does not say and must agree with what it says.
void apply_hints(const ImportHints& h, const std::string& file, OsuFacts& f) {
  const std::string how = "the caller's hint";
  if (!h.op.empty()) f.op.state(h.op, -1, how + " --op", file, "collective");
  if (!h.algo.empty()) f.algo.state(h.algo, -1, how, file, "algorithm");
  if (h.nnodes > 0) f.nnodes.state(std::to_string(h.nnodes), -1, how + " --nodes", file, "node count");
  if (h.nranks > 0) f.nranks.state(std::to_string(h.nranks), -1, how + " --nranks", file, "rank count");
  if (h.gpus_per_node > 0)
    f.per_node.state(std::to_string(h.gpus_per_node), -1, how + " --gpus-per-node", file, "ranks per node");
}

// Ranks, nodes and ranks per node from the facts (two of them give the third); a clear error naming what is missing.
struct RankLayout {
  std::int64_t nranks = 0, nnodes = 0, per_node = 0;
};
RankLayout resolve_layout(const OsuFacts& f, const std::string& file, const std::string& base) {
  RankLayout L{f.nranks.count(file), f.nnodes.count(file), f.per_node.count(file)};
  if (!L.nnodes && L.nranks && L.per_node && L.nranks % L.per_node == 0) L.nnodes = L.nranks / L.per_node;
  if (!L.per_node && L.nranks && L.nnodes && L.nranks % L.nnodes == 0) L.per_node = L.nranks / L.nnodes;
  if (!L.nranks) L.nranks = L.nnodes * L.per_node;
  if (!L.nnodes || !L.per_node) {
    const std::string missing = !L.nnodes && !L.per_node ? "the node count and the ranks per node"
                                : !L.nnodes              ? "the node count"
                                                         : "the ranks per node";
    throw InputError(file, "",
                     missing + " not stated" +
                         (f.hostfile.empty() ? std::string()
                                             : " (the launch command reads its hosts from the hostfile '" + f.hostfile +
                                                   "', which is not in this file)"),
                     base,
                     "an mpirun line (-np N -N K, or -H a:K,b:K), 'nodes = N, one MPI rank per node' in a comment, "
                     "a file name with <N>cpu (one rank per node), or --nodes / --nranks / --gpus-per-node");
  }
  if (L.nranks != L.nnodes * L.per_node)
    throw InputError(file, "", "ranks != nodes x ranks per node",
                     std::to_string(L.nranks) + " != " + std::to_string(L.nnodes) + " x " + std::to_string(L.per_node),
                     "statements that agree");
  return L;
}

// The whole file's facts: content first, then the file name (a fallback that must agree), then the hints.
OsuFacts facts_of(const std::vector<std::string>& lines, const std::string& file, const std::string& base,
                  const ImportHints& hints) {
  OsuFacts f;
  Columns cols;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto first = lines[i].find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const int ln = static_cast<int>(i + 1);
    if (lines[i][first] == '#')
      read_comment_line(lines[i], first, ln, file, f, cols);
    else if (auto L = detail::parse_launch_line(lines[i]))
      read_launch(*L, ln, file, f);
  }
  if (f.op.set) read_requested_algorithm(file, f);
  read_name(base, file, f);
  apply_hints(hints, file, f);
  if (!f.algo.set && f.op.set) read_requested_algorithm(file, f);  // the op came from the name or a hint
  if (!f.op.set)
    throw InputError(file, "", "cannot tell the collective", base,
                     "a '# OSU MPI <Op> Latency Test' title, a file name starting with the collective "
                     "(allreduce-...), or --op OP");
  if (f.op.value == "allreduce" && f.nnodes.set && !f.per_node.set && f.nnodes.line == 0)
    f.per_node.state("1", 0, "the file name (<N>cpu: one rank per node)", file, "ranks per node");
  return f;
}

}  // namespace

const std::string& openmpi_allreduce_algorithm(int k) {
  // Open MPI coll/tuned allreduce algorithm ids, as listed in data/measured/README.md.
  static const std::vector<std::string> names{"basic_linear", "nonoverlapping", "recursive_doubling",
                                              "ring",         "segmented_ring", "rabenseifner"};
  if (k < 1 || k > 6) throw std::out_of_range("Open MPI allreduce algorithm must be 1..6, got " + std::to_string(k));
  return names[static_cast<std::size_t>(k - 1)];
}

std::vector<Measurement> import_osu_text(const std::string& text, const std::string& file, const ImportHints& hints) {
  const std::string base = detail::basename_of(file);
  const auto lines = detail::split_lines(text);
  const OsuFacts f = facts_of(lines, file, base, hints);
  std::vector<SeriesPoint> rows;
  Columns cols;
  OsuFacts scratch;  // the comment lines are read again only for the column header in force at each row
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i + 1);
    const std::string& raw = lines[i];
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (raw[first] == '#')
      read_comment_line(raw, first, ln, file, scratch, cols);
    else if (!detail::parse_launch_line(raw))
      rows.push_back(parse_data_row(raw, ln, i + 1 == lines.size(), text, cols, file));
  }
  if (rows.empty()) throw InputError(file, "", "no measurement rows found", "", "an OSU latency table");
  const RankLayout lay = resolve_layout(f, file, base);
  const std::string dtype = hints.dtype.empty() ? "float" : hints.dtype;  // OSU 5.x: float buffers, MPI_SUM
  const auto tsize = dtype_size_bytes(dtype);
  if (tsize == 0) throw InputError(file, "", "unknown dtype hint", dtype, "float, double, ...");
  const double factor = busbw_factor(f.op.value, lay.nranks);
  std::vector<Measurement> out;
  for (const SeriesPoint& p : rows) {
    CollectiveMeasurement c;
    c.op = f.op.value;
    c.algo = f.algo.set ? f.algo.value : "default";
    c.proto = hints.proto.empty() ? "default" : hints.proto;
    c.size_bytes = nccl_size(c.op, p.size_bytes, lay.nranks);
    c.count = p.size_bytes / tsize;
    c.dtype = dtype;
    c.redop = c.op == "allgather" || c.op == "alltoall" || c.op == "broadcast" ? "none" : "sum";
    c.root = c.op == "broadcast" || c.op == "reduce" ? 0 : -1;
    c.time_us = p.time_us;
    c.library = "openmpi";
    c.source = hints.source.empty() ? base : hints.source;
    c.nranks = lay.nranks, c.nnodes = lay.nnodes, c.gpus_per_node = lay.per_node;
    c.algbw_GBps = algbw_GBps(c.size_bytes, c.time_us);
    c.busbw_GBps = c.algbw_GBps * factor;
    if (f.dynamic_rules.set) c.mpi_dynamic_rules = f.dynamic_rules.value == "yes";
    if (f.version.set) c.benchmark = "osu " + f.version.value;
    out.emplace_back(std::move(c));
  }
  return out;
}

std::vector<Measurement> import_osu(const std::string& path, const ImportHints& hints) {
  return import_osu_text(detail::read_text_file(path, "a readable OSU benchmark output file"), path, hints);
}

}  // namespace vgsim::calibrate
