// The transformer fusion kernels against the decomposed reference chain
// they replace, on awkward shapes with a fixed seed (Attention is checked
// the same way in tests/optimizer/attention_fusion_test.cc).
#include <cmath>

#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

std::map<std::string, Tensor> run_one(GraphBuilder& g, const std::map<std::string, Tensor>& in) {
  return execute(g.model, in);
}

TEST(TransformerKernels, SkipLayerNormalizationMatchesAddAndLayerNorm) {
  GraphBuilder ref(17), fused(17);
  fused.model.opsets["com.microsoft"] = 1;
  for (GraphBuilder* g : {&ref, &fused}) {
    g->input("a", {3, 5, 33});
    g->input("b", {3, 5, 33});
    g->constant("gamma", random_float_tensor({33}, 3));
    g->constant("beta", random_float_tensor({33}, 4));
    g->constant("bias", random_float_tensor({33}, 5));
    g->output("y");
  }
  ref.node("Add", {"a", "b"}, {"s"});
  ref.node("Add", {"s", "bias"}, {"sb"});
  ref.node("LayerNormalization", {"sb", "gamma", "beta"}, {"y"},
           {{"epsilon", model::Attribute{model::Attribute::Kind::kFloat, 1e-3f}}});
  model::Node& skip =
      fused.node("SkipLayerNormalization", {"a", "b", "gamma", "beta", "bias"}, {"y"},
                 {{"epsilon", model::Attribute{model::Attribute::Kind::kFloat, 1e-3f}}});
  skip.domain = "com.microsoft";
  const std::map<std::string, Tensor> in{{"a", random_float_tensor({3, 5, 33}, 1, -2, 2)},
                                         {"b", random_float_tensor({3, 5, 33}, 2)}};
  EXPECT_LE(relative_error(run_one(fused, in).at("y"), run_one(ref, in).at("y")), 1e-5);
}

TEST(TransformerKernels, InferLabLayerNormalizationMatchesOnnx17) {
  GraphBuilder ref(17), fused(13);
  fused.model.opsets["ai.inferlab"] = 1;
  for (GraphBuilder* g : {&ref, &fused}) {
    g->input("x", {2, 3, 7});
    g->constant("scale", random_float_tensor({3, 1}, 3));
    g->constant("b", random_float_tensor({7}, 4));
    g->output("y");
  }
  ref.node("LayerNormalization", {"x", "scale", "b"}, {"y"}, {{"axis", one_int(1)}});
  fused.node("LayerNormalization", {"x", "scale", "b"}, {"y"}, {{"axis", one_int(1)}}).domain =
      "ai.inferlab";
  const std::map<std::string, Tensor> in{{"x", random_float_tensor({2, 3, 7}, 1, -3, 3)}};
  EXPECT_LE(relative_error(run_one(fused, in).at("y"), run_one(ref, in).at("y")), 1e-6);
}

TEST(TransformerKernels, GeluFormsMatchTheirFormulas) {
  GraphBuilder g(13);
  g.model.opsets["com.microsoft"] = 1;
  g.input("x", {4, 9});
  g.constant("bias", random_float_tensor({9}, 7));
  for (const char* op : {"Gelu", "FastGelu", "BiasGelu"}) {
    std::vector<std::string> inputs{"x"};
    if (std::string(op) != "Gelu") inputs.push_back("bias");
    g.node(op, inputs, {std::string(op) + "_y"}).domain = "com.microsoft";
    g.output(std::string(op) + "_y");
  }
  const Tensor x = random_float_tensor({4, 9}, 1, -5, 5);
  const auto out = run_one(g, {{"x", x}});
  const Tensor& bias = g.graph().initializers.at("bias");
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.data<float>()[i];
    const double vb = v + bias.data<float>()[i % 9];
    auto exact = [](double t) { return 0.5 * t * (1 + std::erf(t / std::sqrt(2.0))); };
    auto tanh_form = [](double t) {
      return 0.5 * t * (1 + std::tanh(std::sqrt(2 / M_PI) * (t + 0.044715 * t * t * t)));
    };
    EXPECT_NEAR(out.at("Gelu_y").data<float>()[i], exact(v), 1e-5);
    EXPECT_NEAR(out.at("BiasGelu_y").data<float>()[i], exact(vb), 1e-5);
    EXPECT_NEAR(out.at("FastGelu_y").data<float>()[i], tanh_form(vb), 1e-5);
  }
}

}  // namespace
}  // namespace inferlab::testing
