// activation_fusion on hand-built graphs: Conv, Gemm and MatMul followed by
// each activation (SiLU as Sigmoid+Mul, ONNX Runtime's Gelu/FastGelu
// included), MatMul+Add(bias) as Gemm only for 2-D operands — and where it
// must not fire.
#include "conv_fusion_test_graph.h"

namespace inferlab::optimizer {
namespace {

using testing::GraphBuilder;
using testing::integer;
using testing::ints;
using testing::real;

// x[2,4,7,7] -> Conv(depthwise-ish group 2, stride 2) -> c
GraphBuilder conv_graph() {
  GraphBuilder g;
  g.input("x", {2, 4, 7, 7});
  g.node("Conv", {"x", g.constant("w", {6, 2, 3, 3}), g.constant("b", {6})}, {"c"},
         {{"group", integer(2)}, {"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}});
  return g;
}

struct ActivationCase {
  std::string op;
  std::string domain;
  std::string kind;  // expected `activation`
};

void add_activation(GraphBuilder& g, const ActivationCase& c, const std::string& x,
                    const std::string& y) {
  if (c.op == "SiLU") {
    g.node("Sigmoid", {x}, {"gate"});
    g.node("Mul", {x, "gate"}, {y});
  } else if (c.op == "Clip") {
    g.graph().initializers["lo"] = Tensor::scalar<float>(0.0f);
    g.graph().initializers["hi"] = Tensor::scalar<float>(6.0f);
    g.node("Clip", {x, "lo", "hi"}, {y});
  } else if (c.op == "LeakyRelu") {
    g.node("LeakyRelu", {x}, {y}, {{"alpha", real(0.2f)}});
  } else if (c.op == "HardSigmoid") {
    g.node("HardSigmoid", {x}, {y}, {{"alpha", real(0.3f)}, {"beta", real(0.4f)}});
  } else {
    g.node(c.op, {x}, {y}, {}, c.domain);
  }
  if (!c.domain.empty()) g.model.opsets[c.domain] = 1;
}

const std::vector<ActivationCase>& all_cases() {
  static const std::vector<ActivationCase> cases{
      {"Relu", "", "Relu"},
      {"LeakyRelu", "", "LeakyRelu"},
      {"Clip", "", "Clip"},
      {"Sigmoid", "", "Sigmoid"},
      {"HardSigmoid", "", "HardSigmoid"},
      {"HardSwish", "", "HardSwish"},
      {"Tanh", "", "Tanh"},
      {"SiLU", "", "SiLU"},
      {"Gelu", "com.microsoft", "Gelu"},
      {"FastGelu", "com.microsoft", "GeluTanh"},
  };
  return cases;
}

TEST(ActivationFusion, FusesEveryActivationIntoConv) {
  for (const ActivationCase& c : all_cases()) {
    GraphBuilder g = conv_graph();
    add_activation(g, c, "c", "y");
    g.output("y");
    const PassStats stats = testing::run_and_compare("activation_fusion", g.model);
    EXPECT_TRUE(stats.changed()) << c.op;
    ASSERT_EQ(g.graph().nodes.size(), 1u) << c.op;
    const model::Node& fused = g.graph().nodes[0];
    EXPECT_EQ(testing::count_op(g.model, "ai.inferlab::FusedConv"), 1) << c.op;
    EXPECT_EQ(fused.attributes.at("activation").s, c.kind);
    EXPECT_EQ(fused.outputs[0], "y");
  }
}

TEST(ActivationFusion, FusesClipAsRelu6WithItsBounds) {
  GraphBuilder g = conv_graph();
  add_activation(g, {"Clip", "", "Clip"}, "c", "y");
  g.output("y");
  const PassStats stats = testing::run_and_compare("activation_fusion", g.model);
  EXPECT_EQ(stats.changes.at("fused Conv+Clip"), 1);
  EXPECT_EQ(g.graph().nodes[0].attributes.at("activation_params").floats,
            (std::vector<float>{0.0f, 6.0f}));
}

TEST(ActivationFusion, FusesGemmAndActivation) {
  GraphBuilder g;
  g.input("a", {3, 5});
  g.node("Gemm", {"a", g.constant("b", {4, 5}), g.constant("c", {4})}, {"g"},
         {{"transB", integer(1)}, {"alpha", real(0.5f)}});
  g.node("Tanh", {"g"}, {"y"});
  g.output("y");
  const PassStats stats = testing::run_and_compare("activation_fusion", g.model);
  EXPECT_EQ(stats.changes.at("fused Gemm+Tanh"), 1);
  EXPECT_EQ(testing::count_op(g.model, "ai.inferlab::FusedGemm"), 1);
}

TEST(ActivationFusion, TurnsTwoDimensionalMatMulAndBiasIntoGemm) {
  GraphBuilder g;
  g.input("a", {3, 5});
  g.node("MatMul", {"a", g.constant("b", {5, 4})}, {"m"});
  g.node("Add", {"m", g.constant("bias", {4})}, {"s"});
  g.node("Relu", {"s"}, {"y"});
  g.output("y");
  const PassStats stats = testing::run_and_compare("activation_fusion", g.model);
  EXPECT_EQ(stats.changes.at("fused MatMul+Add+Relu (as Gemm)"), 1);
  ASSERT_EQ(g.graph().nodes.size(), 1u);
  EXPECT_EQ(testing::count_op(g.model, "ai.inferlab::FusedGemm"), 1);
}

TEST(ActivationFusion, KeepsThreeDimensionalMatMulOffGemm) {
  GraphBuilder g;
  g.input("a", {2, 3, 5});
  g.node("MatMul", {"a", g.constant("b", {5, 4})}, {"m"});
  g.node("Add", {g.constant("bias", {4}), "m"}, {"y"});
  g.output("y");
  const PassStats stats = testing::run_and_compare("activation_fusion", g.model);
  EXPECT_EQ(stats.changes.at("fused MatMul+Add"), 1);
  EXPECT_EQ(testing::count_op(g.model, "ai.inferlab::FusedGemm"), 0);
  EXPECT_EQ(testing::count_op(g.model, "ai.inferlab::FusedMatMul"), 1);
}

TEST(ActivationFusion, DoesNotAbsorbBiasThatBroadcastsDifferently) {
  GraphBuilder g;
  g.input("a", {3, 5});
  g.node("MatMul", {"a", g.constant("b", {5, 4})}, {"m"});
  g.node("Add", {"m", g.constant("bias", {3, 4})}, {"y"});  // not a 1-D bias
  g.output("y");
  EXPECT_FALSE(testing::run_and_compare("activation_fusion", g.model).changed());
  EXPECT_EQ(testing::count_op(g.model, "MatMul"), 1);
}

TEST(ActivationFusion, DoesNotFuseMatMulWithNonConstantWeights) {
  GraphBuilder g;
  g.input("a", {3, 5});
  g.input("b", {5, 4});
  g.node("MatMul", {"a", "b"}, {"m"});
  g.node("Relu", {"m"}, {"y"});
  g.output("y");
  EXPECT_FALSE(testing::run_and_compare("activation_fusion", g.model).changed());
}

TEST(ActivationFusion, DoesNotFuseWhenConvOutputHasAnotherReader) {
  GraphBuilder g = conv_graph();
  g.node("Relu", {"c"}, {"y"});
  g.node("Neg", {"c"}, {"z"});
  g.output("y");
  g.output("z");
  EXPECT_FALSE(testing::run_and_compare("activation_fusion", g.model).changed());
  GraphBuilder h = conv_graph();
  h.node("Sigmoid", {"c"}, {"gate"});
  h.node("Mul", {"c", "gate"}, {"y"});
  h.output("y");
  h.output("gate");  // the gate is read outside the SiLU
  EXPECT_FALSE(testing::run_and_compare("activation_fusion", h.model).changed());
}

TEST(ActivationFusion, DoesNotFuseClipWithRuntimeBounds) {
  GraphBuilder g = conv_graph();
  g.input("hi", {});
  g.node("Clip", {"c", "", "hi"}, {"y"});
  g.output("y");
  EXPECT_FALSE(testing::run_conv_pass("activation_fusion", g.model).changed());
}

TEST(ActivationFusion, LogNamesTheWholeChainAfterBatchNormFolding) {
  GraphBuilder g = conv_graph();
  g.node("BatchNormalization",
         {"c", g.constant("s", {6}, 0.5f, 1.5f), g.constant("o", {6}), g.constant("m", {6}),
          g.constant("v", {6}, 0.5f, 1.5f)},
         {"n"});
  g.node("Relu", {"n"}, {"y"});
  g.output("y");
  const std::vector<Tensor> inputs = testing::random_inputs(g.model);
  const std::vector<Tensor> before = testing::run_model(g.model, inputs);
  OptimizeOptions options;
  options.level = 2;
  const OptimizationLog log = optimize(g.model, options, kernels::OpRegistry::reference());
  bool found = false;
  for (const PassLogEntry& entry : log.passes) {
    found = found || entry.stats.changes.count("fused Conv+BatchNormalization+Relu");
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(log.nodes_after, 1);
  ASSERT_EQ(g.graph().nodes.size(), 1u);
  EXPECT_EQ(g.graph().nodes[0].attributes.at("fused_nodes").strings,
            (std::vector<std::string>{"Conv_0", "BatchNormalization_1", "Relu_2"}));
  const std::vector<Tensor> after = testing::run_model(g.model, inputs);
  EXPECT_LE(inferlab::testing::relative_error(after[0], before[0]), 1e-5);
}

}  // namespace
}  // namespace inferlab::optimizer
