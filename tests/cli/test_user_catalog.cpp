// User catalogs end to end: a cluster file's inline "catalog" and `--catalog DIR` give the same collective; commands
// that load a job (params, sweep points, train) take them too; a key that collides with the built-in catalog exits 2
// naming both files; a collective over the new 10 GbE part is slower than over 25 GbE by the line-rate ratio at large
// sizes.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "vgsim/kernel/json_input.hpp"

namespace {

namespace fs = std::filesystem;

using Run = vgsim::test::CliRun;
using vgsim::test::run_vgsim;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("vgsim-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const vgsim::Json& j) { std::ofstream(p) << j.dump(2); }

// The r750xa-2x-25gbe preset with its NIC model replaced.
vgsim::Json preset_with_nic(const std::string& nic) {
  vgsim::Json j = vgsim::load_json_file(std::string(VGSIM_DATA_DIR) + "/topologies/presets/r750xa-2x-25gbe.json");
  j["host_templates"]["r750xa"]["nics"][0]["model"] = nic;
  return j;
}

// A NIC the built-in catalog lacks.
vgsim::Json user_nic() {
  return vgsim::Json::parse(R"({"key": "test-nic-50g", "display_name": "Test 50GbE", "ports": 2,
    "port_speed": "50Gbps", "pcie": {"gen": "gen4", "lanes": 16}, "rdma": true, "source": "test entry"})");
}

vgsim::Json rows_of(const fs::path& json) { return vgsim::load_json_file(json.string())["rows"]; }

// The same user NIC two ways in `d`: inline.json defines it in its "catalog", plain.json names it and cat/mine.json
// (for --catalog) defines it.
void write_both_ways(const fs::path& d) {
  vgsim::Json with_inline = preset_with_nic("test-nic-50g");
  with_inline["catalog"] = {{"nics", vgsim::Json::array({user_nic()})}};
  write(d / "inline.json", with_inline);
  write(d / "plain.json", preset_with_nic("test-nic-50g"));
  fs::create_directories(d / "cat");
  write(d / "cat" / "mine.json", {{"nics", vgsim::Json::array({user_nic()})}});
}

}  // namespace

TEST_CASE("an inline NIC and the same NIC in --catalog DIR give the same collective", "[catalog][user]") {
  const fs::path d = scratch("user-catalog-cli");
  write_both_ways(d);

  const std::string sizes = " --nodes 2 --gpus-per-node 1 -b 1K -e 64M -f 8 --json ";
  const Run a = run_vgsim("collective --cluster " + (d / "inline.json").string() + sizes + (d / "a.json").string());
  REQUIRE(a.status == 0);
  const Run b = run_vgsim("collective --cluster " + (d / "plain.json").string() + " --catalog " + (d / "cat").string() +
                          sizes + (d / "b.json").string());
  REQUIRE(b.status == 0);
  CHECK(rows_of(d / "a.json") == rows_of(d / "b.json"));
  CHECK(rows_of(d / "a.json").size() == 6);  // 1K, 8K, ..., 32M: 8^k x 1K <= 64M for k = 0..5
  // Without the directory the plain cluster names a model the catalog lacks.
  const Run c = run_vgsim("collective --cluster " + (d / "plain.json").string() + sizes + (d / "c.json").string());
  CHECK(c.status == 2);
  CHECK(c.out.find("test-nic-50g") != std::string::npos);

  // Commands that resolve a training job take both ways too (the plain cluster alone exits 2, as above).
  for (const std::string& cl : {"--cluster " + (d / "inline.json").string(),
                                "--cluster " + (d / "plain.json").string() + " --catalog " + (d / "cat").string()}) {
    const Run p = run_vgsim("params " + cl + " --workload resnet50");
    CHECK(p.status == 0);
    CHECK(p.out.find("cluster = r750xa-2x-25gbe") != std::string::npos);
  }
  fs::remove_all(d);
}

