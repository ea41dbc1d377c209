// Calibration profile: JSON round trip, residual lookup, application to CommOptions
// (include/vgsim/calibrate/calibration_profile.hpp, calibrate/SCHEMA.md). Doubles are written in shortest round-trip
// form, maps in key order, so dump(read(dump(p))) == dump(p).
#include "vgsim/calibrate/calibration_profile.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>

#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace vgsim::calibrate {

using OJson = nlohmann::ordered_json;

double ResidualSegment::at(std::int64_t size) const {
  if (slope == 0.0 || anchor_bytes <= 0 || last_bytes <= anchor_bytes) return factor;
  const double s = double(std::clamp(size, anchor_bytes, last_bytes));
  return factor * std::pow(s / double(anchor_bytes), slope);
}

double ResidualFactors::factor(std::int64_t size) const {
  for (const GapPoints& g : gaps) {
    if (size <= g.from_bytes || size >= g.to_bytes) continue;
    std::int64_t lo = g.from_bytes, hi = g.to_bytes;
    double from = 0, to = 0;
    for (const auto& [at, f] : g.points) {  // the knots around `size`
      if (at <= size) lo = at, from = f;
      if (at > size) {
        hi = at, to = f;
        break;
      }
    }
    if (lo == g.from_bytes) from = segment_factor(lo);
    if (hi == g.to_bytes) to = segment_factor(hi);
    if (size == lo) return from;
    const double w = std::log(double(size) / double(lo)) / std::log(double(hi) / double(lo));
    return std::exp(std::log(from) + w * (std::log(to) - std::log(from)));
  }
  return segment_factor(size);
}

double ResidualFactors::segment_factor(std::int64_t size) const {
  if (segments.empty()) return 1.0;
  std::size_t k = 0;
  while (k + 1 < segments.size() && segments[k + 1].start_bytes <= size) ++k;
  // Between the previous segment's last measured size and the next segment's start: log-log interpolation.
  if (k + 1 < segments.size()) {
    const ResidualSegment& n = segments[k + 1];
    if (n.ramp_from_bytes > 0 && size > n.ramp_from_bytes && n.ramp_from_bytes < n.start_bytes) {
      const double w = std::log(double(size) / double(n.ramp_from_bytes)) /
                       std::log(double(n.start_bytes) / double(n.ramp_from_bytes));
      const double from = std::log(segments[k].at(n.ramp_from_bytes)), to = std::log(n.at(n.start_bytes));
      return std::exp(from + w * (to - from));
    }
  }
  return segments[k].at(size);
}

const PlanSegment& PlanChoice::at(std::int64_t size) const {
  std::size_t k = 0;
  while (k + 1 < segments.size() && segments[k + 1].start_bytes <= size) ++k;
  return segments[k];
}

const PlanSegment* CalibrationProfile::plan_for(const std::string& op, std::int64_t nnodes, std::int64_t gpn,
                                                std::int64_t size) const {
  for (const auto& c : plans)
    if (c.op == op && c.nnodes == nnodes && c.gpus_per_node == gpn && c.covers(size)) return &c.at(size);
  return nullptr;
}

namespace {
std::string join_counts(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}
}  // namespace

std::vector<std::string> transport_parts(const std::string& t) {
  std::vector<std::string> out;
  for (std::size_t p = 0; p <= t.size();) {
    const std::size_t q = std::min(t.find("; ", p), t.size());
    const std::string part = t.substr(p, q - p);
    if (!part.empty()) out.push_back(part.substr(0, part.find(", bottleneck")));
    p = q + 2;
  }
  return out;
}

