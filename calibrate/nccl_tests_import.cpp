// nccl-tests text importer (include/vgsim/calibrate/nccl_tests_import.hpp). Column layout is read from each table's
// "#  size count type ..." header line, so old (error, no root), new (root, #wrong) and trimmed tables all parse.
// Format reference: shared/reference/nccl-model.md section 2 (nccl-tests src/util.cu writeResultHeader).
#include "vgsim/calibrate/nccl_tests_import.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

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
};

Layout stated_layout_lines(const std::vector<std::pair<int, std::string>>& lines, const std::string& file) {
  static const std::regex rank_line(R"(^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device)");
  static const std::regex name_nxm(R"((?:^|[_-])(\d+)x(\d+)x)");
  static const std::regex n_ranks(R"((\d+)\s+ranks\b)", std::regex::icase);
  // "2 nodes x 8 GPUs", vgsim's own "2 node(s) x 4 GPU(s)", "8 nodes x 4 A100" (any device word after the count)
  static const std::regex nodes_x_gpus(R"((\d+)\s+nodes?(?:\(s\))?\s*x\s*(\d+)\s*(?:GPUs?(?:\(s\))?|[A-Za-z][\w-]*)?)", std::regex::icase);
  static const std::regex single_node(R"(\bsingle\s+node\b)", std::regex::icase);
  static const std::regex single_process(R"(\bsingle\s+process\b)", std::regex::icase);
  static const std::regex g_flag(R"((?:^|\s)-g\s*(\d+)\b)");
  static const std::regex t_flag(R"((?:^|\s)-t\s*(\d+)\b)");
  static const std::regex launcher(R"(\b(mpirun|mpiexec|srun)\s)");
  static const std::regex np_flag(R"((?:^|\s)(?:-np|-n|--ntasks)[\s=]+(\d+)\b)");
  static const std::regex npernode_flag(R"((?:^|\s)(?:-npernode|--npernode|-N|--ntasks-per-node)[\s=]+(\d+)\b)");

  Layout L;
  const std::string base = detail::basename_of(file);
  std::smatch m;
  if (std::regex_search(base, m, name_nxm)) {
    const auto nodes = std::stoll(m[1]), gpn = std::stoll(m[2]);
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
    if (std::regex_search(text, m, nodes_x_gpus)) {
      const auto nodes = std::stoll(m[1]), gpn = std::stoll(m[2]);
      L.nnodes.set(nodes, ln, "'" + m.str(0) + "'", file, "node count");
      L.gpn.set(gpn, ln, "'" + m.str(0) + "'", file, "GPUs per node");
      L.nranks.set(nodes * gpn, ln, "'" + m.str(0) + "'", file, "rank count");
    }
    if (std::regex_search(text, m, n_ranks)) L.nranks.set(std::stoll(m[1]), ln, "'" + m.str(0) + "'", file, "rank count");
    if (std::regex_search(text, single_node)) L.nnodes.set(1, ln, "'single node'", file, "node count");
    const auto perf = text.find("_perf");
    std::int64_t g = 1, t = 1;
    if (perf != std::string::npos) {
      const std::string args = text.substr(perf);
      if (std::regex_search(args, m, g_flag)) g = std::stoll(m[1]);
      if (std::regex_search(args, m, t_flag)) t = std::stoll(m[1]);
    }
    if (std::regex_search(text, single_process) && std::regex_search(text, m, g_flag)) {
      const auto gg = std::stoll(m[1]);
      L.nranks.set(gg * t, ln, "'single process ... -g " + std::to_string(gg) + "'", file, "rank count");
      L.nnodes.set(1, ln, "'single process'", file, "node count");
    }
    if (perf != std::string::npos && std::regex_search(text, m, launcher) &&
        static_cast<std::size_t>(m.position(0)) < perf) {
      const std::string launch = text.substr(static_cast<std::size_t>(m.position(0)), perf - m.position(0));
      std::smatch a;
      if (std::regex_search(launch, a, np_flag)) {
        const auto procs = std::stoll(a[1]);
        L.nranks.set(procs * t * g, ln, "the launch command", file, "rank count");
        std::smatch b;
        if (std::regex_search(launch, b, npernode_flag)) {
          const auto per = std::stoll(b[1]);
          if (per > 0 && procs % per == 0) {
            L.nnodes.set(procs / per, ln, "the launch command", file, "node count");
            L.gpn.set(per * t * g, ln, "the launch command", file, "GPUs per node");
          }
        }
      }
    }
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
    if (t == "size") c.size = i;
    else if (t == "count") c.count = i;
    else if (t == "type") c.type = i;
    else if (t == "redop") c.redop = i;
    else if (t == "root") c.root = i;
    else if (t == "time") c.groups.push_back(Group{i});
    else if (!c.groups.empty() && t == "algbw") c.groups.back().algbw = i;
    else if (!c.groups.empty() && t == "busbw") c.groups.back().busbw = i;
    else if (!c.groups.empty() && t == "#wrong") c.groups.back().wrong = i;
    else if (!c.groups.empty() && t == "error") c.groups.back().error = i;
  }
  return c;
}

