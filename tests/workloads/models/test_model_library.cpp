// Model library: every model's totals against the published figure, file validation, loader name resolution.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "vgsim/workloads/models/model.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
Model lib(const std::string& name) {
  return load_model(std::string(VGSIM_DATA_DIR) + "/workloads/models/" + name + ".json");
}
// |a - b| <= tol * b
bool within(double a, double b, double tol) { return std::abs(a - b) <= tol * std::abs(b); }
}  // namespace

TEST_CASE("model totals match the published figures") {
  // ResNet-50 v1.5: 25,557,032 params, 4.089 GMACs at 224^2 (torchvision metadata; workloads.md B7.1). Exact: 0.5 %.
  auto r50 = lib("resnet50");
  CHECK(r50.total_params() == 25557032);
  CHECK(within(r50.fwd_macs_per_unit(), 4.089e9, 0.005));
  // B7.1: FP32 gradients are 97.5 MiB = 25,557,032 x 4 B.
  CHECK(within(static_cast<double>(r50.grad_bytes_fp32()) / MiB, 97.5, 0.005));
  // B7.1 rows: layer4.0 (+downsample) 6,039,552 params and 372.5 M MACs; conv1 118.0 M MACs.
  for (const auto& l : r50.layers) {
    if (l.name == "layer4.0") {
      CHECK(l.params == 6039552);
      CHECK(within(l.fwd_flops / 2, 372.5e6, 0.005));
    }
    if (l.name == "conv1") CHECK(within(l.fwd_flops / 2, 118.0e6, 0.005));
  }
  // ResNet-101: 44.5 M params, ~7.8 GMACs (workloads.md table 2, torchvision recalled): 0.5 % on the 3-digit params,
  // 5 % on the "~" MACs.
  auto r101 = lib("resnet101");
  CHECK(within(r101.total_params(), 44.5e6, 0.005));
  CHECK(within(r101.fwd_macs_per_unit(), 7.8e9, 0.05));
  // VGG-16: 138,357,544 params, 15.47 GMACs (torchvision metadata; B7.2).
  auto vgg = lib("vgg16");
  CHECK(vgg.total_params() == 138357544);
  CHECK(within(vgg.fwd_macs_per_unit(), 15.47e9, 0.005));
  // Inception-V3: ~27 M params, ~5.7 GMACs at 299^2 (table 2, [verify]): 5 %.
  auto inc = lib("inception_v3");
  CHECK(within(inc.total_params(), 27e6, 0.05));
  CHECK(within(inc.fwd_macs_per_unit(), 5.7e9, 0.05));
  // MobileNetV2: 3,504,872 params, 0.301 GMACs (torchvision metadata; B7.3).
  auto mb = lib("mobilenet_v2");
  CHECK(mb.total_params() == 3504872);
  CHECK(within(mb.fwd_macs_per_unit(), 0.301e9, 0.005));
  // BERT-base 109,482,240 and BERT-large 335,141,888 params (B7.4, exact).
  auto bb = lib("bert_base");
  auto bl = lib("bert_large");
  CHECK(bb.total_params() == 109482240);
  CHECK(bl.total_params() == 335141888);
  // B7.4: training ~= 6N FLOP/token + ~12*L*h*s attention; BERT-large at seq 128: ~2.0 GFLOP/token training, i.e.
  // forward ~= 2.0e9 / 3 = 0.67 GFLOP/token (5 %: "~").
  CHECK(within(3.0 * bl.fwd_flops_per_unit(), 2.0e9, 0.05));
  // Forward = 2N + 4*L*h*s (attention) within 5 % (the embedding lookups carry no FLOPs, the tied decoder does).
  CHECK(within(bb.fwd_flops_per_unit(), 2.0 * 109482240 + 4.0 * 12 * 768 * 128, 0.05));
  // Transformer-big: 214.2 M with a 37,000 vocab (B7.5); 0.5 % (the figure has 4 digits).
  auto tb = lib("transformer_big");
  CHECK(within(tb.total_params(), 214.2e6, 0.005));
  // GPT-3 Table 2.1 prints rounded sizes (125M, 350M, 1.3B); 12*d^2 + 13*d per layer + embeddings lands within 5 %.
  CHECK(within(lib("gpt3_small").total_params(), 125e6, 0.05));
  CHECK(within(lib("gpt3_medium").total_params(), 350e6, 0.05));
  CHECK(within(lib("gpt3_xl").total_params(), 1.3e9, 0.05));
}

