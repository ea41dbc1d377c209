// User catalogs: device models a cluster file defines inline ("catalog") or a directory adds (Catalog::add_dir, the
// CLI's --catalog DIR) go through the catalog's own reader. An inline model gives the same cluster as the same entry
// in a directory; a key the catalog already has must be the identical entry (the error names both places); a bad
// inline entry is reported like the same entry in a catalog file; the 10/25/40 GbE and Omni-Path parts load.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <tuple>

#include "vgsim/topologies/cluster.hpp"

using namespace vgsim;
using namespace vgsim::topo;
namespace fs = std::filesystem;

namespace {

const Catalog& builtin() {
  static const Catalog c = Catalog::load(std::string(VGSIM_DATA_DIR) + "/topologies/catalog");
  return c;
}

// A GPU and a NIC the built-in catalog lacks (numbers arbitrary but valid).
Json user_models() {
  return Json::parse(R"({
    "gpus": [{"key": "test-gpu", "display_name": "Test GPU", "arch": "ampere", "sm_version": 80, "sms": 84,
              "memory": "24GiB", "memory_bandwidth": "900GB/s", "peak_tflops": {"fp32": 30, "fp16": 120},
              "pcie": {"gen": "gen4", "lanes": 16}, "source": "test entry"}],
    "nics": [{"key": "test-nic-50g", "display_name": "Test 50GbE", "ports": 1, "port_speed": "50Gbps",
              "pcie": {"gen": "gen3", "lanes": 8}, "rdma": true, "source": "test entry"}]})");
}

// Two hosts of two user GPUs and one user NIC each.
Json cluster_json() {
  return Json::parse(R"({
    "name": "user-models", "host_templates": {"h": {
      "cpu": "xeon-gold-6338", "sockets": 2,
      "gpus": [{"name": "gpu0", "model": "test-gpu", "attach": "socket0"},
               {"name": "gpu1", "model": "test-gpu", "attach": "socket1"}],
      "nics": [{"name": "nic0", "model": "test-nic-50g", "ports": 1, "attach": "socket0"}]}},
    "hosts": [{"template": "h", "count": 2}],
    "fabric": {"type": "switch", "link_latency": "20ns", "switch_latency": "0.5us"}})");
}

