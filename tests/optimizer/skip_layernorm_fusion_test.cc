// skip_layernorm_fusion: Add (+ bias) feeding LayerNormalization ->
// SkipLayerNormalization; not when the sum has another reader or the Add
// broadcasts.
#include "inferlab/optimizer/transformer_passes.h"
#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

GraphBuilder residual(const Shape& skip_shape, bool bias) {
  GraphBuilder g(17);
  g.input("a", {2, 3, 16});
  g.input("b", skip_shape);
  g.node("Add", {"a", "b"}, {"s"});
  std::string sum = "s";
  if (bias) {
    g.constant("bias", random_float_tensor({16}, 7));
    g.node("Add", {"s", "bias"}, {"sb"});
    sum = "sb";
  }
  g.constant("gamma", random_float_tensor({16}, 3));
  g.constant("beta", random_float_tensor({16}, 4));
  g.node("LayerNormalization", {sum, "gamma", "beta"}, {"y"}, {{"axis", one_int(-1)}});
  g.output("y");
  return g;
}

std::map<std::string, Tensor> inputs(const Shape& skip_shape) {
  return {{"a", random_float_tensor({2, 3, 16}, 1)}, {"b", random_float_tensor(skip_shape, 2)}};
}

TEST(SkipLayerNormFusion, FusesResidualAddAndBias) {
  for (bool bias : {false, true}) {
    GraphBuilder g = residual({2, 3, 16}, bias);
    auto pass = optimizer::make_skip_layernorm_fusion_pass();
    const auto stats = run_pass_and_compare(*pass, g.model, inputs({2, 3, 16}));
    EXPECT_EQ(stats.changes.at("fused SkipLayerNormalization"), 1);
    ASSERT_EQ(g.graph().nodes.size(), 1u);
    EXPECT_EQ(g.graph().nodes[0].inputs.size(), bias ? 5u : 4u);
  }
}

TEST(SkipLayerNormFusion, DoesNotFireWhenTheSumHasAnotherReader) {
  GraphBuilder g = residual({2, 3, 16}, false);
  g.output("s");
  auto pass = optimizer::make_skip_layernorm_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

TEST(SkipLayerNormFusion, DoesNotFireWhenTheAddBroadcasts) {
  GraphBuilder g = residual({3, 1}, false);
  auto pass = optimizer::make_skip_layernorm_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

}  // namespace
}  // namespace inferlab::testing
