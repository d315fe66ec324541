// lower_conv_family: each fused node written back as ONNX computes what the
// fused node computed (run on the reference kernels), as com.microsoft
// FusedConv where ONNX Runtime's matches, decomposed otherwise; likewise
// ai.inferlab::HardSwish.
#include "conv_fusion_test_graph.h"
#include "inferlab/optimizer/fused_lowering.h"

namespace inferlab::optimizer {
namespace {

using testing::GraphBuilder;
using testing::ints;

model::Attribute text(const std::string& value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kString;
  a.s = value;
  return a;
}

model::Attribute floats(std::vector<float> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kFloats;
  a.floats = std::move(values);
  return a;
}

// Lowers every node and checks outputs are unchanged; returns the op keys.
std::map<std::string, int64_t> lower_and_compare(model::Model& model) {
  model.opsets["ai.inferlab"] = 1;
  model.opsets["com.microsoft"] = 1;
  const std::vector<Tensor> inputs = testing::random_inputs(model);
  const std::vector<Tensor> before = testing::run_model(model, inputs);
  GraphEditor editor(*model.graph);
  const size_t count = model.graph->nodes.size();
  for (size_t i = 0; i < count; ++i) EXPECT_TRUE(lower_conv_family(editor, static_cast<int>(i)));
  editor.compact();
  // InferLab runs ONNX Runtime's FusedConv as its own (same semantics).
  model::Model runnable = model;
  runnable.graph = std::make_shared<model::Graph>(*model.graph);
  for (model::Node& node : runnable.graph->nodes) {
    if (node.domain == "com.microsoft" && node.op_type == "FusedConv") node.domain = "ai.inferlab";
  }
  const std::vector<Tensor> after = testing::run_model(runnable, inputs);
  EXPECT_LE(inferlab::testing::relative_error(after[0], before[0]), 1e-5);
  std::map<std::string, int64_t> ops;
  for (const model::Node& node : model.graph->nodes) ++ops[op_key(node)];
  return ops;
}

GraphBuilder fused_conv(const std::string& activation, std::vector<float> params, bool residual) {
  GraphBuilder g;
  g.input("x", {2, 4, 6, 6});
  std::vector<std::string> inputs{"x", g.constant("w", {4, 2, 3, 3}), g.constant("b", {4})};
  if (residual) {
    g.input("z", {2, 4, 6, 6});
    inputs.push_back("z");
  }
  model::AttributeMap attributes{{"group", testing::integer(2)}, {"pads", ints({1, 1, 1, 1})}};
  if (!activation.empty()) attributes["activation"] = text(activation);
  if (!params.empty()) attributes["activation_params"] = floats(params);
  g.node("FusedConv", inputs, {"y"}, attributes, "ai.inferlab");
  g.output("y");
  return g;
}

TEST(ConvFusionLowering, UsesOnnxRuntimeFusedConvWhereItMatches) {
  for (bool residual : {false, true}) {
    GraphBuilder g = fused_conv("Clip", {0.0f, 6.0f}, residual);
    const auto ops = lower_and_compare(g.model);
    EXPECT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops.count("com.microsoft::FusedConv"), 1u);
    EXPECT_EQ(g.graph().nodes[0].name, "FusedConv_0");
    EXPECT_EQ(g.graph().nodes[0].attributes.count("fused_nodes"), 0u);
  }
}

// The activation_affine comes last, as a Mul and an Add, after ONNX
// Runtime's FusedConv or after the decomposed activation.
TEST(ConvFusionLowering, WritesTheActivationAffineAsMulAndAdd) {
  for (const std::string activation : {"Relu", "HardSwish"}) {
    GraphBuilder g = fused_conv(activation, {}, false);
    g.graph().nodes[0].attributes["activation_affine"] = floats({0.75f, -0.5f});
    const auto ops = lower_and_compare(g.model);
    EXPECT_EQ(ops.at("Mul"), activation == "Relu" ? 1 : 2) << activation;
    EXPECT_EQ(ops.count("Add"), 1u) << activation;
    EXPECT_EQ(ops.count("com.microsoft::FusedConv"), activation == "Relu" ? 1u : 0u);
  }
}

TEST(ConvFusionLowering, WritesPlainConvWithoutActivationOrResidual) {
  GraphBuilder g = fused_conv("", {}, false);
  const auto ops = lower_and_compare(g.model);
  EXPECT_EQ(ops, (std::map<std::string, int64_t>{{"Conv", 1}}));
}

TEST(ConvFusionLowering, DecomposesActivationsOnnxRuntimeLacks) {
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> cases{
      {"SiLU", {{"Conv", 1}, {"Add", 1}, {"Sigmoid", 1}, {"Mul", 1}}},
      {"HardSwish", {{"Conv", 1}, {"Add", 1}, {"HardSigmoid", 1}, {"Mul", 1}}},
      {"Gelu", {{"Conv", 1}, {"Add", 1}, {"com.microsoft::Gelu", 1}}},
      {"GeluTanh", {{"Conv", 1}, {"Add", 1}, {"com.microsoft::FastGelu", 1}}},
  };
  for (const auto& [activation, expected] : cases) {
    GraphBuilder g = fused_conv(activation, {}, true);
    EXPECT_EQ(lower_and_compare(g.model), expected) << activation;
  }
}

TEST(ConvFusionLowering, DecomposesFusedGemmAndFusedMatMul) {
  GraphBuilder g;
  g.input("a", {2, 3, 5});
  g.node("FusedMatMul", {"a", g.constant("b", {5, 4}), g.constant("bias", {4})}, {"m"},
         {{"activation", text("LeakyRelu")}, {"activation_params", floats({0.2f})}}, "ai.inferlab");
  g.node("Reshape", {"m", "shape"}, {"r"});
  g.graph().initializers["shape"] = Tensor::from_vector<int64_t>({6, 4}, {2});
  g.node("FusedGemm", {"r", g.constant("w", {3, 4})}, {"y"},
         {{"transB", testing::integer(1)}, {"activation", text("Tanh")}}, "ai.inferlab");
  g.output("y");
  model::Model& model = g.model;
  model.opsets["ai.inferlab"] = 1;
  const std::vector<Tensor> inputs = testing::random_inputs(model);
  const std::vector<Tensor> before = testing::run_model(model, inputs);
  GraphEditor editor(*model.graph);
  EXPECT_TRUE(lower_conv_family(editor, 0));
  EXPECT_FALSE(lower_conv_family(editor, 1));  // Reshape: not of this family
  EXPECT_TRUE(lower_conv_family(editor, 2));
  editor.compact();
  EXPECT_LE(inferlab::testing::relative_error(testing::run_model(model, inputs)[0], before[0]),
            1e-5);
  EXPECT_EQ(testing::count_op(model, "MatMul"), 1);
  EXPECT_EQ(testing::count_op(model, "Add"), 1);
  EXPECT_EQ(testing::count_op(model, "LeakyRelu"), 1);
  EXPECT_EQ(testing::count_op(model, "Gemm"), 1);
  EXPECT_EQ(testing::count_op(model, "Tanh"), 1);
}

TEST(ConvFusionLowering, WritesInferLabHardSwishAsXTimesHardSigmoid) {
  GraphBuilder g;
  g.model.opsets[""] = 11;  // ONNX has no HardSwish before 14
  g.input("x", {2, 3, 5});
  g.node("HardSwish", {"x"}, {"y"}, {}, "ai.inferlab");
  g.output("y");
  const auto ops = lower_and_compare(g.model);
  EXPECT_EQ(ops, (std::map<std::string, int64_t>{{"HardSigmoid", 1}, {"Mul", 1}}));
  EXPECT_EQ(g.graph().nodes.back().outputs[0], "y");
}

}  // namespace
}  // namespace inferlab::optimizer