std::vector<std::string> coverage_warnings(const CalibrationProfile& p, const std::string& cluster, std::int64_t nodes,
                                           std::int64_t gpn, const std::string& transports) {
  std::vector<std::string> w;
  const ProfileCoverage& c = p.coverage;
  if (c.nodes.empty() && p.cluster.empty()) return w;  // an Open MPI-only profile: no NCCL parameters
  if (c.nodes.empty())
    w.push_back("profile records no coverage (written before issue 15): what it measured is unknown");
  const std::int64_t max_nodes = c.nodes.empty() ? p.nodes : *std::max_element(c.nodes.begin(), c.nodes.end());
  if (!p.cluster.empty() && p.cluster != cluster)
    w.push_back("profile fitted on cluster '" + p.cluster + "', applied to '" + cluster +
                "': its parameters describe the other cluster's hardware");
  if (max_nodes == 1 && nodes > 1)
    w.push_back("profile fitted on 1 node: inter-node latency and bandwidth not measured; catalog values used");
  else if (nodes > max_nodes)
    w.push_back("profile fitted on " + join_counts(c.nodes) + " node(s), applied to " + std::to_string(nodes) +
                ": extrapolated in node count (residual factors and plan choices apply to the fitted layouts only)");
  if (!c.gpus_per_node.empty() &&
      std::find(c.gpus_per_node.begin(), c.gpus_per_node.end(), gpn) == c.gpus_per_node.end())
    w.push_back("profile fitted on " + join_counts(c.gpus_per_node) + " GPU(s) per node, applied to " +
                std::to_string(gpn) + ": intra-node parameters were measured at another width");
  for (const auto& t : transport_parts(transports))
    if (!c.transports.empty() && std::find(c.transports.begin(), c.transports.end(), t) == c.transports.end())
      w.push_back("transport not measured by the profile: " + t + "; its catalog values used");
  return w;
}

double CalibrationProfile::time_factor(const std::string& op, const std::string& algo, const std::string& proto,
                                       std::int64_t nnodes, std::int64_t gpn, std::int64_t size) const {
  for (const auto& r : residuals)
    if (r.op == op && r.algo == algo && r.proto == proto && r.nnodes == nnodes && r.gpus_per_node == gpn)
      return r.factor(size);
  return 1.0;
}

const MpiModel* CalibrationProfile::find_mpi(const std::string& network, const std::string& algo) const {
  for (const auto& m : mpi_models)
    if (m.network == network && m.algo == algo) return &m;
  return nullptr;
}

std::string network_tag(const std::string& source) {
  static const std::regex re(R"(^allreduce-([A-Za-z0-9]+)-[0-9]+cpu-)");
  std::smatch m;
  if (std::regex_search(source, m, re)) return m[1].str();
  return source;
}

void apply_profile(const CalibrationProfile& p, sim::CommOptions& o, std::map<std::string, double>* scale) {
  for (const auto& [name, v] : p.nccl_parameters) {
    try {
      o.nccl.set(name, v);
    } catch (const UnitError& e) {
      throw InputError("calibration profile", "$.nccl_parameters." + name, "not a parameter of the NCCL model",
                       std::to_string(v), e.what());
    }
  }
  for (const auto& [kind, k] : p.capacity_scale) {
    o.capacity_scale[kind] = k;
    if (scale) (*scale)[kind] = k;
  }
}

namespace {
// coverage, not_measured, plans and fit_note (written only when the fit set them, so older profiles round-trip).
void write_issue15_fields(const CalibrationProfile& p, OJson& j) {
  const ProfileCoverage& c = p.coverage;
  if (!c.nodes.empty() || !c.transports.empty())
    j["coverage"] = OJson{{"nodes", c.nodes},
                          {"gpus_per_node", c.gpus_per_node},
                          {"transports", c.transports},
                          {"min_size_bytes", c.min_size_bytes},
                          {"max_size_bytes", c.max_size_bytes}};
  if (!p.not_measured.empty()) j["not_measured"] = p.not_measured;
  if (!p.plans.empty()) {
    j["plans"] = OJson::array();
    for (const auto& pc : p.plans) {
      OJson e{{"op", pc.op}, {"nnodes", pc.nnodes}, {"gpus_per_node", pc.gpus_per_node}, {"max_bytes", pc.max_bytes}};
      e["segments"] = OJson::array();
      for (const auto& g : pc.segments)
        e["segments"].push_back(OJson{{"start_bytes", g.start_bytes}, {"algo", g.algo}, {"proto", g.proto}});
      j["plans"].push_back(e);
    }
  }
  if (!p.fit_note.empty()) j["fit_note"] = p.fit_note;
}
}  // namespace

