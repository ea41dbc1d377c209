// Transformer shapes (workloads/llm/transformer_shapes.json) against published totals: Megatron-LM's parameter
// counts (Narayanan et al. SC'21 Table 1 and eq. 2), its FLOP count with full recomputation (eq. 3), Korthikanti et
// al. 2022's model and hardware FLOPs utilization (Table 5, from its iteration times) and activation memory savings
// (section 5), and the 6N + attention + logits identity for GQA/SwiGLU shapes (Llama).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/transformer_shape.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {
const std::vector<TransformerShape>& shapes() {
  static const std::vector<TransformerShape> s = load_transformer_shapes();
  return s;
}
const TransformerShape& shape(const std::string& n) { return find_transformer_shape(shapes(), n); }
}  // namespace

TEST_CASE("parameter counts match Megatron-LM's Table 1 and eq. (2)") {
  int checked = 0;
  for (const TransformerShape& m : shapes()) {
    if (m.name.rfind("megatron-", 0) != 0) continue;
    const ParameterCount c = parameter_count(m);
    const double L = m.layers, h = m.hidden, V = m.vocab, s = m.seq;
    // eq. (2): P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)); it leaves out the final LayerNorm (2h).
    const double eq2 = 12.0 * L * h * h * (1.0 + 13.0 / (12.0 * h) + (V + s) / (12.0 * L * h));
    INFO(m.name << ": " << c.total << " parameters, eq. (2) " << eq2 << ", published " << m.published_params);
    CHECK(static_cast<double>(c.total) - 2.0 * h == Approx(eq2).epsilon(1e-12));
    // Table 1 gives billions to one decimal: the count rounds to it (|P - published| <= 0.05e9).
    CHECK(std::abs(static_cast<double>(c.total) - m.published_params) <= 0.05e9 + 1.0);
    ++checked;
  }
  CHECK(checked == 10);
  // Nominal names ("7B", "70B", "405B", "22B") are within 10 % of the count.
  for (const TransformerShape& m : shapes())
    if (m.published_nominal) {
      INFO(m.name << ": " << parameter_count(m).total);
      CHECK(std::abs(parameter_count(m).total / m.published_params - 1.0) < 0.10);
    }
}

TEST_CASE("full recomputation FLOPs are Narayanan et al.'s eq. (3)") {
  // F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration of B sequences, for every Table 1 shape.
  for (const TransformerShape& m : shapes()) {
    if (m.name.rfind("megatron-", 0) != 0) continue;
    const double B = 512, L = m.layers, h = m.hidden, V = m.vocab, s = m.seq;
    const double eq3 = 96.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
    INFO(m.name);
    CHECK(hardware_flops(m, B, Recompute::Full) == Approx(eq3).epsilon(1e-12));
  }
}

TEST_CASE("model and hardware FLOPs utilization reproduce Korthikanti et al. Table 5 from its iteration times") {
  // Table 3/5: (model, global batch = GPUs' sequences, GPUs, iteration time with SP + selective recompute, MFU %,
  // HFU %). A100 peak 312 TFLOP/s. MFU = model_flops / time / (GPUs x peak); HFU with the selective recompute FLOPs.
  // The paper rounds to 0.1 % and times to 10 ms: within 0.3 percentage points.
  struct Row {
    const char* shape;
    double batch, gpus, seconds, mfu, hfu;
  };
  const Row rows[] = {{"korthikanti-22b", 4, 8, 1.10, 41.5, 43.7},
                      {"gpt3-175b", 64, 64, 13.75, 51.4, 52.8},
                      {"megatron-529.6b", 280, 280, 37.83, 56.0, 57.0},
                      {"megatron-1008b", 512, 512, 71.49, 56.3, 57.0}};
  for (const Row& r : rows) {
    const TransformerShape& m = shape(r.shape);
    const double peak = r.gpus * 312e12 * r.seconds;
    const double mfu = 100.0 * model_flops(m, r.batch) / peak;
    const double hfu = 100.0 * hardware_flops(m, r.batch, Recompute::Selective) / peak;
    std::printf("%-18s MFU %.1f %% (published %.1f)  HFU %.1f %% (published %.1f)\n", r.shape, mfu, r.mfu, hfu, r.hfu);
    CHECK(std::abs(mfu - r.mfu) <= 0.3);
    CHECK(std::abs(hfu - r.hfu) <= 0.3);
  }
}

