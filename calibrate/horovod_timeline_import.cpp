// Horovod timeline importer (see include/vgsim/calibrate/horovod_timeline_import.hpp).
#include "vgsim/calibrate/horovod_timeline_import.hpp"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "vgsim/calibrate/bus_bandwidth.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace vgsim::calibrate {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in = open_input(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file", "", "a readable Horovod timeline (HOROVOD_TIMELINE)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Parses the array; a file cut off after a record (trailing ",\n", no ']') is closed first.
Json parse_timeline(const std::string& path) {
  std::string text = read_all(path);
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end != std::string::npos && text[end] == ',') text.erase(end);
  end = text.find_last_not_of(" \t\r\n");
  if (end != std::string::npos && text[end] != ']') text += "]";
  return parse_json_text(text, path);
}

// Bytes per element and the nccl-tests type name of a TensorFlow / PyTorch dtype string.
std::pair<std::int64_t, std::string> dtype_of(const std::string& d, const std::string& path, const std::string& where) {
  static const std::map<std::string, std::pair<std::int64_t, std::string>> k = {
      {"float32", {4, "float"}},     {"float", {4, "float"}},    {"float16", {2, "half"}},  {"half", {2, "half"}},
      {"bfloat16", {2, "bfloat16"}}, {"float64", {8, "double"}}, {"double", {8, "double"}}, {"int32", {4, "int32"}},
      {"int64", {8, "int64"}},       {"uint8", {1, "uint8"}},    {"int8", {1, "int8"}}};
  for (const auto& [name, v] : k)
    if (d == name || d == "torch." + name || d == "<dtype: '" + name + "'>") return v;
  throw InputError(path, where + ".args.dtype", "unknown tensor dtype", "'" + d + "'",
                   "float32, float16, bfloat16, float64, int32, int64, int8 or uint8");
}

std::int64_t elements(const std::string& shape, const std::string& path, const std::string& where) {
  // "[64, 3, 7, 7]" (TF) or "(64, 3, 7, 7)" / "torch.Size([64, 3])" (PyTorch); "[]" is a scalar.
  std::int64_t n = 1;
  std::string num;
  bool any = false;
  for (char c : shape + ",") {
    if (c >= '0' && c <= '9') {
      num += c;
      if (num.size() > 12)
        throw InputError(path, where + ".args.shape", "tensor dimension too large", "'" + shape.substr(0, 40) + "'",
                         "dimensions below 10^12");
    } else if (!num.empty()) {
      if (__builtin_mul_overflow(n, std::stoll(num), &n) || n > (std::int64_t{1} << 50))
        throw InputError(path, where + ".args.shape", "tensor too large", "'" + shape.substr(0, 40) + "'",
                         "fewer than 2^50 elements");
      num.clear();
      any = true;
    } else if (!(c == ' ' || c == ',' || c == '[' || c == ']' || c == '(' || c == ')' ||
                 std::isalpha(static_cast<unsigned char>(c)) || c == '.')) {
      throw InputError(path, where + ".args.shape", "not a tensor shape", "'" + shape + "'", "e.g. \"[64, 3, 7, 7]\"");
    }
  }
  return any ? n : 1;
}

// An activity begun on one pid and not yet ended.
struct Open {
  std::string name;
  double ts;
  std::vector<std::pair<double, double>> nccl;  // NCCL_ALLREDUCE intervals inside this ALLREDUCE
};

// The tensors one NCCL_ALLREDUCE interval reduced (Horovod fuses several into one response).
struct Fused {
  std::int64_t bytes = 0, element = 0;
  std::string dtype;
};

// What the events said so far.
struct TimelineScan {
  std::map<std::int64_t, std::vector<Open>> stacks;  // per pid (tensor)
  std::set<std::string> ranks;
  std::set<std::int64_t> tensors;
  std::map<std::pair<double, double>, Fused> fused;  // NCCL_ALLREDUCE interval -> the tensors it reduced
  std::map<std::string, double> phase;
  std::vector<std::string> phase_order;
  std::size_t allreduces = 0;
};