OJson to_json(const CalibrationProfile& p) {
  OJson j;
  j["kind"] = "vgsim_calibration_profile";
  OJson prov;
  prov["sources"] = p.provenance.sources;
  prov["hardware"] = p.provenance.hardware;
  prov["nccl_version"] = p.provenance.nccl_version;
  prov["date"] = p.provenance.date;
  prov["tool"] = p.provenance.tool;
  prov["note"] = p.provenance.note;
  j["provenance"] = prov;
  j["cluster"] = p.cluster;
  j["nodes"] = p.nodes;
  j["gpus_per_node"] = p.gpus_per_node;
  j["nccl_parameters"] = OJson::object();
  for (const auto& [k, v] : p.nccl_parameters) j["nccl_parameters"][k] = v;
  j["capacity_scale"] = OJson::object();
  for (const auto& [k, v] : p.capacity_scale) j["capacity_scale"][k] = v;
  OJson f;
  f["extra_latency_us"] = p.fitted.extra_latency_us;
  f["hop_latency_scale"] = p.fitted.hop_latency_scale;
  f["bandwidth_efficiency"] = p.fitted.bandwidth_efficiency;
  f["bottleneck_kinds"] = p.fitted.bottleneck_kinds;
  f["base_latency_us"] = OJson::object();
  for (const auto& [k, v] : p.fitted.base_latency_us) f["base_latency_us"][k] = v;
  f["flow_cap_efficiency"] = OJson::object();
  for (const auto& [k, v] : p.fitted.flow_cap_efficiency) f["flow_cap_efficiency"][k] = v;
  j["fitted"] = f;
  j["residuals"] = OJson::array();
  for (const auto& r : p.residuals) {
    OJson e;
    e["op"] = r.op, e["algo"] = r.algo, e["proto"] = r.proto, e["nnodes"] = r.nnodes,
    e["gpus_per_node"] = r.gpus_per_node;
    e["segments"] = OJson::array();
    for (const auto& s : r.segments) {
      OJson g{{"start_bytes", s.start_bytes}, {"factor", s.factor}};
      if (s.ramp_from_bytes > 0) g["ramp_from_bytes"] = s.ramp_from_bytes;
      if (s.slope != 0.0) g["slope"] = s.slope, g["anchor_bytes"] = s.anchor_bytes, g["last_bytes"] = s.last_bytes;
      e["segments"].push_back(g);
    }
    if (!r.gaps.empty()) {
      e["gaps"] = OJson::array();
      for (const auto& g : r.gaps) {
        OJson x{{"from_bytes", g.from_bytes}, {"to_bytes", g.to_bytes}, {"points", OJson::array()}};
        for (const auto& [at, f] : g.points) x["points"].push_back(OJson{{"bytes", at}, {"factor", f}});
        e["gaps"].push_back(x);
      }
    }
    j["residuals"].push_back(e);
  }
  j["mpi_models"] = OJson::array();
  for (const auto& m : p.mpi_models) {
    OJson e;
    e["network"] = m.network, e["algo"] = m.algo, e["fitted_nranks"] = m.fitted_nranks;
    e["segments"] = OJson::array();
    for (const auto& s : m.model.segments)
      e["segments"].push_back(
          OJson{{"start_bytes", s.start_bytes}, {"alpha_us", s.alpha_us}, {"beta_us_per_byte", s.beta_us_per_byte}});
    e["gamma_us_per_byte"] = m.model.gamma_us_per_byte;
    j["mpi_models"].push_back(e);
  }
  write_issue15_fields(p, j);
  j["quality"] = OJson::array();
  for (const auto& q : p.quality)
    j["quality"].push_back(OJson{{"series", q.series},
                                 {"points", q.points},
                                 {"median_before", q.median_before},
                                 {"max_before", q.max_before},
                                 {"median_params", q.median_params},
                                 {"max_params", q.max_params},
                                 {"median_after", q.median_after},
                                 {"max_after", q.max_after}});
  if (!p.report.empty()) j["fit_report"] = fit_report_json(p.report);
  return j;
}

namespace {
template <typename Seg, typename F>
std::vector<Seg> segments_from(JsonReader& r, F read_one) {
  std::vector<Seg> out;
  for (auto s : r.objects("segments")) {
    Seg seg = read_one(s);
    if (!out.empty() && seg.start_bytes <= out.back().start_bytes)
      s.fail("start_bytes", "segments not ascending", "start_bytes > the previous segment's");
    if (out.empty() && seg.start_bytes != 0) s.fail("start_bytes", "first segment must start at 0", "0");
    s.finish();
    out.push_back(seg);
  }
  if (out.empty()) r.fail("segments", "no segment", "at least one segment");
  return out;
}
}  // namespace

