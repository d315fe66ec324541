// gelu_fusion: exact and tanh GELU in their exported orders, the bias form,
// the MatMul exception, and a second reader that must stop it.
#include <cmath>

#include "inferlab/optimizer/transformer_passes.h"
#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

// y = x * 0.5 * (1 + erf(x / sqrt2)), x = a + bias when `bias`.
GraphBuilder exact(bool bias, bool half_first) {
  GraphBuilder g(13);
  g.input("a", {3, 7});
  std::string x = "a";
  if (bias) {
    g.constant("b", random_float_tensor({7}, 9));
    g.node("Add", {"a", "b"}, {"x"});
    x = "x";
  }
  g.scalar("sqrt2", static_cast<float>(std::sqrt(2.0)));
  g.scalar("one", 1.0f);
  g.scalar("half", 0.5f);
  g.node("Div", {x, "sqrt2"}, {"q"});
  g.node("Erf", {"q"}, {"e"});
  g.node("Add", {"e", "one"}, {"e1"});
  if (half_first) {
    g.node("Mul", {x, "half"}, {"h"});
    g.node("Mul", {"h", "e1"}, {"y"});
  } else {
    g.node("Mul", {x, "e1"}, {"m"});
    g.node("Mul", {"m", "half"}, {"y"});
  }
  g.output("y");
  return g;
}

std::map<std::string, Tensor> inputs() { return {{"a", random_float_tensor({3, 7}, 2, -4, 4)}}; }

TEST(GeluFusion, FusesExactFormInBothOrders) {
  for (bool half_first : {false, true}) {
    GraphBuilder g = exact(false, half_first);
    auto pass = optimizer::make_gelu_fusion_pass();
    const auto stats = run_pass_and_compare(*pass, g.model, inputs());
    EXPECT_EQ(stats.changes.at("fused Gelu"), 1);
    ASSERT_EQ(g.graph().nodes.size(), 1u);
    EXPECT_EQ(g.graph().nodes[0].domain, "com.microsoft");
  }
}

TEST(GeluFusion, TakesAConstantBiasIntoBiasGelu) {
  GraphBuilder g = exact(true, false);
  auto pass = optimizer::make_gelu_fusion_pass();
  const auto stats = run_pass_and_compare(*pass, g.model, inputs());
  EXPECT_EQ(stats.changes.at("fused BiasGelu"), 1);
  EXPECT_EQ(count_ops(g.model, "BiasGelu"), 1);
  EXPECT_EQ(g.graph().nodes.size(), 1u);
}

TEST(GeluFusion, LeavesTheBiasAddOfAMatMulForTheActivationFusion) {
  GraphBuilder g = exact(true, false);
  g.graph().inputs[0].name = "a0";
  g.constant("w", random_float_tensor({7, 7}, 5));
  g.graph().nodes.insert(g.graph().nodes.begin(),
                         model::Node{"mm", "MatMul", "", {"a0", "w"}, {"a"}, {}});
  auto pass = optimizer::make_gelu_fusion_pass();
  run_pass_and_compare(*pass, g.model, {{"a0", random_float_tensor({3, 7}, 2)}});
  EXPECT_EQ(count_ops(g.model, "Gelu"), 1);
  EXPECT_EQ(count_ops(g.model, "Add"), 1);
}

TEST(GeluFusion, FusesTanhFormIntoFastGelu) {
  GraphBuilder g(13);
  g.input("x", {2, 5});
  g.scalar("three", 3.0f);
  g.scalar("kappa", 0.044715f);
  g.scalar("beta", static_cast<float>(std::sqrt(2.0 / M_PI)));
  g.scalar("one", 1.0f);
  g.scalar("half", 0.5f);
  g.node("Pow", {"x", "three"}, {"x3"});
  g.node("Mul", {"kappa", "x3"}, {"k"});
  g.node("Add", {"x", "k"}, {"inner"});
  g.node("Mul", {"beta", "inner"}, {"u"});
  g.node("Tanh", {"u"}, {"t"});
  g.node("Add", {"one", "t"}, {"t1"});
  g.node("Mul", {"half", "x"}, {"h"});
  g.node("Mul", {"h", "t1"}, {"y"});
  g.output("y");
  auto pass = optimizer::make_gelu_fusion_pass();
  run_pass_and_compare(*pass, g.model, {{"x", random_float_tensor({2, 5}, 8, -4, 4)}});
  EXPECT_EQ(count_ops(g.model, "FastGelu"), 1);
  EXPECT_EQ(g.graph().nodes.size(), 1u);
}

TEST(GeluFusion, DoesNotFireWhenErfHasASecondReader) {
  GraphBuilder g = exact(false, false);
  g.output("e");
  auto pass = optimizer::make_gelu_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

TEST(GeluFusion, DoesNotFireWithAWrongConstant) {
  GraphBuilder g = exact(false, false);
  g.scalar("half", 0.4f);
  auto pass = optimizer::make_gelu_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

}  // namespace
}  // namespace inferlab::testing