// An ALLREDUCE ended: the tensor it reduced joins every NCCL_ALLREDUCE interval it ran in.
void end_allreduce(const Open& o, const Json& e, const std::string& path, const std::string& where,
                   TimelineScan& scan) {
  ++scan.allreduces;
  if (o.nccl.empty()) return;  // not run through NCCL (e.g. MPI allreduce): nothing to import
  const Json* args = e.contains("args") ? &e["args"] : nullptr;
  if (!args || !args->is_object() || !args->contains("dtype") || !args->contains("shape") ||
      !(*args)["dtype"].is_string() || !(*args)["shape"].is_string())
    throw InputError(path, where + ".args", "ALLREDUCE end without dtype and shape", json_snippet(e),
                     "{\"dtype\": \"float32\", \"shape\": \"[64, 3, 7, 7]\"}");
  const auto [size, dtype] = dtype_of((*args)["dtype"], path, where);
  const std::int64_t bytes = size * elements((*args)["shape"], path, where);
  for (const auto& iv : o.nccl) {
    Fused& f = scan.fused[iv];
    if (!f.dtype.empty() && f.dtype != dtype)
      throw InputError(path, where + ".args.dtype", "tensors of different dtypes share one NCCL_ALLREDUCE",
                       "'" + dtype + "' and '" + f.dtype + "'", "one dtype per fused response");
    f.bytes += bytes;
    f.element = size;
    f.dtype = dtype;
  }
}

// An "E" event: closes the pid's innermost activity and adds its duration to the phase totals.
void end_activity(std::vector<Open>& st, const Json& e, double ts, const std::string& path, const std::string& where,
                  TimelineScan& scan) {
  if (st.empty())
    throw InputError(path, where, "end event without a matching begin", json_snippet(e), "B before E per pid");
  Open o = std::move(st.back());
  st.pop_back();
  if (!scan.phase.count(o.name)) scan.phase_order.push_back(o.name);
  scan.phase[o.name] += ts - o.ts;
  if (o.name == "NCCL_ALLREDUCE") {
    if (st.empty() || st.back().name != "ALLREDUCE")
      throw InputError(path, where, "NCCL_ALLREDUCE outside an ALLREDUCE activity", json_snippet(e),
                       "NCCL_ALLREDUCE nested in ALLREDUCE (Horovod timeline)");
    st.back().nccl.emplace_back(o.ts, ts);
  } else if (o.name == "ALLREDUCE") {
    end_allreduce(o, e, path, where, scan);
  }
}

void scan_event(const Json& e, const std::string& path, const std::string& where, TimelineScan& scan) {
  if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string())
    throw InputError(path, where, "not a trace event", json_snippet(e), "an object with \"ph\"");
  const std::string ph = e["ph"];
  if (ph == "M" || ph == "i" || ph == "I") return;
  if (!e.contains("pid") || !e["pid"].is_number_integer() || !e.contains("ts") || !e["ts"].is_number())
    throw InputError(path, where, "event without an integer pid and a numeric ts", json_snippet(e),
                     "{\"ph\": \"B\", \"name\": ..., \"ts\": <us>, \"pid\": <tensor index>}");
  const std::int64_t pid = e["pid"];
  const double ts = e["ts"];
  auto& st = scan.stacks[pid];
  if (ph == "X") {  // a rank's NEGOTIATE tick, named by the rank number
    if (e.contains("name") && e["name"].is_string() && !st.empty() && st.back().name.rfind("NEGOTIATE_", 0) == 0)
      scan.ranks.insert(e["name"].get<std::string>());
    return;
  }
  if (ph == "B") {
    if (!e.contains("name") || !e["name"].is_string())
      throw InputError(path, where + ".name", "begin event without a name", json_snippet(e), "an activity name");
    st.push_back({e["name"].get<std::string>(), ts, {}});
    scan.tensors.insert(pid);
    return;
  }
  if (ph == "E") end_activity(st, e, ts, path, where, scan);
}

// Ranks from the NEGOTIATE ticks or --nranks; nodes x GPUs per node from the hints.
struct RankLayout {
  std::int64_t nranks = 0, nnodes = 0, gpn = 0;
};

