// Virtualization in training and inference: shared vGPUs between jobs, VM vs bare metal, GPUDirect, the MIG
// relative-speed table (docs/SOURCES.md#mig-vgpu), MIG inference layouts, assumptions in every report, bad input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <sstream>

#include "catalog.hpp"
#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/inference/inference.hpp"
#include "vgsim/sim/jobs/multi_job.hpp"
#include "vgsim/sim/training/report.hpp"
#include "vgsim/sim/virtualization/assumptions.hpp"

using namespace vgsim;
using namespace vgsim::sim;

namespace {
using test::catalog;
training::JobSpec spec(const std::string& cluster, std::vector<std::string> endpoints, std::vector<std::string> sets,
                       int iterations = 3) {
  training::JobSpec s;
  s.cluster = cluster;
  s.workload = "resnet50";
  s.endpoints = std::move(endpoints);
  s.sets = std::move(sets);
  s.iterations = iterations;
  return s;
}
std::string data(const std::string& f) { return std::string(VGSIM_VIRT_TEST_DATA) + "/" + f; }
}  // namespace

TEST_CASE("two training jobs on two VMs sharing one GPU (A100-20C) each get about 1/2 minus switching",
          "[virt][jobs]") {
  // Each job alone: iteration t1. Together under any policy, each context gets (T - c) of every 2 T:
  //   t2 / t1 = 2 / (1 - c/T) = 2 / (1 - 50us/2ms) = 2.051 (to within one slice per iteration, 2 ms / ~370 ms).
  for (const char* pol : {"best_effort", "equal_share", "fixed_share"}) {
    virt::MultiJobSpec m;
    m.cluster = "r750xa-vm-vgpu-2x20c";
    m.names = {"a", "b"};
    m.jobs = {spec(m.cluster, {"host0/vm0/gpu0"}, {"batch_per_gpu=64", std::string("vgpu.scheduler=") + pol}, 6),
              spec(m.cluster, {"host0/vm1/gpu0"}, {"batch_per_gpu=64", std::string("vgpu.scheduler=") + pol}, 2)};
    const auto r = virt::run_jobs(m, catalog());
    const Time solo = training::simulate_training(training::with_ranks(r.jobs[0], 1, 1)).iterations.back().duration();
    const double expected = 2.0 / (1.0 - 50e-6 / 2e-3);
    // Job a, iteration 1 (b still running): about twice the time it takes with the GPU to itself under best effort.
    const training::TrainingJob alone_be =
        training::resolve_job(spec(m.cluster, {"host0/vm0/gpu0"}, {"batch_per_gpu=64"}, 1), catalog());
    const Time t1 = training::simulate_training(alone_be).iterations.back().duration();
    const double ratio =
        static_cast<double>(r.studies[0].result.iterations[1].duration().ps) / static_cast<double>(t1.ps);
    CHECK(ratio == Approx(expected).epsilon(0.02));
    // After b has ended (a's last iteration): best effort / equal share give a the whole GPU (= t1 within one switch);
    // fixed share keeps b's slot reserved (about 2 t1).
    const Time last = r.studies[0].result.iterations.back().duration();
    if (std::string(pol) == "fixed_share")
      CHECK(static_cast<double>(last.ps) / t1.ps == Approx(2.0).epsilon(0.02));
    else
      CHECK(static_cast<double>(last.ps) / t1.ps == Approx(1.0).epsilon(0.01));
    (void)solo;
  }
}

TEST_CASE("one job next to an idle VM: best effort gets the whole GPU, fixed share half", "[virt][jobs]") {
  // vm1 runs nothing. Best effort: t_be = compute (+ one switch). Fixed share: every other 2 ms slot stays reserved for
  // vm1, so t_fixed / t_be = 2 (within one slice).
  const auto be = training::simulate_training(training::resolve_job(
      spec("r750xa-vm-vgpu-2x20c", {"host0/vm0/gpu0"}, {"batch_per_gpu=64", "vgpu.scheduler=best_effort"}), catalog()));
  const auto fx = training::simulate_training(training::resolve_job(
      spec("r750xa-vm-vgpu-2x20c", {"host0/vm0/gpu0"}, {"batch_per_gpu=64", "vgpu.scheduler=fixed_share"}), catalog()));
  CHECK(be.iteration_time.s() == Approx(be.compute_time.s()).epsilon(0.001));
  CHECK(fx.iteration_time.s() / be.iteration_time.s() == Approx(2.0).epsilon(0.02));
}

