// nccl-tests text importer (include/vgsim/calibrate/nccl_tests_import.hpp). Column layout is read from each table's
// "#  size count type ..." header line, so old (error, no root), new (root, #wrong) and trimmed tables all parse.
// Format reference: docs/SOURCES.md#nccl-tests (nccl-tests src/util.cu writeResultHeader).
#include "vgsim/calibrate/nccl_tests_import.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "detail/launch_line.hpp"
#include "detail/text_table.hpp"
#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::calibrate {

using detail::half_unit;
using detail::parse_double_token;
using detail::parse_int_token;
using detail::split_ws;
using detail::to_lower;

namespace {

std::string at_line(int n) { return "line " + std::to_string(n); }

// A count the file states (digits matched by a pattern): 1 .. 1,000,000, else an InputError naming the line.
std::int64_t stated_count(const std::string& digits, int ln, const std::string& file) {
  const std::int64_t n = detail::count_of(digits);
  if (n == 0)
    throw InputError(file, ln > 0 ? at_line(ln) : "", "implausible count", digits, "a count from 1 to 1,000,000");
  return n;
}

// Merges statements about one quantity; two different values are an error naming both lines.
struct Stated {
  std::int64_t value = 0;
  int line = 0;
  std::string what;
  void set(std::int64_t v, int ln, const std::string& how, const std::string& file, const std::string& name) {
    if (value != 0 && value != v)
      throw InputError(file, at_line(ln), "header states conflicting " + name, std::to_string(v) + " (" + how + ")",
                       std::to_string(value) + " as stated by " + what + (line > 0 ? " on " + at_line(line) : ""));
    if (value == 0) value = v, line = ln, what = how;
  }
};

struct Layout {
  Stated nranks, nnodes, gpn;
  std::string hostfile;  // named by the launch command, not readable from the measurement file
};

// A launch command before the '<name>_perf' program: processes (-np), processes per node (-N, --npernode,
// ppr:K:node, srun --ntasks-per-node, -H a:K,b:K), nodes (-H hosts, srun -N); each process runs t threads x g GPUs.
void read_launch_layout(const std::string& text, std::size_t perf, std::int64_t g, std::int64_t t, int ln,
                        const std::string& file, Layout& L) {
  const auto launch = detail::parse_launch_line(text.substr(0, perf));
  if (!launch) return;
  const detail::LaunchLine& a = *launch;
  const std::string how = "the launch command";
  const std::int64_t per = a.per_node ? a.per_node : (!a.np || a.np == a.host_slots ? a.slots_each : 0);
  const std::int64_t procs = a.np ? a.np : a.host_slots ? a.host_slots : a.nodes * per;
  std::int64_t nodes = a.nodes;
  if (!nodes && procs && per && procs % per == 0) nodes = procs / per;
  if (procs) L.nranks.set(procs * t * g, ln, how, file, "rank count");
  if (nodes) L.nnodes.set(nodes, ln, how, file, "node count");
  if (per)
    L.gpn.set(per * t * g, ln, how, file, "GPUs per node");
  else if (procs && nodes && procs % nodes == 0)
    L.gpn.set(procs / nodes * t * g, ln, how, file, "GPUs per node");
  if (!a.hostfile.empty()) L.hostfile = a.hostfile;
}

// Free-form statements: "8 nodes x 4 A100", "16 ranks", "single node", "8 GPUs per node", "nodes: 2".
void read_stated_counts(const std::string& text, int ln, const std::string& file, Layout& L) {
  static const std::regex n_ranks(R"((\d+)\s+ranks\b)", std::regex::icase);
  // "2 nodes x 8 GPUs", vgsim's own "2 node(s) x 4 GPU(s)", "8 nodes x 4 A100" (any device word after the count)
  static const std::regex nodes_x_gpus(R"((\d+)\s+nodes?(?:\(s\))?\s*x\s*(\d+)\s*(?:GPUs?(?:\(s\))?|[A-Za-z][\w-]*)?)",
                                       std::regex::icase);
  static const std::regex nodes_colon(R"(\bnodes\s*[:=]\s*(\d+)\b)", std::regex::icase);
  static const std::regex gpus_per_node(R"((\d+)\s*GPUs?\s*(?:per\s+node|/\s*node)\b)", std::regex::icase);
  static const std::regex single_node(R"(\bsingle\s+node\b)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(text, m, nodes_x_gpus)) {
    const auto nodes = stated_count(m.str(1), ln, file), gpn = stated_count(m.str(2), ln, file);
    L.nnodes.set(nodes, ln, "'" + m.str(0) + "'", file, "node count");
    L.gpn.set(gpn, ln, "'" + m.str(0) + "'", file, "GPUs per node");
    L.nranks.set(nodes * gpn, ln, "'" + m.str(0) + "'", file, "rank count");
  }
  if (std::regex_search(text, m, nodes_colon))
    L.nnodes.set(stated_count(m.str(1), ln, file), ln, "'" + m.str(0) + "'", file, "node count");
  if (std::regex_search(text, m, gpus_per_node))
    L.gpn.set(stated_count(m.str(1), ln, file), ln, "'" + m.str(0) + "'", file, "GPUs per node");
  if (std::regex_search(text, m, n_ranks))
    L.nranks.set(stated_count(m.str(1), ln, file), ln, "'" + m.str(0) + "'", file, "rank count");
  if (std::regex_search(text, single_node)) L.nnodes.set(1, ln, "'single node'", file, "node count");
}

Layout stated_layout_lines(const std::vector<std::pair<int, std::string>>& lines, const std::string& file) {
  static const std::regex rank_line(R"(^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device)");
  static const std::regex name_nxm(R"((?:^|[_-])(\d+)x(\d+)x)");
  static const std::regex single_process(R"(\bsingle\s+process\b)", std::regex::icase);
  static const std::regex g_flag(R"((?:^|\s)-g\s*(\d+)\b)");
  static const std::regex t_flag(R"((?:^|\s)-t\s*(\d+)\b)");

  Layout L;
  const std::string base = detail::basename_of(file);
  std::smatch m;
  if (std::regex_search(base, m, name_nxm)) {
    const auto nodes = stated_count(m.str(1), 0, file), gpn = stated_count(m.str(2), 0, file);
    L.nnodes.set(nodes, 0, "the file name", file, "node count");
    L.gpn.set(gpn, 0, "the file name", file, "GPUs per node");
    L.nranks.set(nodes * gpn, 0, "the file name", file, "rank count");
  }
  std::set<std::string> hosts;
  std::int64_t rank_lines = 0;
  int first_rank_line = 0;
  for (const auto& [ln, text] : lines) {
    if (std::regex_search(text, m, rank_line)) {
      ++rank_lines;
      hosts.insert(m[2]);
      if (!first_rank_line) first_rank_line = ln;
      continue;
    }
    read_stated_counts(text, ln, file, L);
    const auto perf = text.find("_perf");
    std::int64_t g = 1, t = 1;
    if (perf != std::string::npos) {
      const std::string args = text.substr(perf);
      if (std::regex_search(args, m, g_flag)) g = stated_count(m.str(1), ln, file);
      if (std::regex_search(args, m, t_flag)) t = stated_count(m.str(1), ln, file);
    }
    if (std::regex_search(text, single_process) && std::regex_search(text, m, g_flag)) {
      const auto gg = stated_count(m.str(1), ln, file);
      L.nranks.set(gg * t, ln, "'single process ... -g " + std::to_string(gg) + "'", file, "rank count");
      L.nnodes.set(1, ln, "'single process'", file, "node count");
    }
    if (perf != std::string::npos) read_launch_layout(text, perf, g, t, ln, file, L);
  }
  if (rank_lines > 0) {
    L.nranks.set(rank_lines, first_rank_line, "the '#  Rank' lines", file, "rank count");
    L.nnodes.set(static_cast<std::int64_t>(hosts.size()), first_rank_line, "the hosts of the '#  Rank' lines", file,
                 "node count");
  }
  return L;
}

const std::map<std::string, std::string>& perf_names() {
  static const std::map<std::string, std::string> m{
      {"all_reduce", "allreduce"}, {"all_gather", "allgather"}, {"reduce_scatter", "reducescatter"},
      {"broadcast", "broadcast"},  {"reduce", "reduce"},        {"sendrecv", "sendrecv"},
      {"alltoall", "alltoall"}};
  return m;
}

// Column positions of one table, from its header line.
struct Group {
  int time = -1, algbw = -1, busbw = -1, wrong = -1, error = -1;
};
struct Columns {
  int ncols = 0;
  int size = -1, count = -1, type = -1, redop = -1, root = -1;
  std::vector<Group> groups;
  int line = 0;
};

std::optional<Columns> parse_column_header(const std::string& text, int ln) {
  std::string body = text.substr(1);  // drop the leading '#'
  auto toks = split_ws(body);
  bool has_size = false, has_time = false;
  for (const auto& t : toks) has_size |= (t == "size"), has_time |= (t == "time");
  if (!has_size || !has_time) return std::nullopt;
  Columns c;
  c.line = ln;
  c.ncols = static_cast<int>(toks.size());
  for (int i = 0; i < c.ncols; ++i) {
    const auto& t = toks[static_cast<std::size_t>(i)];
    if (t == "size")
      c.size = i;
    else if (t == "count")
      c.count = i;
    else if (t == "type")
      c.type = i;
    else if (t == "redop")
      c.redop = i;
    else if (t == "root")
      c.root = i;
    else if (t == "time")
      c.groups.push_back(Group{i});
    else if (!c.groups.empty() && t == "algbw")
      c.groups.back().algbw = i;
    else if (!c.groups.empty() && t == "busbw")
      c.groups.back().busbw = i;
    else if (!c.groups.empty() && t == "#wrong")
      c.groups.back().wrong = i;
    else if (!c.groups.empty() && t == "error")
      c.groups.back().error = i;
  }
  return c;
}

bool is_missing(const std::string& tok) { return tok == "N/A" || tok == "(cut)" || tok == "-"; }

bool is_nccl_log_line(const std::string& text) {
  return text.find(" NCCL INFO ") != std::string::npos || text.find(" NCCL WARN ") != std::string::npos;
}

// vgsim's own `collective` tables say so in their first lines; they are imported only with allow_simulated.
void reject_simulated(const std::vector<std::string>& lines, const std::string& file, const ImportHints& hints) {
  for (std::size_t i = 0; i < lines.size() && i < 8 && !hints.allow_simulated; ++i)
    if (lines[i].rfind("# vgsim collective:", 0) == 0)
      throw InputError(file, "line " + std::to_string(i + 1), "this table was simulated by vgsim, not measured",
                       "'" + lines[i].substr(0, 80) + "'", "a measured nccl-tests log (or --allow-simulated)");
}

// The comment lines ('#' first), numbered, and all of them as one text.
struct Comments {
  std::vector<std::pair<int, std::string>> lines;
  std::string text;
};

Comments comments_of(const std::vector<std::string>& lines) {
  Comments c;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto first = lines[i].find_first_not_of(" \t");
    if (first != std::string::npos && lines[i][first] == '#') {
      c.lines.emplace_back(static_cast<int>(i + 1), lines[i].substr(first));
      c.text += lines[i] + "\n";
    }
  }
  return c;
}