TEST_CASE("VGG-19, GoogLeNet, AlexNet totals match the papers") {
  // VGG-19 = configuration E (Simonyan & Zisserman 2015 Table 1): Table 2 gives 144 M parameters. From the shapes:
  // 16 3x3 convs with biases + FC 25088-4096-4096-1000 = 20,024,384 + 123,642,856 = 143,667,240 (torchvision's vgg19
  // metadata, recalled: 143,667,240 and 19.63 GMACs). MACs = sum of 9 x cin x cout x HW over the 16 convs + FC weights.
  auto v19 = lib("vgg19");
  CHECK(v19.total_params() == 143667240);
  CHECK(within(v19.total_params(), 144e6, 0.005));
  CHECK(within(v19.fwd_macs_per_unit(), 19.63e9, 0.005));
  // GoogLeNet (Szegedy et al. 2015): Table 1's params column sums to ~6.8 M and its ops column to 1,502 M MACs
  // (Section 1: "1.5 billion multiply-adds"), both without the two auxiliary classifiers. Table 1 lists conv1 as
  // 2.7 K params / 34 M ops, while 7x7x3x64 at 112x112 is 9,408 weights / 118.0 M MACs: the main network must be
  // 1,502 - 34 + 118.0 = 1,586 M MACs (0.5 %); params (with biases) within 3 % of 6.8 M. Each auxiliary head (Section
  // 5): 1x1 conv 512 (528) -> 128 + FC 2048 -> 1024 + FC 1024 -> 1000 with biases = 3,188,840 (3,190,888).
  auto g = lib("googlenet");
  std::int64_t aux_params = 0;
  double aux_macs = 0.0;
  for (const auto& l : g.layers)
    if (l.name.rfind("aux", 0) == 0) aux_params += l.params, aux_macs += l.fwd_flops / 2.0;
  CHECK(aux_params == 3188840 + 3190888);
  CHECK(within(g.total_params() - aux_params, 6.8e6, 0.03));
  CHECK(within(g.fwd_macs_per_unit() - aux_macs, (1502.0 - 34.0 + 118.0) * 1e6, 0.005));
  // AlexNet (Krizhevsky et al. 2012, both towers as one network, grouped conv2/4/5): "60 million parameters"
  // (abstract); from the shapes 34,944 + 307,456 + 885,120 + 663,936 + 442,624 + 37,752,832 + 16,781,312 + 4,097,000 =
  // 60,965,224. MACs: conv1 55^2 x 96 x 363 = 105.4 M, conv2 27^2 x 256 x 1200 = 223.9 M, conv3 13^2 x 384 x 2304 =
  // 149.5 M, conv4 13^2 x 384 x 1728 = 112.1 M, conv5 13^2 x 256 x 1728 = 74.8 M, FC 58.6 M: 724.4 M.
  auto ax = lib("alexnet");
  CHECK(ax.total_params() == 60965224);
  CHECK(within(ax.total_params(), 60e6, 0.02));
  CHECK(within(ax.fwd_macs_per_unit(), 724.4e6, 0.001));
}

TEST_CASE("every library file agrees with its own published block") {
  const auto names = list_models();
  // 14 models shipped: resnet50/101, vgg16, vgg19, googlenet, alexnet, inception_v3, mobilenet_v2, bert base/large,
  // transformer_big, gpt3 x3.
  REQUIRE(names.size() == 14);
  for (const auto& n : names) {
    INFO(n);
    if (n == "googlenet") continue;  // its published block excludes the auxiliary heads: checked in the case above
    const Model m = load_model(n);
    CHECK(!m.source.empty());
    REQUIRE(m.published.params);
    const double tol = m.published.approximate ? 0.05 : 0.005;
    CHECK(within(m.total_params(), *m.published.params, tol));
    if (m.published.fwd_gmacs) CHECK(within(m.fwd_macs_per_unit(), *m.published.fwd_gmacs * 1e9, tol));
  }
}