TEST_CASE("GPUDirect RDMA on is never slower than off; bare metal never slower than a VM", "[virt][train]") {
  // GDR removes the host bounce; the VM adds compute_efficiency 0.98 and network latency: both can only add time.
  for (const char* model : {"resnet50", "vgg16"}) {
    auto job = [&](const std::string& cl, std::uint32_t nodes, std::uint32_t gpn, std::optional<bool> gdr_off) {
      training::JobSpec s;
      s.cluster = cl;
      s.workload = model;
      s.nodes = nodes;
      s.gpus_per_node = gpn;
      s.nccl.gdr_level = "PHB";
      s.nccl.gdr_disable = gdr_off;
      s.sets = {"batch_per_gpu=64"};
      return training::simulate_training(training::resolve_job(s, catalog())).samples_per_s;
    };
    const double vm_gdr = job("r750xa-vm-4x-100gbe-gdr", 4, 1, false);
    const double vm_nogdr = job("r750xa-vm-4x-100gbe-gdr", 4, 1, true);
    const double bare = job("r750xa-4x-100gbe", 4, 1, false);
    INFO(model << ": VM GDR " << vm_gdr << ", VM no GDR " << vm_nogdr << ", bare metal " << bare);
    CHECK(vm_gdr >= vm_nogdr);
    CHECK(bare >= vm_gdr);
    // The seed fact: a VM within about 2 % of bare metal (< 5 % in the Dell white paper) for ResNet-50.
    if (std::string(model) == "resnet50") CHECK(vm_gdr / bare > 0.95);
  }
}

TEST_CASE("MIG relative speed vs 7g.40gb against the MISO table (A4, A100-40GB, ResNet-50)", "[virt][mig]") {
  // The MISO rows are Keras ResNet-50 on CIFAR-10 (32x32): about 1/49 of the ImageNet FLOPs per sample (7x smaller
  // feature maps in each dimension). Our resnet50 is the ImageNet model, so a CIFAR batch b is run as the
  // FLOP-equivalent ImageNet batch round(b / 49). The model's default saturation (32 ImageNet samples, ~1,570 CIFAR
  // samples) is not what the CIFAR runs show, so u(batch) is fitted per row as A4 suggests ("fit u per model and batch
  // against this table"): ONE point per row, the 2g column, gives the saturation S = B * rel_2g / (28/108) (rel =
  // s/w with w = B/S while 2g is saturated and 7g is not). 1g, 3g and 4g are then predictions: within 15 %.
  // Rows bs 64 and 128 are not asserted: there the GPU is so under-filled that the 1g/3g speeds depend on per-kernel
  // launch/latency limits the roofline does not represent (bs 64: 3g at 1.00 but 1g at 0.58).
  struct Row {
    int bs;
    double rel[4];
  };  // 1g, 2g, 3g, 4g (docs/SOURCES.md#mig-vgpu)
  const std::vector<Row> rows = {{64, {0.58, 0.89, 1.00, 0.96}},
                                 {128, {0.46, 0.77, 0.93, 0.96}},
                                 {256, {0.32, 0.58, 0.85, 0.93}},
                                 {512, {0.22, 0.42, 0.65, 0.75}}};
  const char* prof[5] = {"1g", "2g", "3g", "4g", "7g"};
  std::printf(
      "MIG relative speed (A100-40GB, ResNet-50; MISO measured / vgsim predicted)\n  bs   ImageNet-eq  S     1g.5gb    "
      "   2g.10gb      3g.20gb      4g.20gb\n");
  for (const Row& row : rows) {
    const int B = std::max(1, static_cast<int>(row.bs / 49.0 + 0.5));
    const double S = B * row.rel[1] / (28.0 / 108.0);
    double t[5];
    for (int p = 0; p < 5; ++p) {
      training::JobSpec s;
      s.cluster = data(std::string("test-a100-40gb-mig-") + prof[p] + ".json");
      s.workload = "resnet50";
      s.iterations = 1;
      s.sets = {"batch_per_gpu=" + std::to_string(B), "compute.saturation=" + std::to_string(S)};
      t[p] = training::simulate_training(training::resolve_job(s, catalog())).iteration_time.s();
    }
    std::printf("  %-4d %-11d %-5.1f", row.bs, B, S);
    for (int p = 0; p < 4; ++p) std::printf(" %.2f / %.2f ", row.rel[p], t[4] / t[p]);
    std::printf("\n");
    if (row.bs < 256) continue;
    for (int p : {0, 2, 3}) {
      INFO("bs " << row.bs << " " << prof[p] << ": measured " << row.rel[p] << ", predicted " << t[4] / t[p]);
      CHECK(t[4] / t[p] == Approx(row.rel[p]).epsilon(0.15));
    }
  }
}