struct RankLayout {
  std::int64_t nranks = 0, nnodes = 0, gpn = 0;
};

// Ranks and nodes: the file's statements, then the caller's hints (which must agree).
RankLayout resolve_layout(const Comments& comments, const std::string& file, const ImportHints& hints) {
  Layout L = stated_layout_lines(comments.lines, file);
  auto apply_hint = [&](Stated& s, std::int64_t hint, const std::string& name) {
    if (hint <= 0) return;
    if (s.value != 0 && s.value != hint)
      throw InputError(
          file, s.line > 0 ? at_line(s.line) : "", name + " " + std::to_string(hint) + " contradicts the file",
          std::to_string(s.value) + " (stated by " + s.what + ")", "hints that agree with the file, or none");
    if (s.value == 0) s.value = hint, s.what = "the caller's hint";
  };
  apply_hint(L.nranks, hints.nranks, "--nranks");
  apply_hint(L.nnodes, hints.nnodes, "--nodes");
  apply_hint(L.gpn, hints.gpus_per_node, "--gpus-per-node");
  std::int64_t nranks = L.nranks.value, nnodes = L.nnodes.value, gpn = L.gpn.value;
  if (!nranks && nnodes && gpn) nranks = nnodes * gpn;
  if (!nranks)
    throw InputError(file, "", "the number of ranks is not stated in the header", "",
                     "a header saying it (e.g. 'mpirun -np 16 ... -g 1', '#  Rank' lines) or --nranks N");
  if (!nnodes && gpn && nranks % gpn == 0) nnodes = nranks / gpn;
  if (!nnodes)
    throw InputError(file, "",
                     "the number of nodes is not stated in the header" +
                         (L.hostfile.empty() ? std::string()
                                             : " (the launch command reads its hosts from the hostfile '" + L.hostfile +
                                                   "', which is not in this file)"),
                     "", "a header saying it (e.g. 'single node', '-npernode 8', '-H a:8,b:8') or --nodes N");
  if (!gpn) {
    if (nranks % nnodes != 0)
      throw InputError(file, "", "ranks do not divide evenly over nodes",
                       std::to_string(nranks) + " ranks on " + std::to_string(nnodes) + " nodes",
                       "the same number of ranks on every node");
    gpn = nranks / nnodes;
  }
  if (nnodes * gpn != nranks)
    throw InputError(file, "", "ranks != nodes x GPUs per node",
                     std::to_string(nranks) + " != " + std::to_string(nnodes) + " x " + std::to_string(gpn),
                     "a consistent header and hints");
  return RankLayout{nranks, nnodes, gpn};
}

