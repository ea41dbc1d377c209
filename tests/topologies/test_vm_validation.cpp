// Validation of "hypervisor" and "vms": one test per kind of error. Each error must be an InputError naming the file,
// the JSON path, the bad value and what was expected (rules: NVIDIA vGPU/MIG user guides, docs/SOURCES.md#mig-vgpu).
// GCC 12 reports a false -Wrestrict inside std::operator+(const char*, std::string&&) (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <catch2/catch.hpp>

#include "default_catalog.hpp"
#include "vgsim/topologies/cluster.hpp"

using namespace vgsim;
using namespace vgsim::topo;

using vgsim::topo::test::cat;

namespace {

// One host, two bridged A100 PCIe 40GB on socket 0 and a NIC; `vms` go on the host template.
Json with_vms(const std::string& vms, const std::string& hypervisor = R"({"type": "esxi-7.0.3"})") {
  Json j = Json::parse(R"({
    "name": "t", "host_templates": {"h": {
      "cpu": "xeon-gold-6338", "sockets": 2,
      "gpus": [{"name": "gpu0", "model": "a100-pcie-40gb", "attach": "socket0"},
               {"name": "gpu1", "model": "a100-pcie-40gb", "attach": "socket0"}],
      "nvlink_bridges": [["gpu0", "gpu1"]],
      "nics": [{"name": "nic0", "model": "connectx-6-dx-100g", "ports": 2, "attach": "socket0"}]}},
    "hosts": [{"template": "h"}]})");
  if (!hypervisor.empty()) j["host_templates"]["h"]["hypervisor"] = Json::parse(hypervisor);
  j["host_templates"]["h"]["vms"] = Json::parse(vms);
  return j;
}

std::string vm(const std::string& name, const std::string& gpus, const std::string& extra = "") {
  return R"({"name": ")" + name + R"(", "vcpus": 8, "memory": "16GiB", "gpus": [)" + gpus + "]" + extra + "}";
}
std::string vgpu(const std::string& g, const std::string& p) {
  return R"({"gpu": ")" + g + R"(", "mode": "vgpu", "profile": ")" + p + R"("})";
}
std::string mig(const std::string& g, const std::string& p, int at) {
  return R"({"gpu": ")" + g + R"(", "mode": "mig", "profile": ")" + p + R"(", "placement": )" + std::to_string(at) +
         "}";
}

std::string error_of(const Json& j) {
  try {
    Cluster::from_json(j, "bad.json", cat());
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}
}  // namespace

TEST_CASE("a valid VM layout loads", "[validation][virt]") {
  const Cluster c = Cluster::from_json(
      with_vms("[" + vm("a", vgpu("gpu0", "A100-20C")) + "," + vm("b", vgpu("gpu0", "A100-20C")) + "," +
               vm("c", mig("gpu1", "4g.20gb", 0)) + "," + vm("d", mig("gpu1", "3g.20gb", 4)) + "]"),
      "ok.json", cat());
  CHECK(c.vms().size() == 4);
  CHECK(c.endpoints().size() == 4);
}

TEST_CASE("whole-GPU passthrough to two VMs", "[validation][virt]") {
  const std::string e = error_of(with_vms("[" + vm("a", R"({"gpu": "gpu0", "mode": "passthrough"})") + "," +
                                          vm("b", R"({"gpu": "gpu0", "mode": "passthrough"})") + "]"));
  CHECK_THAT(e, Catch::Contains("bad.json"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[1].gpus[0]"));
  CHECK_THAT(e, Catch::Contains("passed through whole"));
  CHECK_THAT(e, Catch::Contains("gpu0"));
  // Passthrough plus a vGPU on the same GPU is the same error.
  CHECK_THAT(error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-20C")) + "," +
                               vm("b", R"({"gpu": "gpu0", "mode": "passthrough"})") + "]")),
             Catch::Contains("passed through whole"));
}

TEST_CASE("unknown vGPU profile for the GPU model, with a did-you-mean", "[validation][virt]") {
  const std::string e = error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-20Q")) + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[0].gpus[0].profile"));
  CHECK_THAT(e, Catch::Contains("A100-20Q"));
  CHECK_THAT(e, Catch::Contains("no such vGPU profile for GPU model a100-pcie-40gb"));
  CHECK_THAT(e, Catch::Contains("did you mean 'A100-20C'"));
  // An 80GB-only profile on the 40GB part.
  CHECK_THAT(error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-80C")) + "]")), Catch::Contains("one of: A100-4C"));
}