TEST_CASE("GQA and SwiGLU FLOPs equal 6 x matmul parameters + attention scores + logits per token") {
  // Per token (Korthikanti eq. 7 note): model FLOPs = 6 N_matmul + 12 L h s + 6 h V, with N_matmul the attention and
  // MLP weight matrices. The FLOPs come from Megatron's formula, the parameters from the parameter count (norms
  // are the only other per-layer parameters of a Llama layer): two independent paths.
  for (const char* n : {"llama2-7b", "llama2-70b", "llama3-8b", "llama3-405b"}) {
    const TransformerShape& m = shape(n);
    REQUIRE(!m.biases);
    const double L = m.layers, h = m.hidden, s = m.seq, V = m.vocab;
    const double matmul = L * static_cast<double>(parameter_count(m).per_layer - 2 * m.hidden);
    const double per_token = 6.0 * matmul + 12.0 * L * h * s + 6.0 * h * V;
    INFO(n);
    CHECK(model_flops(m, 1) / s == Approx(per_token).epsilon(1e-12));
  }
}

TEST_CASE("activation memory per layer follows Korthikanti et al. eqs. (4)-(6)") {
  const TransformerShape& g = shape("gpt3-175b");
  const double s = g.seq, h = g.hidden, a = g.heads, b = 1, t = 8;
  // eq. (5): s b h (34 + 5 a s / h) / t with sequence parallelism; eq. (4) s b h (10 + 24/t + 5 a s/(h t)) without.
  CHECK(activation_bytes_per_layer(g, b, 8, true, Recompute::None) ==
        Approx(s * b * h * (34 + 5 * a * s / h) / t).epsilon(1e-12));
  CHECK(activation_bytes_per_layer(g, b, 8, false, Recompute::None) ==
        Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))).epsilon(1e-12));
  CHECK(activation_bytes_per_layer(g, b, 8, true, Recompute::Full) == Approx(2 * s * b * h / t).epsilon(1e-12));
  // Section 5: selective recomputation saves 70 % (GPT-3) and 65 % (MT-NLG 530B) of activation memory.
  for (auto [name, saved] : {std::pair{"gpt3-175b", 70.0}, std::pair{"megatron-529.6b", 65.0}}) {
    const TransformerShape& m = shape(name);
    const double none = activation_bytes_per_layer(m, 1, 8, true, Recompute::None);
    const double sel = activation_bytes_per_layer(m, 1, 8, true, Recompute::Selective);
    INFO(name);
    CHECK(std::abs(100.0 * (1.0 - sel / none) - saved) < 0.5);
  }
}

TEST_CASE("FlashAttention stores no attention scores, only the softmax log-sum-exp") {
  const TransformerShape& g = shape("gpt3-175b");
  const double s = g.seq, h = g.hidden, a = g.heads, b = 2, t = 8;
  // eq. (5) with the 5 a s / h term (scores, softmax, mask) replaced by one fp32 log-sum-exp per row, 4 b a s / t:
  //   s b h (34 + 4 a / h) / t.
  CHECK(activation_bytes_per_layer(g, b, 8, true, Recompute::None, true) ==
        Approx(s * b * h * (34 + 4 * a / h) / t).epsilon(1e-12));
  // Selective recomputation only drops the scores term, which FlashAttention never stores: the same bytes.
  CHECK(activation_bytes_per_layer(g, b, 8, true, Recompute::Selective, true) ==
        activation_bytes_per_layer(g, b, 8, true, Recompute::None, true));
  // Full recomputation keeps the layer input either way.
  CHECK(activation_bytes_per_layer(g, b, 8, true, Recompute::Full, true) ==
        activation_bytes_per_layer(g, b, 8, true, Recompute::Full));
}

TEST_CASE("a bad transformer shape names the file, the JSON path and the value") {
  const auto path = std::filesystem::temp_directory_path() / "vgsim-bad-shapes.json";
  std::ofstream(path) << R"({"shapes": [{"name": "x", "source": "test", "layers": 2, "hidden": 100, "heads": 3,
                             "vocab": 10, "seq": 8}]})";
  try {
    load_transformer_shapes(path.string());
    FAIL("a shape whose heads do not divide hidden was accepted");
  } catch (const InputError& e) {
    const std::string w = e.what();
    CHECK(w.find(path.string()) != std::string::npos);
    CHECK(w.find("shapes[0].heads") != std::string::npos);
  }
  std::filesystem::remove(path);
  CHECK_THROWS_AS(find_transformer_shape(shapes(), "gpt-5"), InputError);
}