// What holds for every row of the file: layout, forced algorithm / protocol, source, default dtype.
struct FileFacts {
  RankLayout layout;
  std::string algo, proto, source, default_dtype;
};

FileFacts file_facts(const Comments& comments, const std::string& file, const ImportHints& hints) {
  FileFacts f;
  f.layout = resolve_layout(comments, file, hints);
  // Algorithm / protocol forced in the environment.
  static const std::regex algo_env(R"(NCCL_ALGO=([A-Za-z0-9_]+))"), proto_env(R"(NCCL_PROTO=([A-Za-z0-9_]+))");
  std::smatch m;
  f.algo = hints.algo, f.proto = hints.proto;
  if (f.algo.empty()) f.algo = std::regex_search(comments.text, m, algo_env) ? to_lower(m[1]) : "default";
  if (f.proto.empty()) f.proto = std::regex_search(comments.text, m, proto_env) ? to_lower(m[1]) : "default";
  if (f.proto != "ll" && f.proto != "ll128" && f.proto != "simple" && f.proto != "default")
    throw InputError(file, "", "unknown NCCL protocol", f.proto, "ll, ll128, simple or default");

  f.source = hints.source.empty() ? detail::basename_of(file) : hints.source;
  f.default_dtype = hints.dtype.empty() ? "float" : hints.dtype;
  if (dtype_size_bytes(f.default_dtype) == 0)
    throw InputError(file, "", "unknown dtype hint", f.default_dtype, "an nccl-tests type name such as float");
  return f;
}