TEST_CASE("too many time-sliced vGPUs on one GPU", "[validation][virt]") {
  // A100-20C: 40 GiB / 20 GiB = at most 2 per GPU (NVIDIA vGPU table).
  std::string vms = "[";
  for (int i = 0; i < 3; ++i) vms += std::string(i ? "," : "") + vm("v" + std::to_string(i), vgpu("gpu0", "A100-20C"));
  const std::string e = error_of(with_vms(vms + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[2].gpus[0]"));
  CHECK_THAT(e, Catch::Contains("too many time-sliced vGPUs"));
  CHECK_THAT(e, Catch::Contains("at most 2 A100-20C"));
  // A100-4C: at most 10 per A100 40GB (docs/SOURCES.md#mig-vgpu: up to 10 time-sliced VMs per A100); 11 fail, 10 load.
  std::string ten = "[";
  for (int i = 0; i < 10; ++i) ten += std::string(i ? "," : "") + vm("v" + std::to_string(i), vgpu("gpu0", "A100-4C"));
  CHECK(Cluster::from_json(with_vms(ten + "]"), "ok.json", cat()).endpoints().size() == 10);
  CHECK_THAT(error_of(with_vms(ten + "," + vm("v10", vgpu("gpu0", "A100-4C")) + "]")), Catch::Contains("at most 10"));
}

TEST_CASE("time-sliced vGPUs of different profiles on one GPU", "[validation][virt]") {
  const std::string e =
      error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-20C")) + "," + vm("b", vgpu("gpu0", "A100-10C")) + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[1].gpus[0].profile"));
  CHECK_THAT(e, Catch::Contains("different profiles"));
  CHECK_THAT(e, Catch::Contains("A100-10C"));
  CHECK_THAT(e, Catch::Contains("\"A100-20C\" like the first vGPU"));
}