// A fresh directory holding `files` (name -> JSON).
fs::path make_dir(const std::string& name, const std::vector<std::pair<std::string, Json>>& files) {
  const fs::path d = fs::temp_directory_path() / ("vgsim-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  for (const auto& [f, j] : files) std::ofstream(d / f) << j.dump(2);
  return d;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("an inline GPU and NIC give the same cluster as the same entries in a catalog directory", "[catalog][user]") {
  Json inline_cluster = cluster_json();
  inline_cluster["catalog"] = user_models();
  const Cluster a = Cluster::from_json(inline_cluster, "inline.json", builtin());

  const fs::path dir = make_dir("user-catalog", {{"mine.json", user_models()}});
  Catalog with_dir = builtin();
  with_dir.add_dir(dir.string());
  const Cluster b = Cluster::from_json(cluster_json(), "plain.json", with_dir);

  // The inline models did not leak into the catalog the caller passed.
  CHECK(builtin().gpus().count("test-gpu") == 0);
  CHECK_THROWS_AS(Cluster::from_json(cluster_json(), "plain.json", builtin()), InputError);

  REQUIRE(a.resources().size() == b.resources().size());
  for (std::size_t i = 0; i < a.resources().size(); ++i) {
    CHECK(a.resources()[i].name == b.resources()[i].name);
    CHECK(a.resources()[i].capacity.bytes_per_s == b.resources()[i].capacity.bytes_per_s);
    CHECK(a.resources()[i].kind == b.resources()[i].kind);
  }
  CHECK(a.gpu_model(0).sms == 84);
  CHECK(b.gpu_model(0).sms == 84);
  // 50 Gb/s = 6.25e9 B/s per direction on the NIC port.
  const auto port = a.find_resource("host0/nic0/port0/tx");
  REQUIRE(port);
  CHECK(a.resources()[*port].capacity.bytes_per_s == Approx(6.25e9));
  PathOptions o;
  o.gdr_level = PathType::SYS;
  for (std::uint32_t i = 0; i < a.gpus().size(); ++i)
    for (std::uint32_t k = 0; k < a.gpus().size(); ++k) {
      if (i == k) continue;
      const Path pa = a.path(i, k, o), pb = b.path(i, k, o);
      CHECK(pa.resources == pb.resources);
      CHECK(pa.latency.ps == pb.latency.ps);
      CHECK(pa.transport == pb.transport);
      CHECK(pa.bottleneck.bytes_per_s == pb.bottleneck.bytes_per_s);
    }
  fs::remove_all(dir);
}

TEST_CASE("an inline GPU may use the built-in MIG and vGPU tables", "[catalog][user]") {
  Json j = cluster_json();
  Json models = user_models();
  models["gpus"][0]["mig"] = "a100-40gb";
  j["catalog"] = models;
  const Cluster c = Cluster::from_json(j, "inline.json", builtin());
  CHECK(c.gpu_model(0).mig_profiles.size() == builtin().gpu("a100-pcie-40gb").mig_profiles.size());
}

TEST_CASE("a key the catalog has is refused unless the entry is identical, naming both places", "[catalog][user]") {
  const std::string builtin_nics = std::string(VGSIM_DATA_DIR) + "/topologies/catalog/nics.json";
  const Json shipped = load_json_file(builtin_nics);
  std::size_t index = 0;
  while (index < shipped["nics"].size() && shipped["nics"][index]["key"] != "connectx-6-dx-25g") ++index;
  REQUIRE(index < shipped["nics"].size());
  Json changed = shipped["nics"][index];
  changed["port_speed"] = "50Gbps";

  SECTION("inline") {
    Json j = cluster_json();
    j["catalog"] = Json{{"nics", Json::array({changed})}};
    const std::string m = message_of([&] { Cluster::from_json(j, "mine.json", builtin()); });
    CHECK_THAT(m, Catch::StartsWith("mine.json: $.catalog.nics[0].key: "));
    CHECK_THAT(m, Catch::Contains("NIC model 'connectx-6-dx-25g' is already defined in " + builtin_nics +
                                  " at $.nics[" + std::to_string(index) + "]"));
    // The identical entry is accepted (and changes nothing).
    j["catalog"]["nics"][0] = shipped["nics"][index];
    j["host_templates"]["h"]["nics"][0]["model"] = "connectx-6-dx-25g";
    j["host_templates"]["h"]["gpus"][0]["model"] = j["host_templates"]["h"]["gpus"][1]["model"] = "a100-pcie-40gb";
    CHECK(Cluster::from_json(j, "mine.json", builtin()).nics()[0].speed.bytes_per_s == Approx(3.125e9));
  }
  SECTION("directory") {
    const fs::path dir = make_dir("collide", {{"extra.json", Json{{"nics", Json::array({changed})}}}});
    Catalog c = builtin();
    const std::string m = message_of([&] { c.add_dir(dir.string()); });
    CHECK_THAT(m, Catch::StartsWith((dir / "extra.json").string() + ": $.nics[0].key: "));
    CHECK_THAT(m, Catch::Contains("already defined in " + builtin_nics));
    // A whole copy of the built-in catalog is accepted.
    const fs::path copy = make_dir("copy", {});
    for (const auto& e : fs::directory_iterator(std::string(VGSIM_DATA_DIR) + "/topologies/catalog"))
      fs::copy_file(e.path(), copy / e.path().filename());
    Catalog d = builtin();
    CHECK_NOTHROW(d.add_dir(copy.string()));
    CHECK(d.nics().size() == builtin().nics().size());
    fs::remove_all(dir);
    fs::remove_all(copy);
  }
}

TEST_CASE("a bad inline entry is reported like the same entry in a catalog file", "[catalog][user]") {
  // Each break, applied to the user models: in a catalog file and inline, the messages differ only by the file and
  // the "$.catalog" prefix of the JSON path.
  const std::vector<std::pair<std::string, std::function<void(Json&)>>> breaks = {
      {"bad unit", [](Json& m) { m["nics"][0]["port_speed"] = "50Gbpx"; }},
      {"out of range", [](Json& m) { m["gpus"][0]["sms"] = 0; }},
      {"unknown key", [](Json& m) { m["nics"][0]["port_sped"] = "50Gbps"; }},
      {"missing source", [](Json& m) { m["gpus"][0].erase("source"); }},
      {"unknown MIG table", [](Json& m) { m["gpus"][0]["mig"] = "a100-40g"; }},
      {"unknown section", [](Json& m) { m["pcie"] = Json::array(); }},
  };
  for (const auto& [what, brk] : breaks) {
    INFO(what);
    Json models = user_models();
    brk(models);
    const fs::path dir = make_dir("bad", {{"mine.json", models}});
    const std::string file = (dir / "mine.json").string();
    const std::string from_file = message_of([&] {
      Catalog c = builtin();
      c.add_dir(dir.string());
    });
    Json j = cluster_json();
    j["catalog"] = models;
    std::string from_inline = message_of([&] { Cluster::from_json(j, "cluster.json", builtin()); });
    replace_all(from_inline, "cluster.json: ", file + ": ");
    replace_all(from_inline, "$.catalog.", "$.");
    replace_all(from_inline, "$.catalog:", "$:");
    CHECK(from_inline == from_file);
    CHECK_THAT(from_file, Catch::StartsWith(file + ": $"));
    CHECK_THAT(from_file, Catch::Contains("expected"));
    fs::remove_all(dir);
  }
}

TEST_CASE("the 10, 25 and 40 GbE and Omni-Path 100 parts load with their line rates", "[catalog][user]") {
  // Line rate per direction = Gb/s x 1e9 / 8 bytes/s.
  const struct {
    const char* key;
    double gbps;
    bool rdma;
    std::uint32_t lanes;
  } parts[] = {{"intel-x710-da2-10g", 10, false, 8},   {"connectx-4-lx-10g", 10, true, 8},
               {"connectx-4-lx-25g", 25, true, 8},     {"connectx-3-pro-40g", 40, true, 8},
               {"intel-xl710-qda2-40g", 40, false, 8}, {"omnipath-100-hfi", 100, true, 16}};
  for (const auto& p : parts) {
    INFO(p.key);
    const NicModel& n = builtin().nic(p.key);
    CHECK(n.port_speed.bytes_per_s == Approx(p.gbps * 1e9 / 8));
    CHECK(n.rdma == p.rdma);
    CHECK(n.pcie_gen == "gen3");
    CHECK(n.pcie_lanes == p.lanes);
    CHECK_THAT(n.source, Catch::Contains("product brief"));
    // Each one carries a cluster: the port resource has the line rate, and NET paths pick the transport the part
    // supports (NetIB for RoCE / OPA verbs, NetSocket without RDMA).
    Json j = cluster_json();
    j["host_templates"]["h"]["gpus"][0]["model"] = j["host_templates"]["h"]["gpus"][1]["model"] = "a100-pcie-40gb";
    j["host_templates"]["h"]["nics"][0]["model"] = p.key;
    const Cluster c = Cluster::from_json(j, "t.json", builtin());
    CHECK(c.resources()[*c.find_resource("host0/nic0/port0/tx")].capacity.bytes_per_s == Approx(p.gbps * 1e9 / 8));
    CHECK(c.path(0, 2, PathOptions{}).transport == (p.rdma ? Transport::NetIB : Transport::NetSocket));
  }
}

TEST_CASE("load_default adds the user directories after the built-in catalog", "[catalog][user]") {
  const fs::path dir = make_dir("user-dirs", {{"mine.json", user_models()}});
  Catalog::set_user_dirs({dir.string()});
  const Catalog c = Catalog::load_default();
  Catalog::set_user_dirs({});
  CHECK(c.nics().count("test-nic-50g") == 1);
  CHECK(c.origin("nics", "test-nic-50g") == (dir / "mine.json").string() + " $.nics[0]");
  CHECK(Catalog::load_default().nics().count("test-nic-50g") == 0);
  fs::remove_all(dir);
}

TEST_CASE("a symbolic-link loop in a catalog directory is an input error naming it, not a crash", "[catalog][user]") {
  // Issue 40: `--catalog DIR` with a link loop inside exited 1 ("filesystem error: Too many levels of symbolic links").
  const fs::path dir = fs::temp_directory_path() / ("vgsim-catalog-loop-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink("b", dir / "a");  // not *.json: not a catalog file, skipped
  fs::create_symlink("a", dir / "b");
  Catalog c = builtin();
  CHECK_NOTHROW(c.add_dir(dir.string()));
  fs::create_symlink("y.json", dir / "x.json");  // a *.json entry that cannot be resolved
  fs::create_symlink("x.json", dir / "y.json");
  try {
    c.add_dir(dir.string());
    FAIL("a looping x.json was accepted");
  } catch (const InputError& e) {
    // Either link of the loop may be listed first; the message names the file it met.
    const std::string what = e.what();
    CHECK((what.find("/x.json") != std::string::npos || what.find("/y.json") != std::string::npos));
    CHECK_THAT(what, Catch::Contains("cannot be read"));
  }
  fs::remove_all(dir);
}

TEST_CASE("a GPU without memory and vGPU frame buffers that do not fit the GPU are refused", "[catalog][user]") {
  // Issue 40: a catalog GPU with "memory": "0GiB" trained, a 0 GiB vGPU frame buffer was accepted, and two 30 GiB
  // vGPUs (or one 80 GiB profile) were accepted on a 40 GiB A100. Expectation: max_per_gpu x framebuffer <= memory (the
  // rule NVIDIA's tables follow: max_per_gpu = the GPU's frame buffer / the profile's).
  // A one-profile vGPU table for test-gpu.
  auto vgpu_table = [](const char* name, const char* framebuffer, int max_per_gpu) {
    return [=](Json& m) {
      m["gpus"][0]["vgpu"] = "t";
      m["vgpu_tables"]["t"] = {
          {"source", "test"},
          {"profiles", Json::array({{{"name", name}, {"framebuffer", framebuffer}, {"max_per_gpu", max_per_gpu}}})}};
    };
  };
  const std::vector<std::tuple<std::string, std::function<void(Json&)>, std::string>> breaks = {
      {"memory 0", [](Json& m) { m["gpus"][0]["memory"] = "0GiB"; }, "$.gpus[0].memory"},
      {"frame buffer 0", vgpu_table("T-0C", "0", 1), "framebuffer"},
      {"2 x 30 GiB on 24 GiB", vgpu_table("T-30C", "30GiB", 2), "does not fit"},
      {"one 80 GiB profile on 24 GiB", vgpu_table("T-80C", "80GiB", 1), "does not fit"},
  };
  for (const auto& [what, brk, expect] : breaks) {
    INFO(what);
    Json models = user_models();  // test-gpu has 24 GiB
    brk(models);
    const fs::path dir = make_dir("fit", {{"mine.json", models}});
    const std::string msg = message_of([&] {
      Catalog c = builtin();
      c.add_dir(dir.string());
    });
    CHECK_THAT(msg, Catch::Contains(expect));
    fs::remove_all(dir);
  }
  // A table that fits is accepted: 2 x 12 GiB = 24 GiB.
  Json models = user_models();
  vgpu_table("T-12C", "12GiB", 2)(models);
  const fs::path dir = make_dir("fits", {{"mine.json", models}});
  Catalog c = builtin();
  CHECK_NOTHROW(c.add_dir(dir.string()));
  fs::remove_all(dir);
}
