// batchnorm_folding on hand-built graphs: BatchNormalization after Conv
// (grouped, with and without bias), ConvTranspose (grouped) and Gemm (both
// transB), per-channel Mul/Add after Conv, ConvTranspose and Gemm — and
// where it must not fire.
#include "conv_fusion_test_graph.h"

namespace inferlab::optimizer {
namespace {

using testing::GraphBuilder;
using testing::integer;
using testing::ints;
using testing::real;

// BatchNormalization params for `channels`, named after `prefix`.
std::vector<std::string> bn_params(GraphBuilder& g, const std::string& prefix, int64_t channels) {
  return {g.constant(prefix + "_scale", {channels}, 0.5f, 1.5f),
          g.constant(prefix + "_bias", {channels}), g.constant(prefix + "_mean", {channels}),
          g.constant(prefix + "_var", {channels}, 0.2f, 2.0f)};
}

void add_bn(GraphBuilder& g, const std::string& x, const std::string& y, int64_t channels) {
  std::vector<std::string> inputs{x};
  for (const std::string& p : bn_params(g, y, channels)) inputs.push_back(p);
  g.node("BatchNormalization", inputs, {y}, {{"epsilon", real(1e-3f)}});
}

// x[2,6,8,8] -> Conv(group 2, 8 out, pads, stride) -> c -> BN -> y
GraphBuilder conv_bn(bool with_bias) {
  GraphBuilder g;
  g.input("x", {2, 6, 8, 8});
  std::vector<std::string> inputs{"x", g.constant("w", {8, 3, 3, 3})};
  if (with_bias) inputs.push_back(g.constant("b", {8}));
  g.node("Conv", inputs, {"c"},
         {{"group", integer(2)}, {"pads", ints({1, 0, 1, 2})}, {"strides", ints({2, 1})}});
  add_bn(g, "c", "y", 8);
  g.output("y");
  return g;
}

TEST(BatchNormFolding, FoldsIntoGroupedConvWithBias) {
  GraphBuilder g = conv_bn(true);
  const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
  EXPECT_EQ(stats.changes.at("fused Conv+BatchNormalization"), 1);
  EXPECT_EQ(testing::count_op(g.model, "BatchNormalization"), 0);
  const model::Node* fused = testing::find_op(g.model, "ai.inferlab::FusedConv");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->name, "Conv_0");
  EXPECT_EQ(fused->attributes.at("fused_nodes").strings,
            (std::vector<std::string>{"Conv_0", "BatchNormalization_1"}));
  EXPECT_EQ(g.model.opsets.at("ai.inferlab"), 1);
}

TEST(BatchNormFolding, FoldsIntoConvWithoutBias) {
  GraphBuilder g = conv_bn(false);
  testing::run_and_compare("batchnorm_folding", g.model);
  EXPECT_EQ(testing::count_op(g.model, "BatchNormalization"), 0);
}

TEST(BatchNormFolding, FoldsIntoGroupedConvTranspose) {
  GraphBuilder g;
  g.input("x", {2, 4, 5, 5});
  // W [C_in=4, C_out/group=3, 3, 3], group 2: 6 output channels.
  g.node("ConvTranspose", {"x", g.constant("w", {4, 3, 3, 3}), g.constant("b", {6})}, {"c"},
         {{"group", integer(2)}, {"strides", ints({2, 2})}});
  add_bn(g, "c", "y", 6);
  g.output("y");
  const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
  EXPECT_EQ(stats.changes.at("fused ConvTranspose+BatchNormalization"), 1);
  EXPECT_EQ(testing::count_op(g.model, "BatchNormalization"), 0);
  EXPECT_EQ(testing::count_op(g.model, "ConvTranspose"), 1);
}

void gemm_bn_case(bool trans_b) {
  GraphBuilder g;
  g.input("a", {3, 5});
  const Shape b_shape = trans_b ? Shape{4, 5} : Shape{5, 4};
  g.node("Gemm", {"a", g.constant("b", b_shape), g.constant("c", {4})}, {"g"},
         {{"transB", integer(trans_b ? 1 : 0)}, {"alpha", real(0.7f)}, {"beta", real(0.3f)}});
  add_bn(g, "g", "y", 4);
  g.output("y");
  const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
  EXPECT_EQ(stats.changes.at("fused Gemm+BatchNormalization"), 1);
  EXPECT_EQ(testing::count_op(g.model, "ai.inferlab::FusedGemm"), 1);
}

TEST(BatchNormFolding, FoldsIntoGemmTransB) { gemm_bn_case(true); }
TEST(BatchNormFolding, FoldsIntoGemm) { gemm_bn_case(false); }

// x -> Conv -> c -> {Mul|Add}(c, k) -> y
GraphBuilder conv_then(const std::string& op, const Shape& k_shape) {
  GraphBuilder g;
  g.input("x", {1, 3, 8, 8});
  g.node("Conv", {"x", g.constant("w", {8, 3, 3, 3}), g.constant("b", {8})}, {"c"},
         {{"pads", ints({1, 1, 1, 1})}});
  g.node(op, {"c", g.constant("k", k_shape)}, {"y"});
  g.output("y");
  return g;
}

TEST(BatchNormFolding, FoldsPerChannelMulAndAdd) {
  for (const Shape& shape : {Shape{1, 8, 1, 1}, Shape{8, 1, 1}, Shape{1}, Shape{}}) {
    for (const char* op : {"Mul", "Add"}) {
      GraphBuilder g = conv_then(op, shape);
      const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
      EXPECT_EQ(stats.changes.at(std::string("fused Conv+") + op), 1) << op;
      EXPECT_EQ(testing::count_op(g.model, op), 0) << op << " " << shape_to_string(shape);
    }
  }
}

// PaddleOCR's head: ConvTranspose -> Add of a [1, M, 1, 1] bias -> BN.
TEST(BatchNormFolding, FoldsAddAndBatchNormAfterConvTranspose) {
  GraphBuilder g;
  g.input("x", {1, 4, 5, 5});
  g.node("ConvTranspose", {"x", g.constant("w", {4, 3, 2, 2})}, {"c"}, {{"strides", ints({2, 2})}});
  g.node("Add", {"c", g.constant("k", {1, 3, 1, 1})}, {"a"});
  add_bn(g, "a", "y", 3);
  g.output("y");
  const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
  EXPECT_EQ(stats.changes.at("fused ConvTranspose+Add"), 1);
  EXPECT_EQ(stats.changes.at("fused ConvTranspose+BatchNormalization"), 1);
  EXPECT_EQ(testing::count_op(g.model, "Add"), 0);
  EXPECT_EQ(testing::count_op(g.model, "BatchNormalization"), 0);
  EXPECT_EQ(testing::count_op(g.model, "ConvTranspose"), 1);
}

TEST(BatchNormFolding, FoldsPerColumnMulAndAddAfterGemm) {
  for (const char* op : {"Mul", "Add"}) {
    GraphBuilder g;
    g.input("a", {3, 5});
    g.node("Gemm", {"a", g.constant("b", {4, 5}), g.constant("c", {4})}, {"g"},
           {{"transB", integer(1)}});
    g.node(op, {g.constant("k", {4}), "g"}, {"y"});
    g.output("y");
    const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
    EXPECT_EQ(stats.changes.at(std::string("fused Gemm+") + op), 1) << op;
    EXPECT_EQ(testing::count_op(g.model, op), 0) << op;
  }
}

TEST(BatchNormFolding, DoesNotFoldMulThatIsNotPerChannel) {
  // [8] aligns with the width, [1,1,8,8] varies per pixel, [2,8,1,1] adds a batch.
  for (const Shape& shape : {Shape{8}, Shape{1, 1, 8, 8}, Shape{2, 8, 1, 1}}) {
    GraphBuilder g = conv_then("Mul", shape);
    const PassStats stats = testing::run_and_compare("batchnorm_folding", g.model);
    EXPECT_FALSE(stats.changed()) << shape_to_string(shape);
    EXPECT_EQ(testing::count_op(g.model, "Mul"), 1);
  }
}

TEST(BatchNormFolding, DoesNotFoldWhenConvOutputHasAnotherReader) {
  GraphBuilder g = conv_bn(true);
  g.node("Relu", {"c"}, {"r"});
  g.output("r");
  EXPECT_FALSE(testing::run_and_compare("batchnorm_folding", g.model).changed());
  GraphBuilder h = conv_bn(true);
  h.output("c");  // the Conv output is itself a graph output
  EXPECT_FALSE(testing::run_and_compare("batchnorm_folding", h.model).changed());
}

TEST(BatchNormFolding, DoesNotFoldNonConstantWeights) {
  GraphBuilder g;
  g.input("x", {1, 3, 6, 6});
  g.input("w", {4, 3, 3, 3});
  g.node("Conv", {"x", "w"}, {"c"});
  add_bn(g, "c", "y", 4);
  g.output("y");
  EXPECT_FALSE(testing::run_and_compare("batchnorm_folding", g.model).changed());
  EXPECT_EQ(testing::count_op(g.model, "BatchNormalization"), 1);
}

TEST(BatchNormFolding, DoesNotFoldTrainingBatchNormalization) {
  GraphBuilder g = conv_bn(true);
  model::Node& bn = g.graph().nodes.back();
  bn.outputs = {"y", "running_mean", "running_var"};
  bn.attributes["training_mode"] = integer(1);
  EXPECT_FALSE(testing::run_conv_pass("batchnorm_folding", g.model).changed());
  EXPECT_EQ(testing::count_op(g.model, "BatchNormalization"), 1);
}

}  // namespace
}  // namespace inferlab::optimizer