TEST_CASE("MIG inference layouts: 7 x 1g beats 1 x 7g at a small batch, not at a large one", "[virt][infer]") {
  // Small batch (2): a 7g instance is under-filled (u = 2 / (32 x 98/108) = 0.07), so its time is flat at the
  // saturation batch; seven 1g instances each run their own batch at u ~ 0.48: aggregate ~7x (the MIG collocation
  // study's "~3x aggregate for small jobs", A4, is the same effect on real kernels).
  // Large batch (256): everything is saturated; 7 x 14 SMs = 98 SMs = the 7g instance, but 7 x 1/8 memory slices <
  // 8/8, so 7g >= 7 x 1g (equal where compute-bound).
  auto agg = [](const std::string& preset, std::int64_t b) {
    virt::InferenceSpec s;
    s.cluster = preset;
    s.workload = "resnet50";
    s.batch = b;
    s.all_endpoints = true;
    s.batches = 5;
    return virt::simulate_inference(s, catalog()).aggregate_samples_per_s;
  };
  std::printf("MIG inference aggregate samples/s (resnet50): preset bs2 bs256\n");
  for (const char* p :
       {"r750xa-vm-mig-7g", "r750xa-vm-mig-2x3g", "r750xa-vm-mig-3x2g", "r750xa-vm-mig-7x1g", "r750xa-vm-mig-4g3g",
        "r750xa-vm-mig-4g2g1g", "r750xa-vm-mig-3g2g1g1g", "r750xa-vm-mig-2g2g2g1g"})
    std::printf("  %-24s %10.2f %10.2f\n", p, agg(p, 2), agg(p, 256));
  CHECK(agg("r750xa-vm-mig-7x1g", 2) > 3.0 * agg("r750xa-vm-mig-7g", 2));
  CHECK(agg("r750xa-vm-mig-7g", 256) >= agg("r750xa-vm-mig-7x1g", 256) * (1.0 - 1e-9));
}

TEST_CASE("every report states its virtualization assumptions", "[virt][report]") {
  for (const std::string cl :
       {"r750xa-4x-100gbe", "r750xa-vm-4x-100gbe-gdr", "r750xa-vm-mig-2x3g", "r750xa-vm-vgpu-2x20c"}) {
    training::JobSpec s;
    s.cluster = cl;
    s.workload = "resnet50";
    s.nodes = 1;
    s.gpus_per_node = 1;
    s.iterations = 1;
    const auto job = training::resolve_job(s, catalog());
    const auto study = training::simulate_study(job);
    const Json j = training::training_json(job, study);
    REQUIRE(j.contains("virtualization"));
    const Json& v = j["virtualization"];
    CHECK(v["bare_metal"].get<bool>() == (cl == "r750xa-4x-100gbe"));
    CHECK(v["endpoints"].size() == 1);
    if (!v["bare_metal"].get<bool>()) {
      CHECK(v["hypervisors"][0]["compute_efficiency"]["source"].get<std::string>().size() > 10);
      CHECK(v["endpoints"][0].contains("nic_mode"));
      CHECK(v["endpoints"][0].contains("ats"));
    }
    if (cl == "r750xa-vm-vgpu-2x20c") CHECK(v["vgpu_scheduler"]["policy"]["value"] == "best_effort");
    if (cl == "r750xa-vm-mig-2x3g") CHECK(v["endpoints"][0]["profile"] == "3g.40gb");
    std::ostringstream out;
    training::write_training_summary(out, job, study);
    CHECK(out.str().find("virtualization:") != std::string::npos);
  }
  virt::InferenceSpec is;
  is.cluster = "r750xa-vm-mig-7x1g";
  is.workload = "resnet50";
  const Json ij = virt::inference_json(virt::simulate_inference(is, catalog()));
  CHECK(ij["virtualization"]["endpoints"][0]["mode"] == "mig");
}