bool is_missing(const std::string& tok) { return tok == "N/A" || tok == "(cut)" || tok == "-"; }

bool is_nccl_log_line(const std::string& text) {
  return text.find(" NCCL INFO ") != std::string::npos || text.find(" NCCL WARN ") != std::string::npos;
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
  for (std::size_t i = 0; i < lines.size() && i < 8 && !hints.allow_simulated; ++i)
    if (lines[i].rfind("# vgsim collective:", 0) == 0)
      throw InputError(file, "line " + std::to_string(i + 1), "this table was simulated by vgsim, not measured",
                       "'" + lines[i].substr(0, 80) + "'", "a measured nccl-tests log (or --allow-simulated)");
  std::vector<std::pair<int, std::string>> comments;
  std::string all_comments;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto first = lines[i].find_first_not_of(" \t");
    if (first != std::string::npos && lines[i][first] == '#') {
      comments.emplace_back(static_cast<int>(i + 1), lines[i].substr(first));
      all_comments += lines[i] + "\n";
    }
  }

  // Ranks and nodes: the file's statements, then the caller's hints (which must agree).
  Layout L = stated_layout_lines(comments, file);
  auto apply_hint = [&](Stated& s, std::int64_t hint, const std::string& name) {
    if (hint <= 0) return;
    if (s.value != 0 && s.value != hint)
      throw InputError(file, s.line > 0 ? at_line(s.line) : "", name + " " + std::to_string(hint) +
                       " contradicts the file", std::to_string(s.value) + " (stated by " + s.what + ")",
                       "hints that agree with the file, or none");
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
    throw InputError(file, "", "the number of nodes is not stated in the header", "",
                     "a header saying it (e.g. 'single node', '-npernode 8') or --nodes N");
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

  // Algorithm / protocol forced in the environment.
  static const std::regex algo_env(R"(NCCL_ALGO=([A-Za-z0-9_]+))"), proto_env(R"(NCCL_PROTO=([A-Za-z0-9_]+))");
  std::smatch m;
  std::string algo = hints.algo, proto = hints.proto;
  if (algo.empty()) algo = std::regex_search(all_comments, m, algo_env) ? to_lower(m[1]) : "default";
  if (proto.empty()) proto = std::regex_search(all_comments, m, proto_env) ? to_lower(m[1]) : "default";
  if (proto != "ll" && proto != "ll128" && proto != "simple" && proto != "default")
    throw InputError(file, "", "unknown NCCL protocol", proto, "ll, ll128, simple or default");

  const std::string source = hints.source.empty() ? detail::basename_of(file) : hints.source;
  const std::string default_dtype = hints.dtype.empty() ? "float" : hints.dtype;
  if (dtype_size_bytes(default_dtype) == 0)
    throw InputError(file, "", "unknown dtype hint", default_dtype, "an nccl-tests type name such as float");

  static const std::regex perf_re(R"(\b([a-z_]+)_perf\b)");
  std::string op = hints.op;
  std::optional<Columns> cols;
  std::vector<Measurement> out;

  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i + 1);
    const std::string& raw = lines[i];
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (raw[first] == '#') {
      const std::string c = raw.substr(first);
      if (std::regex_search(c, m, perf_re)) {
        auto it = perf_names().find(m[1]);
        if (it == perf_names().end())
          throw InputError(file, at_line(ln), "unknown nccl-tests binary", m.str(0),
                           "all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, "
                           "sendrecv_perf or alltoall_perf");
        if (!hints.op.empty() && hints.op != it->second)
          throw InputError(file, at_line(ln), "hint op=" + hints.op + " contradicts the file", m.str(0),
                           "hints that agree with the file");
        op = it->second;
      }
      // vgsim's own tables name the collective in their first line (imported only with allow_simulated).
      static const std::regex vgsim_title(R"(^# vgsim collective: ([a-z]+) on )");
      if (op.empty() && std::regex_search(c, m, vgsim_title)) op = m[1];
      if (auto c2 = parse_column_header(c, ln)) cols = c2;
      continue;
    }
    if (is_nccl_log_line(raw)) continue;

    const auto toks = split_ws(raw);
    auto bad = [&](const std::string& problem, const std::string& value, const std::string& expected) {
      throw InputError(file, at_line(ln), problem, value, expected);
    };
    if (!cols) bad("data row before any column header", raw, "a '#  size ... time algbw busbw' header first");
    if (op.empty()) bad("cannot tell which collective this table measures", raw,
                        "a '<name>_perf' command in the header or --op OP");
    if (static_cast<int>(toks.size()) != cols->ncols)
      bad("wrong number of columns", std::to_string(toks.size()) + " in '" + raw + "'",
          std::to_string(cols->ncols) + " as in the header on " + at_line(cols->line));
    auto tok = [&](int idx) -> const std::string& { return toks[static_cast<std::size_t>(idx)]; };
    auto integer = [&](int idx, const char* name, std::int64_t min) {
      const auto v = parse_int_token(tok(idx));
      if (!v || *v < min)
        bad(std::string("bad ") + name, "'" + tok(idx) + "'", "an integer >= " + std::to_string(min));
      return *v;
    };

    const std::int64_t size = integer(cols->size, "size", 0);
    const std::string dtype = cols->type >= 0 ? tok(cols->type) : default_dtype;
    const std::int64_t tsize = dtype_size_bytes(dtype);
    if (tsize == 0) bad("unknown data type", "'" + dtype + "'", "an nccl-tests type name (float, half, ...)");
    // allgather / reducescatter print the per-rank count of a total-array size; alltoall the count per peer
    // (nccl-tests alltoall.cu: size = count x n x type size; nccl-model.md section 2 table).
    const bool total_size = op == "allgather" || op == "reducescatter" || op == "alltoall";
    std::int64_t count = 0;
    if (cols->count >= 0) {
      count = integer(cols->count, "count", 0);
      const std::int64_t expect = count * tsize * (total_size ? nranks : 1);
      if (expect != size)
        bad("size does not match count x type size" + std::string(total_size ? " x ranks" : ""),
            std::to_string(size) + " B",
            std::to_string(expect) + " B (" + std::to_string(count) + " x " + std::to_string(tsize) +
                (total_size ? " x " + std::to_string(nranks) + " ranks" : "") + "); is nranks right?");
    } else {
      count = size / tsize / (total_size ? nranks : 1);
    }
    std::string redop;
    if (cols->redop >= 0) {
      redop = tok(cols->redop);
      static const std::set<std::string> ok{"sum", "prod", "min", "max", "avg", "none"};
      if (!ok.count(redop)) bad("unknown reduction", "'" + redop + "'", "sum, prod, min, max, avg or none");
    } else {
      redop = (op == "allreduce" || op == "reducescatter" || op == "reduce") ? "sum" : "none";
    }
    std::int64_t root = -1;
    if (cols->root >= 0) root = integer(cols->root, "root", -1);
    else if (op == "broadcast" || op == "reduce") root = 0;  // nccl-tests default -r 0

    const double factor = busbw_factor(op, nranks);
    for (std::size_t g = 0; g < cols->groups.size(); ++g) {
      const Group& G = cols->groups[g];
      if (G.time < 0) continue;
      const auto t = parse_double_token(tok(G.time));
      if (!t || *t < 0) bad("bad time", "'" + tok(G.time) + "'", "a non-negative number of microseconds");
      CollectiveMeasurement c;
      c.op = op, c.algo = algo, c.proto = proto, c.size_bytes = size, c.count = count, c.dtype = dtype;
      c.redop = redop, c.root = root, c.nranks = nranks, c.nnodes = nnodes, c.gpus_per_node = gpn;
      c.in_place = cols->groups.size() > 1 && g == 1;
      c.time_us = *t;
      c.library = "nccl";
      c.source = source;
      // Recompute algbw = S/t and busbw = algbw x factor; the printed values must agree within their rounding
      // (half a unit of the last printed digit) plus the effect of the time's own rounding (relative h_t / t).
      const double alg = algbw_GBps(size, *t);
      const double rel_t = *t > 0 ? half_unit(tok(G.time)) / *t : 0.0;
      auto check = [&](int idx, double computed, const char* name) -> double {
        if (idx < 0 || is_missing(tok(idx))) return computed;
        const auto printed = parse_double_token(tok(idx));
        if (!printed || *printed < 0) bad(std::string("bad ") + name, "'" + tok(idx) + "'", "a number of GB/s");
        const double tol = half_unit(tok(idx)) + computed * rel_t * 1.01 + 1e-9;
        if (std::fabs(*printed - computed) > tol) {
          std::ostringstream e;
          e.precision(6);
          e << computed << " +- " << tol << " (size / time" << (std::string(name) == "busbw" ? " x factor " : "");
          if (std::string(name) == "busbw") e << factor << " for " << op << " on " << nranks << " ranks";
          e << ")";
          bad(std::string(name) + " does not match the recomputed value", tok(idx), e.str());
        }
        return *printed;
      };
      c.algbw_GBps = check(G.algbw, alg, "algbw");
      c.busbw_GBps = check(G.busbw, alg * factor, "busbw");
      if (G.wrong >= 0 && !is_missing(tok(G.wrong))) {
        auto w = parse_int_token(tok(G.wrong));
        if (!w) bad("bad #wrong", "'" + tok(G.wrong) + "'", "an integer or N/A");
        c.wrong = *w;
      }
      if (G.error >= 0 && !is_missing(tok(G.error)) && !parse_double_token(tok(G.error)))
        bad("bad error value", "'" + tok(G.error) + "'", "a number such as 0e+00 or N/A");
      out.emplace_back(std::move(c));
    }
  }
  if (out.empty()) throw InputError(file, "", "no measurement rows found", "", "an nccl-tests table");
  return out;
}

std::vector<Measurement> import_nccl_tests(const std::string& path, const ImportHints& hints) {
  return import_nccl_tests_text(detail::read_text_file(path, "a readable nccl-tests output file"), path, hints);
}

}  // namespace vgsim::calibrate