TEST_CASE("sweep points take inline models and --catalog alike", "[catalog][user]") {
  // One plan, two points: the cluster with the NIC inline, and without it under --catalog; same design, same row.
  const fs::path d = scratch("user-catalog-sweep");
  write_both_ways(d);
  write(d / "plan.json",
        {{"name", "p"},
         {"fidelity", "analytical"},
         {"base", {{"workload", "resnet50"}, {"nodes", 2}, {"gpus_per_node", 1}, {"batch_per_gpu", 64}}},
         {"list",
          {{{"label", "a"}, {"cluster", (d / "inline.json").string()}},
           {{"label", "b"}, {"cluster", (d / "plain.json").string()}}}}});
  const Run r = run_vgsim("sweep " + (d / "plan.json").string() + " --jobs 1 --catalog " + (d / "cat").string() +
                          " --out " + (d / "r.csv").string());
  REQUIRE(r.status == 0);
  std::ifstream csv(d / "r.csv");
  std::string header, a, b;
  std::getline(csv, header);
  std::getline(csv, a);
  std::getline(csv, b);
  // From the "ranks" column on, the rows are equal (before it: index, id, label and the cluster file differ).
  const auto from = header.find(",ranks,");
  REQUIRE(from != std::string::npos);
  auto tail = [&](const std::string& row) {
    std::size_t commas = 0, at = 0;
    for (char ch : header.substr(0, from + 1)) commas += ch == ',';
    for (; at < row.size() && commas; ++at) commas -= row[at] == ',';
    return row.substr(at);
  };
  CHECK(tail(a) == tail(b));
  CHECK(tail(a).find("host0/nic0/port0/") != std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("--catalog is repeatable and takes one directory per occurrence", "[catalog][user]") {
  const fs::path d = scratch("user-catalog-two");
  vgsim::Json gpu = vgsim::load_json_file(std::string(VGSIM_DATA_DIR) + "/topologies/catalog/gpus.json")["gpus"][0];
  gpu["key"] = "test-gpu";
  fs::create_directories(d / "g");
  fs::create_directories(d / "n");
  write(d / "g" / "g.json", {{"gpus", vgsim::Json::array({gpu})}});
  write(d / "n" / "n.json", {{"nics", vgsim::Json::array({user_nic()})}});
  vgsim::Json cl = preset_with_nic("test-nic-50g");
  for (auto& g : cl["host_templates"]["r750xa"]["gpus"]) g["model"] = "test-gpu";
  write(d / "c.json", cl);
  const Run r = run_vgsim("collective --catalog " + (d / "g").string() + " --catalog " + (d / "n").string() +
                          " --cluster " + (d / "c.json").string() + " -b 1M -e 1M");
  CHECK(r.status == 0);
  const Run p = run_vgsim("params --catalog " + (d / "g").string() + " --cluster " + (d / "c.json").string() +
                          " --catalog " + (d / "n").string() + " --workload resnet50");
  CHECK(p.status == 0);
  CHECK(p.out.find("gpu.model = test-gpu") != std::string::npos);
  // The same two models inline.
  cl["catalog"] = {{"gpus", vgsim::Json::array({gpu})}, {"nics", vgsim::Json::array({user_nic()})}};
  write(d / "i.json", cl);
  const Run pi = run_vgsim("params --cluster " + (d / "i.json").string() + " --workload resnet50");
  CHECK(pi.status == 0);
  CHECK(pi.out.find("gpu.model = test-gpu") != std::string::npos);
  const Run bad =
      run_vgsim("collective --catalog " + (d / "missing").string() + " --cluster r750xa-2x-25gbe -b 1M -e 1M");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--catalog") != std::string::npos);
  CHECK(bad.out.find("not a directory") != std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("a catalog key that collides with a built-in entry exits 2 naming both files", "[catalog][user]") {
  const fs::path d = scratch("user-catalog-collide");
  const std::string builtin = std::string(VGSIM_DATA_DIR) + "/topologies/catalog/nics.json";
  vgsim::Json nics = vgsim::load_json_file(builtin);
  for (auto& n : nics["nics"])
    if (n["key"] == "connectx-6-dx-25g") n["port_speed"] = "50Gbps";  // a silent shadow would double the NIC
  fs::create_directories(d / "cat");
  write(d / "cat" / "nics.json", nics);
  const Run r = run_vgsim("collective --cluster r750xa-2x-25gbe --catalog " + (d / "cat").string() + " -b 1M -e 1M");
  CHECK(r.status == 2);
  CHECK(r.out.find((d / "cat" / "nics.json").string() + ": $.nics[") != std::string::npos);
  CHECK(r.out.find("connectx-6-dx-25g") != std::string::npos);
  CHECK(r.out.find("already defined in " + builtin) != std::string::npos);

  // Inline: the cluster file and the built-in file.
  vgsim::Json cl = preset_with_nic("connectx-6-dx-25g");
  vgsim::Json changed = user_nic();
  changed["key"] = "connectx-6-dx-25g";
  cl["catalog"] = {{"nics", vgsim::Json::array({changed})}};
  write(d / "c.json", cl);
  const Run i = run_vgsim("train --cluster " + (d / "c.json").string() + " --workload resnet50");
  CHECK(i.status == 2);
  CHECK(i.out.find((d / "c.json").string() + ": $.catalog.nics[0].key") != std::string::npos);
  CHECK(i.out.find("already defined in " + builtin) != std::string::npos);

  // An unchanged copy of the built-in catalog is no collision.
  write(d / "cat" / "nics.json", vgsim::load_json_file(builtin));
  CHECK(run_vgsim("collective --cluster r750xa-2x-25gbe --catalog " + (d / "cat").string() + " -b 1M -e 1M").status ==
        0);
  fs::remove_all(d);
}

TEST_CASE("allreduce over 10 GbE takes the line-rate ratio longer than over 25 GbE at large sizes", "[catalog][user]") {
  // Two hosts, one GPU each, ConnectX-4 Lx 10 GbE vs 25 GbE (same card family: PCIe Gen3 x8, RoCE), GPUDirect RDMA
  // on both sides (--gdr-level PHB: the R750xa's GPU0 and NIC share socket 0), so no host-staging term adds a
  // per-byte cost common to both. A ring allreduce of S bytes over n = 2 ranks moves 2(n-1)/n x S = S bytes over
  // each NIC port direction, so
  //   t = alpha + S / (eta x line rate),
  // with the same eta for both parts (same PCIe link, same protocol) and alpha (latency) of tens of us. At S = 256 MiB,
  // S / (25 Gb/s) = 268e6 / 3.125e9 = 86 ms, so alpha / t < 1e-3 and
  //   t10 / t25 = 25 / 10 = 2.5 (within 2 %),
  // and the 25 GbE busbw is at most its line rate, 3.125 GB/s.
  const fs::path d = scratch("user-catalog-10g");
  write(d / "c10.json", preset_with_nic("connectx-4-lx-10g"));
  write(d / "c25.json", preset_with_nic("connectx-4-lx-25g"));
  const std::string args = " --nodes 2 --gpus-per-node 1 --gdr-level PHB -b 256M -e 256M --json ";
  REQUIRE(run_vgsim("collective --cluster " + (d / "c10.json").string() + args + (d / "r10.json").string()).status ==
          0);
  REQUIRE(run_vgsim("collective --cluster " + (d / "c25.json").string() + args + (d / "r25.json").string()).status ==
          0);
  const vgsim::Json r10 = rows_of(d / "r10.json"), r25 = rows_of(d / "r25.json");
  REQUIRE(r10.size() == 1);
  REQUIRE(r25.size() == 1);
  const double t10 = r10[0]["time_us"].get<double>(), t25 = r25[0]["time_us"].get<double>();
  CHECK(t10 / t25 == Approx(2.5).epsilon(0.02));
  CHECK(r25[0]["busbw_GBps"].get<double>() <= 3.125);
  CHECK(r25[0]["busbw_GBps"].get<double>() > 0.8 * 3.125);  // the NIC, not something else, limits it
  fs::remove_all(d);
}