// The table being read: the collective (from the '<name>_perf' command) and the latest column header.
struct TableState {
  std::string op;
  std::optional<Columns> cols;
};

void read_comment_line(const std::string& c, int ln, const std::string& file, const ImportHints& hints,
                       TableState& st) {
  static const std::regex perf_re(R"(\b([a-z_]+)_perf\b)");
  std::smatch m;
  if (std::regex_search(c, m, perf_re)) {
    auto it = perf_names().find(m[1]);
    if (it == perf_names().end())
      throw InputError(file, at_line(ln), "unknown nccl-tests binary", m.str(0),
                       "all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, "
                       "sendrecv_perf or alltoall_perf");
    if (!hints.op.empty() && hints.op != it->second)
      throw InputError(file, at_line(ln), "hint op=" + hints.op + " contradicts the file", m.str(0),
                       "hints that agree with the file");
    st.op = it->second;
  }
  // vgsim's own tables name the collective in their first line (imported only with allow_simulated).
  static const std::regex vgsim_title(R"(^# vgsim collective: ([a-z]+) on )");
  if (st.op.empty() && std::regex_search(c, m, vgsim_title)) st.op = m[1];
  if (auto c2 = parse_column_header(c, ln)) st.cols = c2;
}

// One data row's tokens; every complaint names the file and line.
struct Row {
  const std::string& file;
  int ln;
  const std::string& raw;
  std::vector<std::string> toks;