namespace {
void read_issue15_fields(JsonReader& r, CalibrationProfile& p) {
  if (auto c = r.opt_object("coverage")) {
    for (const char* key : {"nodes", "gpus_per_node"}) {
      auto& out = std::string(key) == "nodes" ? p.coverage.nodes : p.coverage.gpus_per_node;
      const auto& a = c->json().contains(key) ? c->json().at(key) : nlohmann::json();
      if (!a.is_array()) c->fail(key, "missing or not a list", "a list of counts >= 1");
      for (const auto& v : a) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 1) c->fail(key, "not a count", "integers >= 1");
        out.push_back(v.get<std::int64_t>());
      }
      c->allow(key);
    }
    p.coverage.transports = c->strings("transports");
    p.coverage.min_size_bytes = c->integer("min_size_bytes", 0);
    p.coverage.max_size_bytes = c->integer("max_size_bytes", 0);
    c->finish();
  }
  if (r.has("not_measured")) p.not_measured = r.strings("not_measured");
  if (r.has("plans"))
    for (auto e : r.objects("plans")) {
      PlanChoice pc;
      pc.op = e.one_of("op", collective_ops());
      pc.nnodes = e.integer("nnodes", 1);
      pc.gpus_per_node = e.integer("gpus_per_node", 1);
      if (e.has("max_bytes")) pc.max_bytes = e.integer("max_bytes", 0);
      pc.segments = segments_from<PlanSegment>(e, [](JsonReader& s) {
        return PlanSegment{s.integer("start_bytes", 0), s.string("algo"), s.string("proto")};
      });
      e.finish();
      p.plans.push_back(pc);
    }
  if (r.has("fit_note")) p.fit_note = r.string("fit_note");
}

// One entry of "residuals" (segments, then the optional gap points).
ResidualFactors residual_from(JsonReader& e) {
  ResidualFactors rf;
  rf.op = e.one_of("op", collective_ops());
  rf.algo = e.string("algo");
  rf.proto = e.one_of("proto", collective_protos());
  rf.nnodes = e.integer("nnodes", 1);
  rf.gpus_per_node = e.integer("gpus_per_node", 1);
  rf.segments = segments_from<ResidualSegment>(e, [](JsonReader& s) {
    ResidualSegment g{s.integer("start_bytes", 0), s.number("factor", 1e-6, 1e6)};
    if (s.has("ramp_from_bytes")) g.ramp_from_bytes = s.integer("ramp_from_bytes", 1);
    if (s.has("slope")) {
      g.slope = s.number("slope", -10.0, 10.0);
      g.anchor_bytes = s.integer("anchor_bytes", 1);
      g.last_bytes = s.integer("last_bytes", g.anchor_bytes + 1);
    }
    if (g.ramp_from_bytes >= g.start_bytes && g.ramp_from_bytes > 0)
      s.fail("ramp_from_bytes", "ramp does not end before the segment starts", "< start_bytes");
    return g;
  });
  std::int64_t end = 0;  // gaps ascending, not overlapping, points ascending inside each
  if (e.has("gaps"))
    for (auto x : e.objects("gaps")) {
      GapPoints g;
      g.from_bytes = x.integer("from_bytes", end);
      g.to_bytes = x.integer("to_bytes", g.from_bytes + 2);
      std::int64_t prev = g.from_bytes;
      for (auto q : x.objects("points")) {
        const std::int64_t at = q.integer("bytes", prev + 1, g.to_bytes - 1);
        g.points.emplace_back(at, q.number("factor", 1e-6, 1e6));
        q.finish();
        prev = at;
      }
      x.finish();
      end = g.to_bytes;
      rf.gaps.push_back(std::move(g));
    }
  e.finish();
  return rf;
}
}  // namespace

