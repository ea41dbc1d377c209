// One name per parameter (issue 14): `vgsim params` lists exactly the names --set accepts. For three jobs (Horovod on
// bare metal, DDP on an NVLink box, time-sliced vGPUs in VMs) every listed parameter is set to a value its declaration
// accepts, all in one run, which must succeed and list each parameter with that value and "--set" as its source; the
// job's facts (catalog, cluster, derived values) are listed as comments only and --set refuses them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"

using vgsim::test::run_vgsim;
using Json = nlohmann::json;

namespace {

// A value the declaration accepts: the listed one, or for an unset optional its lower bound (1 for the counts,
// min + 1 when the bound is open).
std::string value_for(const Json& p) {
  const Json& v = p.at("value");
  if (!v.is_null()) return v.is_string() ? v.get<std::string>() : v.dump();
  if (p.contains("min") && p.at("type") == "integer") return std::to_string(p.at("min").get<long long>());
  if (p.contains("min")) return Json(p.at("min")).dump();
  if (p.contains("above")) return Json(p.at("above").get<double>() + 1.0).dump();
  FAIL("no value for " << p.dump());
  return "";
}

Json listing(const std::string& job, const std::string& sets) {
  const auto r = run_vgsim("params " + job + " --json" + sets);
  INFO(r.out.substr(0, 2000));
  REQUIRE(r.status == 0);
  return Json::parse(r.out);
}

}  // namespace

TEST_CASE("vgsim params lists exactly what --set accepts, and every listed parameter can be set") {
  for (const std::string& job : {std::string("--scenario seed-rn50-4x4-100gbe-gdr"),
                                 std::string("--cluster dgx-a100 --workload bert_large --set framework=ddp"),
                                 std::string("--cluster r750xa-vm-vgpu-2x20c --workload resnet50")}) {
    INFO(job);
    const Json before = listing(job, "");
    const Json& params = before.at("parameters");
    // Every registry family is present: settings, compute, NCCL knobs and constants, capacity scales, vGPU, sim.
    REQUIRE(params.size() > 190);
    std::string sets;
    std::map<std::string, std::string> wanted;
    for (const auto& p : params) {
      const std::string name = p.at("name"), value = value_for(p);
      sets += " --set '" + name + "=" + value + "'";
      wanted[name] = value;
    }
    const Json after = listing(job, sets);
    REQUIRE(after.at("parameters").size() == params.size());
    for (const auto& p : after.at("parameters")) {
      const std::string name = p.at("name");
      INFO(name);
      REQUIRE(wanted.count(name) == 1);
      // Set values read back as given (times and sizes re-printed in their unit; numbers compared as numbers).
      const Json& v = p.at("value");
      if (v.is_number()) CHECK(v.get<double>() == Approx(std::stod(wanted[name])));
      if (v.is_boolean()) CHECK(v.dump() == wanted[name]);
      if (v.is_string() && name != "nccl.version" && name.find("time") == std::string::npos &&
          name.find("threshold") == std::string::npos && name.find("cost") == std::string::npos)
        CHECK(v.get<std::string>() == wanted[name]);
      if (name != "nccl.version") CHECK(p.at("source").get<std::string>().find("--set") != std::string::npos);
    }
    // Facts are listed apart and refused by --set, with the name it resembles when there is one.
    for (const auto& f : before.at("facts")) {
      const std::string name = f.at("name");
      const auto r = run_vgsim("params " + job + " --set '" + name + "=1'");
      INFO(name << ": " << r.out);
      CHECK(r.status == 2);
      CHECK(r.out.find("unknown parameter") != std::string::npos);
    }
  }
}

TEST_CASE("vgsim params text form: parameters as name = value, facts as comments; old prefixed names refused") {
  auto r = run_vgsim("params --scenario seed-rn50-4x4-100gbe-gdr --set compute.nccl_sm_per_channel=2");
  REQUIRE(r.status == 0);
  r.out = "\n" + r.out;
  // Horovod with the scenario's 5 ms cycle default (training_settings.hpp), batch 1024 from the scenario file.
  CHECK(r.out.find("\nhorovod.cycle_time = 5.000 ms  # ") != std::string::npos);
  CHECK(r.out.find("\nbatch_per_gpu = 1024  # scenario seed-rn50-4x4-100gbe-gdr") != std::string::npos);
  const auto sm = r.out.find("\ncompute.nccl_sm_per_channel = 2  # scenario seed-rn50-4x4-100gbe-gdr");
  REQUIRE(sm != std::string::npos);
  CHECK(r.out.substr(sm, r.out.find('\n', sm + 1) - sm).find(" / --set") != std::string::npos);
  CHECK(r.out.find("\n#   gpu.sms = 108  # catalog a100-pcie-40gb") != std::string::npos);
  CHECK(r.out.find("\ngpu.sms") == std::string::npos);
  const auto old = run_vgsim("params --scenario seed-rn50-4x4-100gbe-gdr --set settings.batch_per_gpu=8");
  CHECK(old.status == 2);
  CHECK(old.out.find("did you mean 'batch_per_gpu'") != std::string::npos);
  const auto typo = run_vgsim("params --scenario seed-rn50-4x4-100gbe-gdr --set compute.eff_compte=0.5");
  CHECK(typo.status == 2);
  CHECK(typo.out.find("did you mean 'compute.eff_compute'") != std::string::npos);
  const auto range = run_vgsim("params --scenario seed-rn50-4x4-100gbe-gdr --set compute.eff_compute=1.5");
  CHECK(range.status == 2);
  CHECK(range.out.find("a number in (0, 1]") != std::string::npos);
}