TEST_CASE("MIG: a placement that is not one of the profile's start slots", "[validation][virt][mig]") {
  // 3g.20gb starts at slot 0 or 4 only (MIG User Guide placements).
  const std::string e = error_of(with_vms("[" + vm("a", mig("gpu0", "3g.20gb", 2)) + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[0].gpus[0].placement"));
  CHECK_THAT(e, Catch::Contains("invalid MIG placement for 3g.20gb"));
  CHECK_THAT(e, Catch::Contains("one of the profile's start slots: 0, 4"));
}

TEST_CASE("MIG: overlapping placements", "[validation][virt][mig]") {
  // 3g.20gb@0 holds memory slices 0-3; 2g.10gb@2 wants 2-3.
  const std::string e =
      error_of(with_vms("[" + vm("a", mig("gpu0", "3g.20gb", 0)) + "," + vm("b", mig("gpu0", "2g.10gb", 2)) + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[1].gpus[0].placement"));
  CHECK_THAT(e, Catch::Contains("overlapping MIG placements"));
  CHECK_THAT(e, Catch::Contains("slot 2 is already used by 3g.20gb@0"));
}

TEST_CASE("MIG: too many instances", "[validation][virt][mig]") {
  // Eight 1g.5gb on an A100: at most 7 (A4 table).
  std::string vms = "[";
  for (int i = 0; i < 8; ++i)
    vms += std::string(i ? "," : "") + vm("m" + std::to_string(i), mig("gpu0", "1g.5gb", i % 7));
  const std::string e = error_of(with_vms(vms + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[7].gpus[0]"));
  CHECK_THAT(e, Catch::Contains("too many 1g.5gb MIG instances"));
  CHECK_THAT(e, Catch::Contains("at most 7"));
  // 4g + 2g + 2g = 8 compute slices > 7.
  const std::string s =
      error_of(with_vms("[" + vm("a", mig("gpu0", "4g.20gb", 0)) + "," + vm("b", mig("gpu0", "2g.10gb", 4)) + "," +
                        vm("c", mig("gpu0", "2g.10gb", 0)) + "]"));
  CHECK_THAT(s, Catch::Contains("8 compute slices"));
  CHECK_THAT(s, Catch::Contains("$.host_templates.h.vms[2].gpus[0]"));
}

TEST_CASE("MIG and time-sliced vGPUs on the same GPU", "[validation][virt][mig]") {
  const std::string e =
      error_of(with_vms("[" + vm("a", mig("gpu0", "3g.20gb", 0)) + "," + vm("b", vgpu("gpu0", "A100-20C")) + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[1].gpus[0]"));
  CHECK_THAT(e, Catch::Contains("MIG instances and time-sliced vGPUs on the same GPU"));
}

TEST_CASE("multi-vGPU VM with a fractional or MIG profile", "[validation][virt]") {
  const std::string e =
      error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-20C") + "," + vgpu("gpu1", "A100-20C")) + "]"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms[0].gpus[0].profile"));
  CHECK_THAT(e, Catch::Contains("multi-vGPU VM"));
  CHECK_THAT(e, Catch::Contains("full-framebuffer"));
  CHECK_THAT(error_of(with_vms("[" + vm("a", mig("gpu0", "3g.20gb", 0) + "," + mig("gpu1", "3g.20gb", 0)) + "]")),
             Catch::Contains("with a MIG profile"));
  // Full-framebuffer profiles on both GPUs are fine.
  CHECK_NOTHROW(Cluster::from_json(
      with_vms("[" + vm("a", vgpu("gpu0", "A100-40C") + "," + vgpu("gpu1", "A100-40C")) + "]"), "ok.json", cat()));
}

TEST_CASE("VMs without a hypervisor, and vGPUs under hypervisor none", "[validation][virt]") {
  const std::string e = error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-40C")) + "]", ""));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.vms"));
  CHECK_THAT(e, Catch::Contains("VMs need a hypervisor"));
  const std::string n = error_of(with_vms("[" + vm("a", vgpu("gpu0", "A100-40C")) + "]", R"({"type": "none"})"));
  CHECK_THAT(n, Catch::Contains("$.host_templates.h.vms[0].gpus[0].mode"));
  CHECK_THAT(n, Catch::Contains("needs a hypervisor"));
}

TEST_CASE("bad hypervisor type and parameters", "[validation][virt]") {
  const std::string e = error_of(with_vms("[]", R"({"type": "esx"})"));
  CHECK_THAT(e, Catch::Contains("$.host_templates.h.hypervisor.type"));
  CHECK_THAT(e, Catch::Contains("esxi-7.0.3"));
  const std::string p = error_of(with_vms("[]", R"({"type": "kvm", "no_ats_p2p_efficiency": 1.5})"));
  CHECK_THAT(p, Catch::Contains("$.host_templates.h.hypervisor.no_ats_p2p_efficiency"));
  const std::string u = error_of(with_vms("[]", R"({"type": "kvm", "pvrdma_latncy": "5us"})"));
  CHECK_THAT(u, Catch::Contains("did you mean 'pvrdma_latency'"));
}

TEST_CASE("dangling GPU and NIC references, bad port, bad NIC mode, duplicated VM name", "[validation][virt]") {
  const std::string g = error_of(with_vms("[" + vm("a", R"({"gpu": "gpu9", "mode": "passthrough"})") + "]"));
  CHECK_THAT(g, Catch::Contains("$.host_templates.h.vms[0].gpus[0].gpu"));
  CHECK_THAT(g, Catch::Contains("no GPU named 'gpu9'"));
  CHECK_THAT(g, Catch::Contains("did you mean 'gpu0'"));
  const std::string n = error_of(with_vms("[" + vm("a", "", R"(, "nic": {"nic": "nic1", "mode": "sriov"})") + "]"));
  CHECK_THAT(n, Catch::Contains("$.host_templates.h.vms[0].nic.nic"));
  CHECK_THAT(n, Catch::Contains("did you mean 'nic0'"));
  const std::string p =
      error_of(with_vms("[" + vm("a", "", R"(, "nic": {"nic": "nic0", "port": 2, "mode": "sriov"})") + "]"));
  CHECK_THAT(p, Catch::Contains("$.host_templates.h.vms[0].nic.port"));
  CHECK_THAT(p, Catch::Contains("below 2"));
  const std::string m = error_of(with_vms("[" + vm("a", "", R"(, "nic": {"nic": "nic0", "mode": "vmxnet"})") + "]"));
  CHECK_THAT(m, Catch::Contains("$.host_templates.h.vms[0].nic.mode"));
  CHECK_THAT(m, Catch::Contains("vmxnet3"));
  const std::string d = error_of(with_vms("[" + vm("a", "") + "," + vm("a", "") + "]"));
  CHECK_THAT(d, Catch::Contains("$.host_templates.h.vms[1].name"));
  CHECK_THAT(d, Catch::Contains("duplicated VM name"));
}

TEST_CASE("host-level vms replace the template's and report the host's JSON path", "[validation][virt]") {
  Json j = with_vms("[" + vm("a", vgpu("gpu0", "A100-40C")) + "]");
  j["hosts"][0]["vms"] = Json::parse("[" + vm("b", mig("gpu0", "3g.20gb", 1)) + "]");
  const std::string e = error_of(j);
  CHECK_THAT(e, Catch::Contains("$.hosts[0].vms[0].gpus[0].placement"));
  j["hosts"][0]["vms"] = Json::parse("[" + vm("b", mig("gpu0", "3g.20gb", 4)) + "]");
  const Cluster c = Cluster::from_json(j, "ok.json", cat());
  REQUIRE(c.endpoints().size() == 1);
  CHECK(c.endpoints()[0].name == "host0/b/gpu0/3g.20gb@4");
}