CalibrationProfile calibration_profile_from_json(const nlohmann::json& j, const std::string& file) {
  JsonReader r(j, file);
  CalibrationProfile p;
  r.one_of("kind", {"vgsim_calibration_profile"});
  {
    JsonReader v = r.object("provenance");
    p.provenance.sources = v.strings("sources");
    p.provenance.hardware = v.string("hardware");
    p.provenance.nccl_version = v.string("nccl_version");
    p.provenance.date = v.string("date");
    p.provenance.tool = v.string("tool");
    p.provenance.note = v.string("note");
    v.finish();
  }
  p.cluster = r.string("cluster");
  p.nodes = r.integer("nodes", 0);
  p.gpus_per_node = r.integer("gpus_per_node", 0);
  {
    JsonReader n = r.object("nccl_parameters");
    for (auto it = n.json().begin(); it != n.json().end(); ++it) p.nccl_parameters[it.key()] = n.number(it.key(), 0.0);
    n.finish();
    // Names are checked against the NCCL model now, so a typo is reported with the file and path.
    sim::CommOptions probe;
    for (const auto& [name, v] : p.nccl_parameters) {
      try {
        probe.nccl.set(name, v);
      } catch (const UnitError& e) {
        n.fail(name, "not a parameter of the NCCL model", e.what());
      }
    }
    JsonReader c = r.object("capacity_scale");
    for (auto it = c.json().begin(); it != c.json().end(); ++it)
      p.capacity_scale[it.key()] = c.number(it.key(), 1e-6, 1e6);
    c.finish();
  }
  {
    JsonReader f = r.object("fitted");
    p.fitted.extra_latency_us = f.number("extra_latency_us");
    p.fitted.hop_latency_scale = f.number("hop_latency_scale", 0.0);
    p.fitted.bandwidth_efficiency = f.number("bandwidth_efficiency", 1e-6, 1.0);
    p.fitted.bottleneck_kinds = f.strings("bottleneck_kinds");
    // Optional (profiles written before the bounded fit have neither).
    if (auto b = f.opt_object("base_latency_us")) {
      for (auto it = b->json().begin(); it != b->json().end(); ++it)
        p.fitted.base_latency_us[it.key()] = b->number(it.key(), 0.0);
      b->finish();
    }
    if (auto c = f.opt_object("flow_cap_efficiency")) {
      for (auto it = c->json().begin(); it != c->json().end(); ++it)
        p.fitted.flow_cap_efficiency[it.key()] = c->number(it.key(), 1e-6, 1.0);
      c->finish();
    }
    f.finish();
  }
  for (auto e : r.objects("residuals")) p.residuals.push_back(residual_from(e));
  for (auto e : r.objects("mpi_models")) {
    MpiModel m;
    m.network = e.string("network");
    m.algo = e.string("algo");
    m.fitted_nranks = e.integer("fitted_nranks", 1);
    m.model.segments = segments_from<AlphaBetaSegment>(e, [](JsonReader& s) {
      return AlphaBetaSegment{s.integer("start_bytes", 0), s.number("alpha_us", 0.0),
                              s.number("beta_us_per_byte", 0.0)};
    });
    m.model.gamma_us_per_byte = e.number("gamma_us_per_byte", 0.0);
    e.finish();
    p.mpi_models.push_back(m);
  }
  read_issue15_fields(r, p);
  for (auto e : r.objects("quality")) {
    SeriesQuality q;
    q.series = e.string("series");
    q.points = e.integer("points", 0);
    q.median_before = e.number("median_before", 0.0);
    q.max_before = e.number("max_before", 0.0);
    q.median_params = e.number("median_params", 0.0);
    q.max_params = e.number("max_params", 0.0);
    q.median_after = e.number("median_after", 0.0);
    q.max_after = e.number("max_after", 0.0);
    e.finish();
    p.quality.push_back(q);
  }
  if (auto f = r.opt_object("fit_report")) p.report = fit_report_from_json(*f);
  r.finish();
  return p;
}

std::string dump_calibration_profile(const CalibrationProfile& p) { return to_json(p).dump(2) + "\n"; }

CalibrationProfile read_calibration_profile(const std::string& path) {
  return calibration_profile_from_json(load_json_file(path), path);
}

void write_calibration_profile(const std::string& path, const CalibrationProfile& p) {
  write_file_atomically(path, dump_calibration_profile(p));
}

}  // namespace vgsim::calibrate
