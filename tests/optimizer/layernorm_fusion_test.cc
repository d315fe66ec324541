// layernorm_fusion: fires on the exported decomposed form (opset 17 ->
// LayerNormalization, older -> ai.inferlab::LayerNormalization) and not on
// a non-last-axis reduction, a non-constant gamma or an extra reader.
#include "inferlab/optimizer/transformer_passes.h"
#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

// x [2, 3, 8] -> decomposed layer norm over `axis`; gamma constant unless told.
GraphBuilder decomposed(int64_t opset, int64_t axis = -1, bool constant_gamma = true) {
  GraphBuilder g(opset);
  g.input("x", {2, 3, 8});
  g.node("ReduceMean", {"x"}, {"mean"}, {{"axes", ints({axis})}});
  g.node("Sub", {"x", "mean"}, {"d"});
  g.scalar("two", 2.0f);
  g.node("Pow", {"d", "two"}, {"sq"});
  g.node("ReduceMean", {"sq"}, {"var"}, {{"axes", ints({axis})}});
  g.scalar("eps", 1e-5f);
  g.node("Add", {"var", "eps"}, {"ve"});
  g.node("Sqrt", {"ve"}, {"sd"});
  g.node("Div", {"d", "sd"}, {"n"});
  if (constant_gamma) {
    g.constant("gamma", random_float_tensor({8}, 3));
  } else {
    g.input("gamma", {8});
  }
  g.node("Mul", {"n", "gamma"}, {"scaled"});
  g.constant("beta", random_float_tensor({8}, 4));
  g.node("Add", {"scaled", "beta"}, {"y"});
  g.output("y");
  return g;
}

std::map<std::string, Tensor> inputs(bool with_gamma = false) {
  std::map<std::string, Tensor> in{{"x", random_float_tensor({2, 3, 8}, 1, -3.0f, 3.0f)}};
  if (with_gamma) in["gamma"] = random_float_tensor({8}, 3);
  return in;
}

TEST(LayerNormFusion, FusesDecomposedFormAtOpset17) {
  GraphBuilder g = decomposed(17);
  auto pass = optimizer::make_layernorm_fusion_pass();
  const auto stats = run_pass_and_compare(*pass, g.model, inputs());
  EXPECT_EQ(stats.changes.at("fused LayerNormalization"), 1);
  ASSERT_EQ(g.graph().nodes.size(), 1u);
  EXPECT_EQ(g.graph().nodes[0].domain, "");
  EXPECT_EQ(g.graph().nodes[0].name, "mean_node");
  EXPECT_EQ(g.graph().nodes[0].attributes.at("fused_nodes").strings.size(), 9u);
}

TEST(LayerNormFusion, UsesInferLabDomainBelowOpset17) {
  GraphBuilder g = decomposed(13);
  auto pass = optimizer::make_layernorm_fusion_pass();
  run_pass_and_compare(*pass, g.model, inputs());
  ASSERT_EQ(g.graph().nodes.size(), 1u);
  EXPECT_EQ(g.graph().nodes[0].domain, "ai.inferlab");
  EXPECT_EQ(g.model.opset_of("ai.inferlab"), 1);
}

TEST(LayerNormFusion, DoesNotFireOverANonLastAxis) {
  GraphBuilder g = decomposed(13, 1);
  auto pass = optimizer::make_layernorm_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

TEST(LayerNormFusion, DoesNotFireWithNonConstantGamma) {
  GraphBuilder g = decomposed(17, -1, false);
  auto pass = optimizer::make_layernorm_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

TEST(LayerNormFusion, DoesNotFireWhenAnIntermediateHasASecondReader) {
  GraphBuilder g = decomposed(17);
  g.output("var");
  auto pass = optimizer::make_layernorm_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

}  // namespace
}  // namespace inferlab::testing
