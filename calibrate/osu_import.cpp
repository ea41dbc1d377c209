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
}  // namespace

const std::string& openmpi_allreduce_algorithm(int k) {
  // Open MPI coll/tuned allreduce algorithm ids, as listed in shared/data/README.md.
  static const std::vector<std::string> names{"basic_linear",   "nonoverlapping", "recursive_doubling",
                                              "ring",           "segmented_ring", "rabenseifner"};
  if (k < 1 || k > 6) throw std::out_of_range("Open MPI allreduce algorithm must be 1..6, got " + std::to_string(k));
  return names[static_cast<std::size_t>(k - 1)];
}

std::vector<Measurement> import_osu_text(const std::string& text, const std::string& file, const ImportHints& hints) {
  const std::string base = detail::basename_of(file);
  static const std::regex name_re(R"(^([a-z_]+)-([^-]+)-(\d+)cpu-algo(\d+)-step([^.]+)\.txt$)");
  static const std::regex nodes_re(R"(\bnodes\s*=\s*(\d+))");
  static const std::regex rank_per_node_re(R"(\bone MPI rank per node\b)", std::regex::icase);
  std::smatch m;

  std::string op = hints.op, algo = hints.algo;
  std::int64_t nnodes = 0, nnodes_line = 0;
  if (std::regex_match(base, m, name_re)) {
    const std::string name_op = m[1];
    if (name_op != "allreduce")
      throw InputError(file, "", "unsupported OSU collective in the file name", name_op, "allreduce");
    if (!op.empty() && op != name_op)
      throw InputError(file, "", "hint op=" + op + " contradicts the file name", name_op, "matching hints");
    op = name_op;
    const int k = std::stoi(m[4]);
    if (k < 1 || k > 6)
      throw InputError(file, "", "unknown Open MPI allreduce algorithm in the file name", "algo" + m.str(4), "algo1..algo6");
    const std::string& name_algo = openmpi_allreduce_algorithm(k);
    if (!algo.empty() && algo != name_algo)
      throw InputError(file, "", "hint algo=" + algo + " contradicts the file name", name_algo, "matching hints");
    algo = name_algo;
    nnodes = std::stoll(m[3]);
  }
  if (op.empty())
    throw InputError(file, "", "cannot tell the collective", base,
                     "a file name allreduce-<net>-<N>cpu-algo<k>-step<...>.txt or --op OP");
  if (algo.empty()) algo = "default";

  const auto lines = detail::split_lines(text);
  bool one_per_node = false;
  int size_col = -1, avg_col = -1, ncols = 0;
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i + 1);
    const std::string& raw = lines[i];
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (raw[first] == '#') {
      if (std::regex_search(raw, m, nodes_re)) {
        const auto n = std::stoll(m[1]);
        if (nnodes && n != nnodes)
          throw InputError(file, at_line(ln), "header node count contradicts the file name",
                           "nodes = " + std::to_string(n), std::to_string(nnodes));
        nnodes = n, nnodes_line = ln;
      }
      if (std::regex_search(raw, rank_per_node_re)) one_per_node = true;
      // Column header: "# Size  Avg Latency(us)  Min Latency(us) ..." (column names contain one space each).
      if (raw.find("Size") != std::string::npos && raw.find("Latency(us)") != std::string::npos) {
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
        size_col = avg_col = -1;
        ncols = static_cast<int>(names.size());
        for (int c = 0; c < ncols; ++c) {
          if (names[static_cast<std::size_t>(c)] == "Size") size_col = c;
          if (names[static_cast<std::size_t>(c)] == "Avg Latency(us)" ||
              names[static_cast<std::size_t>(c)] == "Latency (us)")
            avg_col = c;
        }
        if (size_col < 0 || avg_col < 0)
          throw InputError(file, at_line(ln), "OSU header lacks Size or Avg Latency(us)", raw,
                           "'# Size  Avg Latency(us)'");
      }
      continue;
    }
    const auto toks = detail::split_ws(raw);
    if (size_col < 0)
      throw InputError(file, at_line(ln), "data row before the '# Size  Avg Latency(us)' header", raw, "a header first");
    if (static_cast<int>(toks.size()) != ncols)
      throw InputError(file, at_line(ln), "wrong number of columns", std::to_string(toks.size()) + " in '" + raw + "'",
                       std::to_string(ncols));
    const auto size = detail::parse_int_token(toks[static_cast<std::size_t>(size_col)]);
    if (!size || *size < 0)
      throw InputError(file, at_line(ln), "bad size", "'" + toks[static_cast<std::size_t>(size_col)] + "'",
                       "a non-negative integer of bytes");
    const std::string& lat = toks[static_cast<std::size_t>(avg_col)];
    // OSU prints every latency with two decimals ("%.2f"); a value without them is a row cut inside a number
    // (e.g. "504000  84" left of "504000  847.93"), never a measurement.
    const auto dot = lat.find('.');
    if (dot == std::string::npos || lat.size() - dot - 1 != 2)
      throw InputError(file, at_line(ln), "latency not in OSU's two-decimal format (a cut-off row?)", "'" + lat + "'",
                       "a latency printed as OSU does, e.g. 847.93");
    if (i + 1 == lines.size() && !text.empty() && text.back() != '\n')
      throw InputError(file, at_line(ln), "last row has no line end (the file looks cut off)", "'" + raw + "'",
                       "a complete OSU output file");
    const auto t = detail::parse_double_token(lat);
    if (!t || *t <= 0)
      throw InputError(file, at_line(ln), "bad latency", "'" + toks[static_cast<std::size_t>(avg_col)] + "'",
                       "a positive number of microseconds");
    CollectiveMeasurement c;
    c.op = op;
    c.algo = algo;
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
    out.emplace_back(std::move(c));
  }
  if (out.empty()) throw InputError(file, "", "no measurement rows found", "", "an OSU latency table");

  // Ranks and nodes: file name / header, then hints (which must agree).
  if (hints.nnodes > 0) {
    if (nnodes && hints.nnodes != nnodes)
      throw InputError(file, nnodes_line ? at_line(static_cast<int>(nnodes_line)) : "",
                       "hint nnodes=" + std::to_string(hints.nnodes) + " contradicts the file", std::to_string(nnodes),
                       "matching hints");
    nnodes = hints.nnodes;
  }
  std::int64_t per_node = hints.gpus_per_node > 0 ? hints.gpus_per_node : (one_per_node ? 1 : 0);
  if (one_per_node && per_node != 1)
    throw InputError(file, "", "hint gpus_per_node contradicts 'one MPI rank per node'", std::to_string(per_node), "1");
  std::int64_t nranks = hints.nranks;
  if (!per_node && nranks && nnodes && nranks % nnodes == 0) per_node = nranks / nnodes;
  if (!nnodes || !per_node)
    throw InputError(file, "", "node count or ranks per node not stated", base,
                     "a file name with <N>cpu, 'nodes = N, one MPI rank per node' in the header, or hints");
  if (nranks && nranks != nnodes * per_node)
    throw InputError(file, "", "hint nranks contradicts the file", std::to_string(nranks),
                     std::to_string(nnodes * per_node));
  nranks = nnodes * per_node;
  const double factor = busbw_factor(op, nranks);
  for (auto& r : out) {
    auto& c = std::get<CollectiveMeasurement>(r);
    c.nranks = nranks, c.nnodes = nnodes, c.gpus_per_node = per_node;
    c.algbw_GBps = algbw_GBps(c.size_bytes, c.time_us);
    c.busbw_GBps = c.algbw_GBps * factor;
  }
  return out;
}

std::vector<Measurement> import_osu(const std::string& path, const ImportHints& hints) {
  return import_osu_text(detail::read_text_file(path, "a readable OSU benchmark output file"), path, hints);
}

}  // namespace vgsim::calibrate
