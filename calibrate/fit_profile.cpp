// JSON round trip of a set of alpha-beta fits with provenance (include/vgsim/calibrate/fit_profile.hpp).
// Each segment stores beta_us_per_byte (authoritative, exact round trip) and bandwidth_GBps = 1e-3 / beta (for people;
// checked on reading, null when beta == 0). breakpoints_bytes repeats the segment starts and is checked too.
#include "vgsim/calibrate/fit_profile.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace vgsim::calibrate {

using OJson = nlohmann::ordered_json;

const SegmentedFit* FitProfile::find(const SeriesKey& key) const {
  for (const auto& f : fits)
    if (f.series == key) return &f;
  return nullptr;
}

namespace {

OJson key_json(const SeriesKey& k) {
  OJson j;
  j["op"] = k.op;
  j["algo"] = k.algo;
  j["proto"] = k.proto;
  j["dtype"] = k.dtype;
  j["nranks"] = k.nranks;
  j["nnodes"] = k.nnodes;
  j["gpus_per_node"] = k.gpus_per_node;
  j["in_place"] = k.in_place;
  j["library"] = k.library;
  j["source"] = k.source;
  if (k.mpi_dynamic_rules) j["mpi_dynamic_rules"] = *k.mpi_dynamic_rules;  // only when stated
  return j;
}

SeriesKey key_from(JsonReader r) {
  SeriesKey k;
  k.op = r.one_of("op", collective_ops());
  k.algo = r.string("algo");
  k.proto = r.one_of("proto", collective_protos());
  k.dtype = r.one_of("dtype", collective_dtypes());
  k.nranks = r.integer("nranks", 1);
  k.nnodes = r.integer("nnodes", 1);
  k.gpus_per_node = r.integer("gpus_per_node", 1);
  k.in_place = r.boolean("in_place");
  k.library = r.one_of("library", collective_libraries());
  k.source = r.string("source");
  k.mpi_dynamic_rules = r.opt_boolean("mpi_dynamic_rules");
  r.finish();
  return k;
}

}  // namespace

OJson to_json(const FitProfile& p) {
  OJson j;
  j["kind"] = "vgsim_alpha_beta_fits";
  OJson prov;
  prov["sources"] = p.provenance.sources;
  prov["date"] = p.provenance.date;
  prov["tool"] = p.provenance.tool;
  prov["note"] = p.provenance.note;
  j["provenance"] = prov;
  j["fits"] = OJson::array();
  for (const auto& f : p.fits) {
    OJson fj;
    fj["series"] = key_json(f.series);
    fj["model"] = f.model;
    fj["min_size_bytes"] = f.min_size_bytes;
    fj["max_size_bytes"] = f.max_size_bytes;
    fj["breakpoints_bytes"] = f.breakpoints();
    fj["segments"] = OJson::array();
    for (const auto& s : f.segments) {
      OJson sj;
      sj["start_bytes"] = s.start_bytes;
      sj["alpha_us"] = s.alpha_us;
      const auto bw = s.bandwidth_GBps();
      sj["bandwidth_GBps"] = bw ? OJson(*bw) : OJson(nullptr);
      sj["beta_us_per_byte"] = s.beta_us_per_byte;
      fj["segments"].push_back(sj);
    }
    OJson q;
    q["points"] = f.quality.points;
    q["median_rel_error"] = f.quality.median_rel_error;
    q["max_rel_error"] = f.quality.max_rel_error;
    q["rms_rel_error"] = f.quality.rms_rel_error;
    fj["quality"] = q;
    j["fits"].push_back(fj);
  }
  return j;
}

FitProfile fit_profile_from_json(const nlohmann::json& j, const std::string& file) {
  JsonReader r(j, file);
  r.one_of("kind", {"vgsim_alpha_beta_fits"});
  FitProfile p;
  {
    JsonReader pr = r.object("provenance");
    p.provenance.sources = pr.strings("sources");
    p.provenance.date = pr.string("date");
    p.provenance.tool = pr.string("tool");
    p.provenance.note = pr.opt_string("note").value_or("");
    pr.finish();
  }
  for (JsonReader fr : r.objects("fits")) {
    SegmentedFit f;
    f.series = key_from(fr.object("series"));
    f.model = fr.one_of("model", {"segmented", "hockney"});
    f.min_size_bytes = fr.integer("min_size_bytes", 0);
    f.max_size_bytes = fr.integer("max_size_bytes", f.min_size_bytes);
    const auto segs = fr.objects("segments");
    if (segs.empty()) fr.fail("segments", "no segments", "at least one segment");
    for (JsonReader sr : segs) {
      Segment s;
      s.start_bytes = sr.integer("start_bytes", 0);
      s.alpha_us = sr.number("alpha_us", 0.0);
      s.beta_us_per_byte = sr.number("beta_us_per_byte", 0.0);
      const auto bw = sr.opt_number("bandwidth_GBps", 0.0);
      sr.allow("bandwidth_GBps");
      const auto expect = s.bandwidth_GBps();
      if (bw.has_value() != expect.has_value() ||
          (bw && std::fabs(*bw - *expect) > 1e-9 * std::max(1.0, std::fabs(*expect))))
        sr.fail("bandwidth_GBps", "does not equal 1e-3 / beta_us_per_byte",
                expect ? std::to_string(*expect) : std::string("null (beta is 0)"));
      if (!f.segments.empty() && s.start_bytes <= f.segments.back().start_bytes)
        sr.fail("start_bytes", "segments out of order", "start_bytes above the previous segment's");
      sr.finish();
      f.segments.push_back(s);
    }
    std::vector<std::int64_t> bps;
    for (const auto& v : fr.json().at("breakpoints_bytes")) {
      if (!v.is_number_integer()) fr.fail("breakpoints_bytes", "not an integer", "integer byte counts");
      bps.push_back(v.get<std::int64_t>());
    }
    fr.allow("breakpoints_bytes");
    if (bps != f.breakpoints())
      fr.fail("breakpoints_bytes", "does not match the segment starts", "segments[1..].start_bytes");
    {
      JsonReader q = fr.object("quality");
      f.quality.points = q.integer("points", 0);
      f.quality.median_rel_error = q.number("median_rel_error", 0.0);
      f.quality.max_rel_error = q.number("max_rel_error", 0.0);
      f.quality.rms_rel_error = q.number("rms_rel_error", 0.0);
      q.finish();
    }
    fr.finish();
    p.fits.push_back(std::move(f));
  }
  r.finish();
  return p;
}

std::string dump_fit_profile(const FitProfile& p) { return to_json(p).dump(2) + "\n"; }

FitProfile read_fit_profile(const std::string& path) { return fit_profile_from_json(load_json_file(path), path); }

void write_fit_profile(const std::string& path, const FitProfile& p) {
  write_file_atomically(path, dump_fit_profile(p));  // temp file + rename: never a half-written file
}

}  // namespace vgsim::calibrate
