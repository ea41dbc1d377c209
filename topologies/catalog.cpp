// Device catalog loading (see include/vgsim/topologies/catalog.hpp). Every catalog file is an object holding any of
// "gpus", "nics", "pcie_generations", "cpus" (arrays of entries), "mig_tables" and "vgpu_tables" (by key); a cluster
// file's inline "catalog" object has the same schema and goes through the same reader (read_object). Every entry must
// carry a "source" string. Files are read in sorted name order, so the result does not depend on directory listing
// order. A kind and key defined twice (across files, directories or an inline catalog) must be the same JSON entry.
// Units are parsed from strings ("25GB/s", "40GiB", "0.15us"); peak FLOP/s are given in TFLOP/s (key peak_tflops).
#include "vgsim/topologies/catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "vgsim/kernel/data_root.hpp"
#include "vgsim/kernel/json_input.hpp"

#ifndef VGSIM_TOPOLOGIES_DATA_DIR
#define VGSIM_TOPOLOGIES_DATA_DIR "."
#endif

namespace vgsim::topo {

namespace fs = std::filesystem;

namespace {

std::string required_source(JsonReader& r) {
  if (!r.has("source"))
    throw InputError(r.file(), r.path_of("source"), "missing required key", "",
                     "a \"source\" string saying where the numbers come from");
  return r.string("source");
}

template <class Map>
std::vector<std::string> keys_of(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

template <class Map>
const typename Map::mapped_type& lookup(const Map& m, const std::string& key, const char* what) {
  auto it = m.find(key);
  if (it != m.end()) return it->second;
  const auto keys = keys_of(m);
  const std::string guess = did_you_mean(key, keys);
  std::string expected = guess.empty() ? "" : "did you mean '" + guess + "'? ";
  expected += "known " + std::string(what) + ": ";
  for (std::size_t i = 0; i < keys.size(); ++i) expected += (i ? ", " : "") + keys[i];
  throw InputError("catalog", std::string(what), "unknown " + std::string(what) + " model", key, expected);
}

struct PcieRef {
  std::string gen;
  std::uint32_t lanes = 16;
};

PcieRef read_pcie_ref(JsonReader& r) {
  JsonReader p = r.object("pcie");
  PcieRef out;
  out.gen = p.one_of("gen", {"gen3", "gen4", "gen5"});
  out.lanes = static_cast<std::uint32_t>(p.integer("lanes", 1, 32));
  p.finish();
  return out;
}

std::vector<MigProfile> read_mig_table(JsonReader& t) {
  std::vector<MigProfile> out;
  for (JsonReader& p : t.objects("profiles")) {
    MigProfile m;
    m.name = p.string("name");
    m.compute_slices = static_cast<std::uint32_t>(p.integer("compute_slices", 1, 7));
    m.memory_slices = static_cast<std::uint32_t>(p.integer("memory_slices", 1, 8));
    m.sms = static_cast<std::uint32_t>(p.integer("sms", 1, 1000));
    m.memory = p.bytes("memory");
    m.max_instances = static_cast<std::uint32_t>(p.integer("max_instances", 1, 7));
    const Json& pl = p.json().contains("placements") ? p.json()["placements"] : Json();
    p.allow("placements");
    if (!pl.is_array()) p.fail("placements", "wrong type", "an array of start slots 0..6");
    for (std::size_t i = 0; i < pl.size(); ++i) {
      if (!pl[i].is_number_integer() || pl[i].get<int>() < 0 || pl[i].get<int>() > 6)
        throw InputError(p.file(), p.path_of("placements") + "[" + std::to_string(i) + "]", "bad start slot",
                         json_snippet(pl[i]), "an integer in [0, 6]");
      m.placements.push_back(pl[i].get<std::uint32_t>());
    }
    if (m.placements.size() < m.max_instances)
      p.fail("placements", "fewer placements than max_instances",
             "at least " + std::to_string(m.max_instances) + " start slots");
    p.finish();
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<VgpuProfile> read_vgpu_table(JsonReader& t) {
  std::vector<VgpuProfile> out;
  for (JsonReader& p : t.objects("profiles")) {
    VgpuProfile v;
    v.name = p.string("name");
    v.framebuffer = p.bytes("framebuffer");
    if (v.framebuffer <= 0) p.fail("framebuffer", "a vGPU without a frame buffer", "a positive size such as \"10GiB\"");
    v.max_per_gpu = static_cast<std::uint32_t>(p.integer("max_per_gpu", 1, 64));
    p.finish();
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::string Catalog::data_dir() { return data_root(VGSIM_TOPOLOGIES_DATA_DIR); }

std::string Catalog::default_dir() { return (fs::path(data_dir()) / "topologies" / "catalog").string(); }

namespace {
std::vector<std::string>& user_dirs_storage() {
  static std::vector<std::string> dirs;
  return dirs;
}
}  // namespace

void Catalog::set_user_dirs(std::vector<std::string> dirs) { user_dirs_storage() = std::move(dirs); }

const std::vector<std::string>& Catalog::user_dirs() { return user_dirs_storage(); }

Catalog Catalog::load_default() {
  Catalog c = load(default_dir());
  for (const auto& d : user_dirs()) c.add_dir(d);
  return c;
}

Catalog Catalog::load(const std::string& dir) {
  Catalog c;
  c.add_dir(dir);
  return c;
}

struct Catalog::Batch {
  // A GPU's reference to a MIG or vGPU table, resolved once the whole batch is read (a GPU may name a table in
  // another file of the same directory).
  struct Ref {
    std::string gpu, table, file, path;
  };
  std::vector<Ref> mig, vgpu;
};

std::string Catalog::origin(const std::string& kind, const std::string& key) const {
  auto k = origins_.find(kind);
  if (k == origins_.end()) return "";
  auto e = k->second.find(key);
  return e == k->second.end() ? "" : e->second.file + " " + e->second.path;
}

bool Catalog::claim(const std::string& kind, const std::string& key, const JsonReader& entry,
                    const std::string& key_path) {
  auto& by_key = origins_[kind];
  auto it = by_key.find(key);
  if (it == by_key.end()) {
    by_key.emplace(key, Origin{entry.file(), entry.path(), entry.json()});
    return true;
  }
  if (it->second.json == entry.json()) return false;  // the same entry again (e.g. a copied catalog file)
  static const std::map<std::string, std::string> what = {
      {"gpus", "GPU model"}, {"nics", "NIC model"},       {"pcie_generations", "PCIe generation"},
      {"cpus", "CPU model"}, {"mig_tables", "MIG table"}, {"vgpu_tables", "vGPU table"}};
  throw InputError(entry.file(), key_path,
                   what.at(kind) + " '" + key + "' is already defined in " + it->second.file + " at " +
                       it->second.path + " with other values",
                   "\"" + key + "\"",
                   "a key the catalog does not have yet, or an entry identical to that one (an entry may not "
                   "shadow another: rename it)");
}

void Catalog::read_object(JsonReader& r, Batch& b) {
  for (JsonReader& g : r.opt_objects("gpus")) {
    GpuModel m;
    m.key = g.string("key");
    if (!claim("gpus", m.key, g, g.path_of("key"))) continue;
    m.display_name = g.string("display_name");
    m.arch = g.one_of("arch", {"pascal", "volta", "turing", "ampere", "hopper", "blackwell"});
    m.sm_version = static_cast<std::uint32_t>(g.integer("sm_version", 30, 200));
    m.sms = static_cast<std::uint32_t>(g.integer("sms", 1, 1000));
    m.memory = g.bytes("memory");
    if (m.memory <= 0) g.fail("memory", "a GPU without memory", "a positive size such as \"40GiB\"");
    m.memory_bandwidth = g.bandwidth("memory_bandwidth");
    JsonReader fl = g.object("peak_tflops");
    for (const char* k : {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"})
      if (auto v = fl.opt_number(k, 0.0, 1e6)) m.peak_flops[k] = *v * 1e12;
    fl.finish();
    if (auto nv = g.opt_object("nvlink")) {
      m.nvlink_links = static_cast<std::uint32_t>(nv->integer("links", 0, 64));
      m.nvlink_per_link = nv->bandwidth("per_link");
      m.nvlink_nccl_per_link = nv->opt_bandwidth("nccl_per_link").value_or(m.nvlink_per_link);
      if (m.nvlink_nccl_per_link > m.nvlink_per_link)
        nv->fail("nccl_per_link", "above the datasheet per_link rate",
                 "at most per_link (" + format_bandwidth(m.nvlink_per_link) + ")");
      m.nvlink_latency = nv->time("latency");
      required_source(*nv);
      nv->finish();
    }
    const PcieRef pr = read_pcie_ref(g);
    m.pcie_gen = pr.gen;
    m.pcie_lanes = pr.lanes;
    m.mig_table = g.opt_string("mig").value_or("");
    if (!m.mig_table.empty()) b.mig.push_back({m.key, m.mig_table, g.file(), g.path_of("mig")});
    m.vgpu_table = g.opt_string("vgpu").value_or("");
    if (!m.vgpu_table.empty()) b.vgpu.push_back({m.key, m.vgpu_table, g.file(), g.path_of("vgpu")});
    m.source = required_source(g);
    g.finish();
    gpus_[m.key] = std::move(m);
  }
  for (JsonReader& n : r.opt_objects("nics")) {
    NicModel m;
    m.key = n.string("key");
    if (!claim("nics", m.key, n, n.path_of("key"))) continue;
    m.display_name = n.string("display_name");
    m.ports = static_cast<std::uint32_t>(n.integer("ports", 1, 16));
    m.port_speed = n.bandwidth("port_speed");
    const PcieRef pr = read_pcie_ref(n);
    m.pcie_gen = pr.gen;
    m.pcie_lanes = pr.lanes;
    m.rdma = n.boolean("rdma");
    m.devices = n.has("devices") ? static_cast<std::uint32_t>(n.integer("devices", 1, 64)) : 1;
    m.pci_vendor = n.opt_string("pci_vendor").value_or("generic");
    if (m.pci_vendor != "aws" && m.pci_vendor != "gcp" && m.pci_vendor != "generic")
      n.fail("pci_vendor", "not a PCI vendor NCCL's socket transport knows", "\"aws\", \"gcp\" or \"generic\"");
    m.source = required_source(n);
    n.finish();
    nics_[m.key] = std::move(m);
  }
  for (JsonReader& p : r.opt_objects("pcie_generations")) {
    PcieGen m;
    m.key = p.string("key");
    if (!claim("pcie_generations", m.key, p, p.path_of("key"))) continue;
    m.per_lane = p.bandwidth("per_lane");
    m.efficiency = p.number("efficiency", 0.01, 1.0);
    m.hop_latency = p.time("hop_latency");
    m.source = required_source(p);
    p.finish();
    pcie_[m.key] = std::move(m);
  }
  for (JsonReader& p : r.opt_objects("cpus")) {
    CpuModel m;
    m.key = p.string("key");
    if (!claim("cpus", m.key, p, p.path_of("key"))) continue;
    m.display_name = p.string("display_name");
    m.cores = static_cast<std::uint32_t>(p.integer("cores", 1, 4096));
    m.memory_bandwidth = p.bandwidth("memory_bandwidth");
    m.inter_socket = p.bandwidth("inter_socket");
    m.inter_socket_latency = p.time("inter_socket_latency");
    m.pcie_gen = p.one_of("pcie_gen", {"gen3", "gen4", "gen5"});
    m.pcie_lanes = static_cast<std::uint32_t>(p.integer("pcie_lanes", 1, 1024));
    if (auto c = p.opt_object("compute")) {
      CpuCoreCompute cc;
      cc.fp32_flops_per_cycle = c->number("fp32_flops_per_cycle", 1.0, 1024.0);
      cc.base_clock_hz = c->number("base_clock_ghz", 0.1, 10.0) * 1e9;
      cc.avx512_clock_hz = c->number("avx512_clock_ghz", 0.1, 10.0) * 1e9;
      cc.source = required_source(*c);
      c->finish();
      m.compute = std::move(cc);
    }
    m.source = required_source(p);
    p.finish();
    cpus_[m.key] = std::move(m);
  }
  if (auto mt = r.opt_object("mig_tables")) {
    for (auto it = mt->json().begin(); it != mt->json().end(); ++it) {
      JsonReader t = mt->object(it.key());
      if (!claim("mig_tables", it.key(), t, t.path())) continue;
      required_source(t);
      mig_tables_[it.key()] = read_mig_table(t);
      t.finish();
    }
    mt->finish();
  }
  if (auto vt = r.opt_object("vgpu_tables")) {
    for (auto it = vt->json().begin(); it != vt->json().end(); ++it) {
      JsonReader t = vt->object(it.key());
      if (!claim("vgpu_tables", it.key(), t, t.path())) continue;
      required_source(t);
      vgpu_tables_[it.key()] = read_vgpu_table(t);
      t.finish();
    }
    vt->finish();
  }
  r.finish();
}

void Catalog::resolve(const Batch& b) {
  for (const auto& p : b.mig) {
    auto it = mig_tables_.find(p.table);
    if (it == mig_tables_.end()) {
      const std::string guess = did_you_mean(p.table, keys_of(mig_tables_));
      throw InputError(p.file, p.path, "unknown MIG table", "\"" + p.table + "\"",
                       (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") +
                           "a key of some catalog file's \"mig_tables\", or \"\" for no MIG");
    }
    gpus_[p.gpu].mig_profiles = it->second;
  }
  for (const auto& p : b.vgpu) {
    auto it = vgpu_tables_.find(p.table);
    if (it == vgpu_tables_.end()) {
      const std::string guess = did_you_mean(p.table, keys_of(vgpu_tables_));
      throw InputError(p.file, p.path, "unknown vGPU table", "\"" + p.table + "\"",
                       (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") +
                           "a key of some catalog file's \"vgpu_tables\", or \"\" for no vGPU");
    }
    // NVIDIA's tables size max_per_gpu as the GPU's frame buffer / the profile's: a profile larger than the GPU's
    // memory, or more of it than fit, cannot exist on this GPU.
    const GpuModel& gm = gpus_.at(p.gpu);
    for (const VgpuProfile& v : it->second)
      if (static_cast<double>(v.framebuffer) * v.max_per_gpu > static_cast<double>(gm.memory))
        throw InputError(p.file, p.path,
                         "vGPU profile " + v.name + " of table '" + p.table + "' does not fit GPU " + p.gpu + "'s " +
                             format_bytes(gm.memory),
                         std::to_string(v.max_per_gpu) + " x " + format_bytes(v.framebuffer),
                         "a vGPU table whose max_per_gpu x framebuffer is at most the GPU's memory");
    gpus_[p.gpu].vgpu_profiles = it->second;
  }
  // Cross-references: every PCIe generation a device names must exist.
  auto check_gen = [&](const std::string& gen, const std::string& kind, const std::string& key, const char* field) {
    if (pcie_.count(gen)) return;
    const Origin& o = origins_.at(kind).at(key);
    throw InputError(o.file, o.path + field, "unknown PCIe generation", gen, "one of the catalog's pcie_generations");
  };
  for (const auto& [k, g] : gpus_) check_gen(g.pcie_gen, "gpus", k, ".pcie.gen");
  for (const auto& [k, n] : nics_) check_gen(n.pcie_gen, "nics", k, ".pcie.gen");
  for (const auto& [k, p] : cpus_) check_gen(p.pcie_gen, "cpus", k, ".pcie_gen");
}

void Catalog::add_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir, "", "catalog directory not found", dir,
                     "a directory of catalog *.json files (set VGSIM_DATA_DIR to the vgsim source tree)");
  // Error codes, not exceptions: a symbolic-link loop or an unreadable entry is the user's input, not a crash. Only
  // *.json entries are looked at; one that cannot be resolved is an error naming it.
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  if (ec)
    throw InputError(dir, "", "catalog directory cannot be read (" + ec.message() + ")", dir, "a readable directory");
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec)
      throw InputError(dir, "", "catalog directory cannot be listed (" + ec.message() + ")", dir,
                       "a readable directory");
    if (it->path().extension() != ".json") continue;
    const bool regular = it->is_regular_file(ec);
    if (ec)
      throw InputError(it->path().string(), "", "catalog file cannot be read (" + ec.message() + ")",
                       it->path().string(), "a regular *.json catalog file (or no such entry)");
    if (regular) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  Batch b;
  for (const auto& f : files) {
    const std::string file = f.string();
    const Json root = load_json_file(file);
    JsonReader r(root, file);
    read_object(r, b);
  }
  resolve(b);
}

void Catalog::add(JsonReader& r) {
  Batch b;
  read_object(r, b);
  resolve(b);
}

const GpuModel& Catalog::gpu(const std::string& key) const { return lookup(gpus_, key, "GPU"); }
const NicModel& Catalog::nic(const std::string& key) const { return lookup(nics_, key, "NIC"); }
const PcieGen& Catalog::pcie(const std::string& key) const { return lookup(pcie_, key, "PCIe generation"); }
const CpuModel& Catalog::cpu(const std::string& key) const { return lookup(cpus_, key, "CPU"); }

}  // namespace vgsim::topo