  [[noreturn]] void bad(const std::string& problem, const std::string& value, const std::string& expected) const {
    throw InputError(file, at_line(ln), problem, value, expected);
  }
  const std::string& tok(int idx) const { return toks[static_cast<std::size_t>(idx)]; }
  std::int64_t integer(int idx, const char* name, std::int64_t min) const {
    const auto v = parse_int_token(tok(idx));
    if (!v || *v < min) bad(std::string("bad ") + name, "'" + tok(idx) + "'", "an integer >= " + std::to_string(min));
    return *v;
  }
};

// The columns shared by the out-of-place and in-place groups of one row.
struct RowShape {
  std::int64_t size = 0, count = 0, root = -1;
  std::string dtype, redop;
};

RowShape shape_of(const Row& row, const Columns& cols, const std::string& op, const FileFacts& facts) {
  const std::int64_t nranks = facts.layout.nranks;
  RowShape r;
  r.size = row.integer(cols.size, "size", 0);
  r.dtype = cols.type >= 0 ? row.tok(cols.type) : facts.default_dtype;
  const std::int64_t tsize = dtype_size_bytes(r.dtype);
  if (tsize == 0) row.bad("unknown data type", "'" + r.dtype + "'", "an nccl-tests type name (float, half, ...)");
  // allgather / reducescatter print the per-rank count of a total-array size; alltoall the count per peer
  // (nccl-tests alltoall.cu: size = count x n x type size; docs/SOURCES.md#nccl-tests table).
  const bool total_size = op == "allgather" || op == "reducescatter" || op == "alltoall";
  if (cols.count >= 0) {
    r.count = row.integer(cols.count, "count", 0);
    const std::int64_t expect = r.count * tsize * (total_size ? nranks : 1);
    if (expect != r.size)
      row.bad("size does not match count x type size" + std::string(total_size ? " x ranks" : ""),
              std::to_string(r.size) + " B",
              std::to_string(expect) + " B (" + std::to_string(r.count) + " x " + std::to_string(tsize) +
                  (total_size ? " x " + std::to_string(nranks) + " ranks" : "") + "); is nranks right?");
  } else {
    r.count = r.size / tsize / (total_size ? nranks : 1);
  }
  if (cols.redop >= 0) {
    r.redop = row.tok(cols.redop);
    static const std::set<std::string> ok{"sum", "prod", "min", "max", "avg", "none"};
    if (!ok.count(r.redop)) row.bad("unknown reduction", "'" + r.redop + "'", "sum, prod, min, max, avg or none");
  } else {
    r.redop = (op == "allreduce" || op == "reducescatter" || op == "reduce") ? "sum" : "none";
  }
  if (cols.root >= 0)
    r.root = row.integer(cols.root, "root", -1);
  else if (op == "broadcast" || op == "reduce")
    r.root = 0;  // nccl-tests default -r 0
  return r;
}

// A printed algbw / busbw checked against the one recomputed from size and time: they must agree within their
// rounding (half a unit of the last printed digit) plus the effect of the time's own rounding (relative rel_t).
// Returns the printed value, or the computed one when the column is absent or N/A.
double checked_bandwidth(const Row& row, int idx, double computed, const char* name, double rel_t, double factor,
                         const std::string& op, std::int64_t nranks) {
  if (idx < 0 || is_missing(row.tok(idx))) return computed;
  const auto printed = parse_double_token(row.tok(idx));
  if (!printed || *printed < 0) row.bad(std::string("bad ") + name, "'" + row.tok(idx) + "'", "a number of GB/s");
  const double tol = half_unit(row.tok(idx)) + computed * rel_t * 1.01 + 1e-9;
  if (std::fabs(*printed - computed) > tol) {
    std::ostringstream e;
    e.precision(6);
    e << computed << " +- " << tol << " (size / time" << (std::string(name) == "busbw" ? " x factor " : "");
    if (std::string(name) == "busbw") e << factor << " for " << op << " on " << nranks << " ranks";
    e << ")";
    row.bad(std::string(name) + " does not match the recomputed value", row.tok(idx), e.str());
  }
  return *printed;
}