TEST_CASE("the virtualization line is one short line that points at vgsim params for its sources", "[virt][report]") {
  // Issue 38: one line of at most 160 characters (it was ~1,200 with the sources inline), naming where the sources
  // are; the sources are the job's virt.* facts, each with its own provenance (vgsim params lists them).
  for (const std::string cl : {"r750xa-4x-100gbe", "r750xa-vm-4x-25gbe-gdr", "r750xa-vm-4x-25gbe-pvrdma",
                               "r750xa-vm-4x-100gbe-vmxnet3", "r750xa-vm-mig-2x3g", "r750xa-vm-vgpu-2x20c"}) {
    training::JobSpec s;
    s.cluster = cl;
    s.workload = "resnet50";
    s.nodes = 1;
    s.gpus_per_node = 1;
    const auto job = training::resolve_job(s, catalog());
    const Json a = virt::virtualization_assumptions(*job.cluster, job.rank_to_endpoint, job.comm.path, job.vgpu);
    std::ostringstream out;
    virt::write_virtualization_summary(out, a);
    const std::string text = out.str();
    INFO(cl << ": " << text);
    CHECK(std::count(text.begin(), text.end(), '\n') == 1);
    CHECK(text.size() - 1 <= 160);
    CHECK(text.rfind("  virtualization: ", 0) == 0);
    const bool bare = cl == "r750xa-4x-100gbe";
    CHECK((text.find("vgsim params") != std::string::npos) == !bare);
    // The facts `vgsim params` lists: every VM overhead with its own source (bare metal has none).
    std::map<std::string, std::string> facts;
    for (const auto& p : job.params)
      if (!p.settable && p.name.rfind("virt.", 0) == 0) facts[p.name] = p.source;
    CHECK(facts.size() == (bare ? 0u : 9u));
    if (cl == "r750xa-vm-4x-25gbe-pvrdma") {
      CHECK(text.find("PVRDMA +5 us") != std::string::npos);  // the documented default (virtualization.cpp)
      CHECK(facts.at("virt.pvrdma_latency").find("docs/SOURCES.md#vm-network") != std::string::npos);
    }
  }
}

TEST_CASE("bad virtualization inputs", "[virt][bad]") {
  // Unknown endpoint: an InputError with a did-you-mean.
  try {
    training::resolve_job(spec("r750xa-vm-vgpu-2x20c", {"host0/vm2/gpu0"}, {}), catalog());
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("unknown endpoint") && Catch::Contains("did you mean 'host0/vm"));
  }
  CHECK_THROWS_AS(
      training::resolve_job(spec("r750xa-vm-vgpu-2x20c", {"host0/vm0/gpu0"}, {"vgpu.scheduler=fair"}), catalog()),
      InputError);
  CHECK_THROWS_AS(
      training::resolve_job(spec("r750xa-vm-vgpu-2x20c", {"host0/vm0/gpu0"}, {"vgpu.timeslice=1ms"}), catalog()),
      InputError);
  CHECK_THROWS_AS(
      training::resolve_job(spec("r750xa-vm-vgpu-2x20c", {"host0/vm0/gpu0"}, {"vgpu.time_slice=10us"}), catalog()),
      InputError);
  // Two jobs on one endpoint.
  virt::MultiJobSpec m;
  m.cluster = "r750xa-vm-vgpu-2x20c";
  m.names = {"a", "b"};
  m.jobs = {spec(m.cluster, {"host0/vm0/gpu0"}, {}, 1), spec(m.cluster, {"host0/vm0/gpu0"}, {}, 1)};
  CHECK_THROWS_AS(virt::run_jobs(m, catalog()), InputError);
  // Jobs file: unknown key.
  CHECK_THROWS_WITH(virt::parse_jobs(Json::parse(R"({"cluster": "x", "jobs": [{"name": "a", "workload": "resnet50",
      "endpoints": ["e"], "iteration": 2}]})"),
                                     "jobs.json"),
                    Catch::Contains("iteration"));
}

TEST_CASE("MIG instances asked for P2P route through host memory or the network, not an error", "[virt][mig]") {
  // A MIG instance has no NVLink/P2P (docs/SOURCES.md#mig-vgpu); even with NCCL_P2P_LEVEL=SYS the path must not be P2P.
  const topo::Cluster cl = topo::Cluster::resolve("r750xa-vm-mig-2x3g", catalog());
  topo::PathOptions o;
  o.p2p_level = topo::PathType::SYS;
  const topo::Path p = cl.endpoint_path(0, 1, o);
  CHECK(p.transport != topo::Transport::P2P);
  // And a 2-rank job across the two instances runs.
  training::JobSpec s;
  s.cluster = "r750xa-vm-mig-2x3g";
  s.workload = "resnet50";
  s.nccl.p2p_level = "SYS";
  s.iterations = 1;
  const auto r = training::simulate_training(training::resolve_job(s, catalog()));
  CHECK(r.ranks == 2);
  CHECK(r.samples_per_s > 0.0);
}
