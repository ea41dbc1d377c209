// OSU micro-benchmark latency importer (include/vgsim/calibrate/osu_import.hpp). Columns are read from the
// "# Size  Avg Latency(us) [Min Latency(us) Max Latency(us) Iterations]" header; only Size and Avg are kept.
#include "vgsim/calibrate/osu_import.hpp"

#include <regex>
#include <stdexcept>

#include "detail/text_table.hpp"
#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/kernel/input_error.hpp"

namespace vgsim::calibrate {

namespace {

std::string at_line(int n) { return "line " + std::to_string(n); }

// What the file name (allreduce-<net>-<N>cpu-algo<k>-step<...>.txt) and the hints say about the table.
struct NameFacts {
  std::string op, algo;
  std::int64_t nnodes = 0;
};

NameFacts facts_of_name(const std::string& base, const std::string& file, const ImportHints& hints) {
  static const std::regex name_re(R"(^([a-z_]+)-([^-]+)-(\d+)cpu-algo(\d+)-step([^.]+)\.txt$)");
  std::smatch m;
  NameFacts f{hints.op, hints.algo, 0};
  if (std::regex_match(base, m, name_re)) {
    const std::string name_op = m[1];
    if (name_op != "allreduce")
      throw InputError(file, "", "unsupported OSU collective in the file name", name_op, "allreduce");
    if (!f.op.empty() && f.op != name_op)
      throw InputError(file, "", "hint op=" + f.op + " contradicts the file name", name_op, "matching hints");
    f.op = name_op;
    const int k = std::stoi(m[4]);
    if (k < 1 || k > 6)
      throw InputError(file, "", "unknown Open MPI allreduce algorithm in the file name", "algo" + m.str(4),
                       "algo1..algo6");
    const std::string& name_algo = openmpi_allreduce_algorithm(k);
    if (!f.algo.empty() && f.algo != name_algo)
      throw InputError(file, "", "hint algo=" + f.algo + " contradicts the file name", name_algo, "matching hints");
    f.algo = name_algo;
    f.nnodes = std::stoll(m[3]);
  }
  if (f.op.empty())
    throw InputError(file, "", "cannot tell the collective", base,
                     "a file name allreduce-<net>-<N>cpu-algo<k>-step<...>.txt or --op OP");
  if (f.algo.empty()) f.algo = "default";
  return f;
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

// What the comment lines said so far: the node count (and its line), one rank per node, the columns.
struct HeaderState {
  std::int64_t nnodes = 0, nnodes_line = 0;
  bool one_per_node = false;
  Columns cols;
};

void read_comment_line(const std::string& raw, std::size_t first, int ln, const std::string& file, HeaderState& st) {
  static const std::regex nodes_re(R"(\bnodes\s*=\s*(\d+))");
  static const std::regex rank_per_node_re(R"(\bone MPI rank per node\b)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(raw, m, nodes_re)) {
    const auto n = std::stoll(m[1]);
    if (st.nnodes && n != st.nnodes)
      throw InputError(file, at_line(ln), "header node count contradicts the file name", "nodes = " + std::to_string(n),
                       std::to_string(st.nnodes));
    st.nnodes = n, st.nnodes_line = ln;
  }
  if (std::regex_search(raw, rank_per_node_re)) st.one_per_node = true;
  if (raw.find("Size") != std::string::npos && raw.find("Latency(us)") != std::string::npos)
    st.cols = parse_column_header(raw, first, ln, file);
}

// One data row as a measurement without its layout (filled in once the whole file is read).
CollectiveMeasurement parse_data_row(const std::string& raw, int ln, bool last_line, const std::string& text,
                                     const Columns& cols, const NameFacts& name, const std::string& file,
                                     const std::string& base, const ImportHints& hints) {
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
    throw InputError(file, at_line(ln), "bad latency", "'" + toks[static_cast<std::size_t>(cols.avg)] + "'",
                     "a positive number of microseconds");
  CollectiveMeasurement c;
  c.op = name.op;
  c.algo = name.algo;
  c.proto = hints.proto.empty() ? "default" : hints.proto;
  c.size_bytes = *size;
  c.dtype = hints.dtype.empty() ? "float" : hints.dtype;  // OSU 5.x allreduce: float buffers, MPI_SUM
  const auto tsize = dtype_size_bytes(c.dtype);
  if (tsize == 0) throw InputError(file, "", "unknown dtype hint", c.dtype, "float, double, ...");
  c.count = *size / tsize;
  c.redop = "sum";
  c.time_us = *t;
  c.library = "openmpi";
  c.source = hints.source.empty() ? base : hints.source;
  return c;
}

// Ranks and nodes: file name / header, then hints (which must agree).
struct RankLayout {
  std::int64_t nranks = 0, nnodes = 0, per_node = 0;
};

RankLayout resolve_layout(const HeaderState& st, const std::string& file, const std::string& base,
                          const ImportHints& hints) {
  std::int64_t nnodes = st.nnodes;
  if (hints.nnodes > 0) {
    if (nnodes && hints.nnodes != nnodes)
      throw InputError(file, st.nnodes_line ? at_line(static_cast<int>(st.nnodes_line)) : "",
                       "hint nnodes=" + std::to_string(hints.nnodes) + " contradicts the file", std::to_string(nnodes),
                       "matching hints");
    nnodes = hints.nnodes;
  }
  std::int64_t per_node = hints.gpus_per_node > 0 ? hints.gpus_per_node : (st.one_per_node ? 1 : 0);
  if (st.one_per_node && per_node != 1)
    throw InputError(file, "", "hint gpus_per_node contradicts 'one MPI rank per node'", std::to_string(per_node), "1");
  std::int64_t nranks = hints.nranks;
  if (!per_node && nranks && nnodes && nranks % nnodes == 0) per_node = nranks / nnodes;
  if (!nnodes || !per_node)
    throw InputError(file, "", "node count or ranks per node not stated", base,
                     "a file name with <N>cpu, 'nodes = N, one MPI rank per node' in the header, or hints");
  if (nranks && nranks != nnodes * per_node)
    throw InputError(file, "", "hint nranks contradicts the file", std::to_string(nranks),
                     std::to_string(nnodes * per_node));
  return RankLayout{nnodes * per_node, nnodes, per_node};
}

}  // namespace

const std::string& openmpi_allreduce_algorithm(int k) {
  // Open MPI coll/tuned allreduce algorithm ids, as listed in shared/data/README.md.
  static const std::vector<std::string> names{"basic_linear", "nonoverlapping", "recursive_doubling",
                                              "ring",         "segmented_ring", "rabenseifner"};
  if (k < 1 || k > 6) throw std::out_of_range("Open MPI allreduce algorithm must be 1..6, got " + std::to_string(k));
  return names[static_cast<std::size_t>(k - 1)];
}

std::vector<Measurement> import_osu_text(const std::string& text, const std::string& file, const ImportHints& hints) {
  const std::string base = detail::basename_of(file);
  const NameFacts name = facts_of_name(base, file, hints);
  HeaderState st;
  st.nnodes = name.nnodes;
  const auto lines = detail::split_lines(text);
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i + 1);
    const std::string& raw = lines[i];
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (raw[first] == '#')
      read_comment_line(raw, first, ln, file, st);
    else
      out.emplace_back(parse_data_row(raw, ln, i + 1 == lines.size(), text, st.cols, name, file, base, hints));
  }
  if (out.empty()) throw InputError(file, "", "no measurement rows found", "", "an OSU latency table");

  const RankLayout lay = resolve_layout(st, file, base, hints);
  const double factor = busbw_factor(name.op, lay.nranks);
  for (auto& r : out) {
    auto& c = std::get<CollectiveMeasurement>(r);
    c.nranks = lay.nranks, c.nnodes = lay.nnodes, c.gpus_per_node = lay.per_node;
    c.algbw_GBps = algbw_GBps(c.size_bytes, c.time_us);
    c.busbw_GBps = c.algbw_GBps * factor;
  }
  return out;
}

std::vector<Measurement> import_osu(const std::string& path, const ImportHints& hints) {
  return import_osu_text(detail::read_text_file(path, "a readable OSU benchmark output file"), path, hints);
}

}  // namespace vgsim::calibrate