// The measurement of one column group (out-of-place, or in-place when g == 1 of two).
CollectiveMeasurement measurement_of_group(const Row& row, const Columns& cols, std::size_t g, const RowShape& shape,
                                           const std::string& op, double factor, const FileFacts& facts) {
  const Group& G = cols.groups[g];
  const std::int64_t nranks = facts.layout.nranks;
  const auto t = parse_double_token(row.tok(G.time));
  if (!t || *t < 0) row.bad("bad time", "'" + row.tok(G.time) + "'", "a non-negative number of microseconds");
  CollectiveMeasurement c;
  c.op = op, c.algo = facts.algo, c.proto = facts.proto, c.size_bytes = shape.size, c.count = shape.count;
  c.dtype = shape.dtype, c.redop = shape.redop, c.root = shape.root, c.nranks = nranks;
  c.nnodes = facts.layout.nnodes, c.gpus_per_node = facts.layout.gpn;
  c.in_place = cols.groups.size() > 1 && g == 1;
  c.time_us = *t;
  c.library = "nccl";
  c.source = facts.source;
  // Recompute algbw = S/t and busbw = algbw x factor.
  const double alg = algbw_GBps(shape.size, *t);
  const double rel_t = *t > 0 ? half_unit(row.tok(G.time)) / *t : 0.0;
  c.algbw_GBps = checked_bandwidth(row, G.algbw, alg, "algbw", rel_t, factor, op, nranks);
  c.busbw_GBps = checked_bandwidth(row, G.busbw, alg * factor, "busbw", rel_t, factor, op, nranks);
  if (G.wrong >= 0 && !is_missing(row.tok(G.wrong))) {
    auto w = parse_int_token(row.tok(G.wrong));
    if (!w) row.bad("bad #wrong", "'" + row.tok(G.wrong) + "'", "an integer or N/A");
    c.wrong = *w;
  }
  if (G.error >= 0 && !is_missing(row.tok(G.error)) && !parse_double_token(row.tok(G.error)))
    row.bad("bad error value", "'" + row.tok(G.error) + "'", "a number such as 0e+00 or N/A");
  return c;
}

// One data row: a measurement per column group with a time.
void read_data_row(const std::string& raw, int ln, const std::string& file, const TableState& st,
                   const FileFacts& facts, std::vector<Measurement>& out) {
  const Row row{file, ln, raw, split_ws(raw)};
  if (!st.cols) row.bad("data row before any column header", raw, "a '#  size ... time algbw busbw' header first");
  if (st.op.empty())
    row.bad("cannot tell which collective this table measures", raw,
            "a '<name>_perf' command in the header or --op OP");
  const Columns& cols = *st.cols;
  if (static_cast<int>(row.toks.size()) != cols.ncols)
    row.bad("wrong number of columns", std::to_string(row.toks.size()) + " in '" + raw + "'",
            std::to_string(cols.ncols) + " as in the header on " + at_line(cols.line));
  const RowShape shape = shape_of(row, cols, st.op, facts);
  const double factor = busbw_factor(st.op, facts.layout.nranks);
  for (std::size_t g = 0; g < cols.groups.size(); ++g) {
    if (cols.groups[g].time < 0) continue;
    out.emplace_back(measurement_of_group(row, cols, g, shape, st.op, factor, facts));
  }
}

}  // namespace

StatedLayout stated_layout(const std::vector<std::string>& header_lines, const std::string& file) {
  std::vector<std::pair<int, std::string>> lines;
  for (std::size_t i = 0; i < header_lines.size(); ++i) lines.emplace_back(static_cast<int>(i + 1), header_lines[i]);
  const Layout L = stated_layout_lines(lines, file);
  return StatedLayout{L.nranks.value, L.nnodes.value, L.gpn.value};
}

std::vector<Measurement> import_nccl_tests_text(const std::string& text, const std::string& file,
                                                const ImportHints& hints) {
  const auto lines = detail::split_lines(text);
  reject_simulated(lines, file, hints);
  const FileFacts facts = file_facts(comments_of(lines), file, hints);
  TableState st;
  st.op = hints.op;
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i + 1);
    const std::string& raw = lines[i];
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (raw[first] == '#')
      read_comment_line(raw.substr(first), ln, file, hints, st);
    else if (!is_nccl_log_line(raw))
      read_data_row(raw, ln, file, st, facts, out);
  }
  if (out.empty()) throw InputError(file, "", "no measurement rows found", "", "an nccl-tests table");
  return out;
}

std::vector<Measurement> import_nccl_tests(const std::string& path, const ImportHints& hints) {
  return import_nccl_tests_text(detail::read_text_file(path, "a readable nccl-tests output file"), path, hints);
}

}  // namespace vgsim::calibrate