TEST_CASE("group repeats expand to named layers in forward order") {
  // resnet50: conv1, layer1.0..2, layer2.0..3, layer3.0..5, layer4.0..2, fc = 1 + 3 + 4 + 6 + 3 + 1 = 18 layers.
  auto r50 = lib("resnet50");
  REQUIRE(r50.layers.size() == 18);
  CHECK(r50.layers.front().name == "conv1");
  CHECK(r50.layers[5].name == "layer2.1");
  CHECK(r50.layers.back().name == "fc");
  // bert_base: word, position/type/LN, encoder.0..11, pooler = 15 layers; the word embedding is sparse.
  auto bb = lib("bert_base");
  REQUIRE(bb.layers.size() == 15);
  CHECK(bb.layers[2].name == "encoder.0");
  CHECK(bb.layers[13].name == "encoder.11");
  CHECK(bb.layers[0].sparse);
  CHECK(bb.unit == WorkUnit::Token);
  CHECK(bb.tokens_per_sample == 128);

  // A nested group: 2 x (a, b) -> blk.0.a, blk.0.b, blk.1.a, blk.1.b.
  Json j = Json::parse(R"({"name": "t", "source": "test", "input": "x", "unit": "sample", "param_dtype": "fp32",
    "grad_dtype": "fp32", "layers": [{"name": "blk.{i}", "repeat": 2, "layers": [
      {"name": "a", "params": 1, "fwd_flops": 2, "bytes": 3}, {"name": "b", "params": 10, "fwd_flops": 20, "bytes": 30}]}]})");
  auto m = parse_model(j, "t.json");
  REQUIRE(m.layers.size() == 4);
  CHECK(m.layers[3].name == "blk.1.b");
  CHECK(m.total_params() == 22);  // 2 x (1 + 10)
}

TEST_CASE("bad model files name file, path, value and expectation") {
  Json j = Json::parse(R"({"name": "t", "source": "s", "input": "x", "unit": "smaple", "param_dtype": "fp32",
    "grad_dtype": "fp32", "layers": [{"name": "a", "params": 1, "fwd_flops": 2, "bytes": 3}]})");
  const auto e1 = error_of([&] { parse_model(j, "bad.json"); });
  CHECK(e1.find("bad.json: $.unit") != std::string::npos);
  CHECK(e1.find("smaple") != std::string::npos);
  CHECK(e1.find("sample") != std::string::npos);

  Json k = Json::parse(R"({"name": "t", "source": "s", "input": "x", "unit": "sample", "param_dtype": "fp32",
    "grad_dtype": "fp32", "layers": [{"name": "a", "params": -5, "fwd_flops": 2, "bytes": 3}]})");
  const auto e2 = error_of([&] { parse_model(k, "bad.json"); });
  CHECK(e2.find("$.layers[0].params") != std::string::npos);
  CHECK(e2.find("-5") != std::string::npos);

  Json u = Json::parse(R"({"name": "t", "source": "s", "input": "x", "unit": "sample", "param_dtype": "fp32",
    "grad_dtype": "fp32", "layers": [{"name": "a", "params": 1, "fwd_flop": 2, "bytes": 3}]})");
  const auto e3 = error_of([&] { parse_model(u, "bad.json"); });
  CHECK(e3.find("fwd_flops") != std::string::npos);  // missing key or did-you-mean names it
}

TEST_CASE("load_model resolves library names and suggests on typos") {
  CHECK(load_model("ResNet-50").name == "resnet50");
  CHECK(load_model("bert-large").total_params() == 335141888);
  const auto e = error_of([] { load_model("mobilenet_v3"); });
  CHECK(e.find("unknown model") != std::string::npos);
  CHECK(e.find("'mobilenet_v3'") != std::string::npos);
  CHECK(e.find("vgg16") != std::string::npos);  // lists the library
  CHECK(e.find("did you mean 'mobilenet_v2'") != std::string::npos);
  const auto missing = error_of([] { load_model("/nonexistent/model.json"); });
  CHECK(missing.find("/nonexistent/model.json") != std::string::npos);
}
