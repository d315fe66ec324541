// channels_last_layout (level 3) on hand-built graphs: which nodes become
// channels-last, where the conversions go and how many, outputs unchanged,
// and the export back to ONNX.
#include "inferlab/optimizer/layout_pass.h"
#include "conv_fusion_test_graph.h"
#include "inferlab/optimizer/onnx_export.h"

namespace inferlab::optimizer {
namespace {

using testing::count_op;
using testing::GraphBuilder;
using testing::integer;
using testing::ints;

PassStats run_layout_pass(model::Model& model) {
  const runtime::ShapeInferenceResult shapes =
      runtime::infer_shapes(model, {}, kernels::OpRegistry::reference());
  PassContext context{model, kernels::OpRegistry::reference(), shapes};
  PassStats stats;
  make_channels_last_layout_pass()->run(context, stats);
  return stats;
}

PassStats run_layout_and_compare(model::Model& model) {
  const std::vector<Tensor> inputs = testing::random_inputs(model);
  const std::vector<Tensor> before = testing::run_model(model, inputs);
  PassStats stats = run_layout_pass(model);
  const std::vector<Tensor> after = testing::run_model(model, inputs);
  EXPECT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    EXPECT_EQ(before[i].shape(), after[i].shape()) << "output " << i;
    EXPECT_LE(inferlab::testing::relative_error(after[i], before[i]), 1e-5) << "output " << i;
  }
  return stats;
}

int64_t change(const PassStats& stats, const std::string& kind) {
  auto it = stats.changes.find(kind);
  return it == stats.changes.end() ? 0 : it->second;
}

// x -> Conv -> Relu -> MaxPool -> Conv -> Mul(per-channel constant) ->
// Concat(axis 1, with a second Conv) -> Resize x2 -> Conv -> GlobalAveragePool
// -> Flatten -> y, and the first Conv's output also a graph output.
GraphBuilder chain_graph() {
  GraphBuilder g;
  g.input("x", {1, 3, 16, 16});
  g.node("Conv", {"x", g.constant("w0", {8, 3, 3, 3}), g.constant("b0", {8})}, {"c0"},
         {{"pads", ints({1, 1, 1, 1})}});
  g.node("Relu", {"c0"}, {"r0"});
  g.node("MaxPool", {"r0"}, {"p0"}, {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}});
  g.node("Conv", {"p0", g.constant("w1", {8, 8, 1, 1})}, {"c1"});
  g.node("Mul", {"c1", g.constant("scale", {8, 1, 1})}, {"m1"});
  g.node("Conv", {"p0", g.constant("w2", {4, 8, 3, 3})}, {"c2"}, {{"pads", ints({1, 1, 1, 1})}});
  g.node("Concat", {"m1", "c2"}, {"cat"}, {{"axis", integer(1)}});
  Tensor scales = Tensor::from_vector<float>({1, 1, 2, 2}, {4});
  g.graph().initializers["scales"] = scales;
  g.node("Resize", {"cat", "", "scales"}, {"up"});
  g.node("Conv", {"up", g.constant("w3", {6, 12, 3, 3})}, {"c3"}, {{"strides", ints({2, 2})}});
  g.node("GlobalAveragePool", {"c3"}, {"gap"});
  g.node("Flatten", {"gap"}, {"y"});
  g.output("y");
  g.output("c0");
  return g;
}

TEST(ChannelsLastLayout, KeepsAChainChannelsLastWithConversionsOnlyAtTheEnds) {
  GraphBuilder g = chain_graph();
  const PassStats stats = run_layout_and_compare(g.model);
  // One conversion in (x), one out for the graph output c0, and a free
  // reshape after the global pool (1 x 1: the same bytes in both layouts).
  EXPECT_EQ(change(stats, "reorders to channels-last"), 1);
  EXPECT_EQ(change(stats, "reorders to channels-first"), 1);
  EXPECT_EQ(change(stats, "free reshapes to channels-first (H = W = 1)"), 1);
  EXPECT_EQ(count_op(g.model, "Transpose"), 2);
  EXPECT_EQ(count_op(g.model, "ai.inferlab::FusedConv"), 4);
  EXPECT_EQ(count_op(g.model, "ai.inferlab::NhwcMaxPool"), 1);
  EXPECT_EQ(count_op(g.model, "ai.inferlab::NhwcGlobalAveragePool"), 1);
  for (const model::Node& node : g.graph().nodes) {
    if (node.op_type == "FusedConv") EXPECT_EQ(node.attributes.at("channels_last").i, 1);
    if (node.op_type == "Concat") EXPECT_EQ(node.attributes.at("axis").i, 3);
  }
  // The graph outputs keep their names and channels-first shapes.
  EXPECT_EQ(g.graph().outputs[0].name, "y");
  EXPECT_EQ(g.graph().outputs[1].name, "c0");
}

TEST(ChannelsLastLayout, AnOperatorWithoutAChannelsLastFormReadsAChannelsFirstCopy) {
  GraphBuilder g;
  g.input("x", {1, 4, 5, 5});
  g.node("Conv", {"x", g.constant("w", {6, 4, 1, 1})}, {"c"});
  g.node("Softmax", {"c"}, {"s"}, {{"axis", integer(1)}});
  g.node("Relu", {"c"}, {"r"});
  g.node("Add", {"s", "r"}, {"y"});
  g.output("y");
  const PassStats stats = run_layout_and_compare(g.model);
  // Relu stays channels-last; Softmax gets c back through one Transpose.
  // The Add mixes the layouts: it goes channels-last (s converted), so the
  // graph output y is converted back.
  EXPECT_EQ(change(stats, "reorders to channels-first"), 2);
  EXPECT_EQ(change(stats, "reorders to channels-last"), 2);
  const std::vector<std::string> expected = {"c", "y"};
  EXPECT_EQ(stats.nodes.at("reorders to channels-first"), expected);
  EXPECT_EQ(count_op(g.model, "Softmax"), 1);
}

TEST(ChannelsLastLayout, LeavesConvolutionsWithRunTimeWeightsAndOtherRanksAlone) {
  GraphBuilder g;
  g.input("x", {1, 4, 5, 5});
  g.input("w", {6, 4, 1, 1});
  g.input("x1", {1, 4, 9});
  g.node("Conv", {"x", "w"}, {"y"});
  g.node("Conv", {"x1", g.constant("w1", {2, 4, 3})}, {"y1"});
  g.output("y");
  g.output("y1");
  EXPECT_FALSE(run_layout_and_compare(g.model).changed());
  EXPECT_EQ(count_op(g.model, "Conv"), 2);
}

TEST(ChannelsLastLayout, ExportWritesStandardOperatorsThatComputeTheSame) {
  GraphBuilder g = chain_graph();
  const std::vector<Tensor> inputs = testing::random_inputs(g.model);
  const std::vector<Tensor> before = testing::run_model(g.model, inputs);
  run_layout_pass(g.model);
  const model::Model exported = export_for_onnxruntime(g.model);
  for (const model::Node& node : exported.graph->nodes) {
    EXPECT_NE(node.domain, "ai.inferlab") << node.name << " " << node.op_type;
  }
  const std::vector<Tensor> after = testing::run_model(exported, inputs);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_LE(inferlab::testing::relative_error(after[i], before[i]), 1e-5) << "output " << i;
  }
}

}  // namespace
}  // namespace inferlab::optimizer