RankLayout resolve_layout(const std::set<std::string>& ranks, const ImportHints& h, const std::string& path) {
  std::int64_t nranks = h.nranks > 0 ? h.nranks : static_cast<std::int64_t>(ranks.size());
  if (nranks <= 0) throw InputError(path, "--nranks", "the timeline has no NEGOTIATE rank ticks", "", "--nranks N");
  if (h.nranks > 0 && !ranks.empty() && static_cast<std::int64_t>(ranks.size()) != h.nranks)
    throw InputError(path, "--nranks", "rank count contradicts the timeline's NEGOTIATE ticks",
                     std::to_string(h.nranks), std::to_string(ranks.size()) + " ranks");
  std::int64_t nnodes = h.nnodes, gpn = h.gpus_per_node;
  if (nnodes <= 0 && gpn > 0 && nranks % gpn == 0) nnodes = nranks / gpn;
  if (gpn <= 0 && nnodes > 0 && nranks % nnodes == 0) gpn = nranks / nnodes;
  if (nnodes <= 0 || gpn <= 0 || nnodes * gpn != nranks)
    throw InputError(path, "--nodes", "the timeline does not say how ranks sit on nodes",
                     std::to_string(nranks) + " ranks", "--nodes N or --gpus-per-node G with N x G = ranks");
  return RankLayout{nranks, nnodes, gpn};
}

// One allreduce record per fused NCCL_ALLREDUCE interval of non-zero length.
std::vector<Measurement> measurements_of(const std::map<std::pair<double, double>, Fused>& fused, const RankLayout& lay,
                                         const std::string& source) {
  std::vector<Measurement> out;
  for (const auto& [iv, f] : fused) {
    CollectiveMeasurement m;
    m.op = "allreduce";
    m.algo = "default";
    m.proto = "default";
    m.size_bytes = f.bytes;
    m.dtype = f.dtype;
    m.count = f.bytes / f.element;
    m.redop = "sum";
    m.nranks = lay.nranks;
    m.nnodes = lay.nnodes;
    m.gpus_per_node = lay.gpn;
    m.time_us = iv.second - iv.first;
    if (!(m.time_us > 0)) continue;  // zero-length activity: nothing measured
    m.algbw_GBps = algbw_GBps(m.size_bytes, m.time_us);
    m.busbw_GBps = m.algbw_GBps * busbw_factor(m.op, m.nranks);
    m.library = "nccl";
    m.source = source;
    out.push_back(m);
  }
  return out;
}

}  // namespace

bool looks_like_horovod_timeline(const std::string& path) {
  std::ifstream in = open_input(path);
  if (!in) return false;
  char head[4096] = {};
  in.read(head, sizeof head - 1);
  const std::string s(head);
  const auto first = s.find_first_not_of(" \t\r\n");
  return first != std::string::npos && s[first] == '[' &&
         (s.find("NEGOTIATE_") != std::string::npos || s.find("NCCL_ALLREDUCE") != std::string::npos ||
          s.find("process_name") != std::string::npos);
}

std::vector<Measurement> import_horovod_timeline(const std::string& path, const ImportHints& h,
                                                 HorovodPhaseTotals* totals) {
  const Json j = parse_timeline(path);
  if (!j.is_array()) throw InputError(path, "$", "not a Chrome trace array", json_snippet(j), "[{...}, ...]");
  TimelineScan scan;
  for (std::size_t i = 0; i < j.size(); ++i) scan_event(j[i], path, "$[" + std::to_string(i) + "]", scan);
  const RankLayout lay = resolve_layout(scan.ranks, h, path);
  const std::string source = h.source.empty() ? path.substr(path.find_last_of('/') + 1) : h.source;
  std::vector<Measurement> out = measurements_of(scan.fused, lay, source);
  if (totals) {
    totals->tensors = scan.tensors.size();
    totals->allreduces = scan.allreduces;
    for (const auto& n : scan.phase_order) totals->phase_us.emplace_back(n, scan.phase[n]);
  }
  if (out.empty())
    throw InputError(path, "$", "no NCCL_ALLREDUCE activity with a size", std::to_string(j.size()) + " events",
                     "a Horovod timeline of a GPU (NCCL) run");
  return out;
}

}  // namespace vgsim::calibrate
