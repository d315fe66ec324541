// The profiler's cost model on hand-made nodes whose FLOPs and bytes are
// counted by hand: 2 x multiply-accumulates, inputs read + outputs written.
#include <gtest/gtest.h>

#include "inferlab/core/error.h"
#include "inferlab/profile/cost_model.h"

namespace inferlab::profile {
namespace {

using ValueMap = std::unordered_map<std::string, model::ValueInfo>;

void add_value(ValueMap& values, const std::string& name, const std::vector<int64_t>& dims) {
  model::ValueInfo info;
  info.name = name;
  info.dtype = DataType::kFloat32;
  info.has_shape = true;
  for (int64_t dim : dims) info.dims.push_back(model::Dim::fixed(dim));
  values[name] = info;
}

model::Node make_node(const std::string& op_type, std::vector<std::string> inputs,
                      std::vector<std::string> outputs, const std::string& domain = "") {
  model::Node node;
  node.name = op_type + "_node";
  node.op_type = op_type;
  node.domain = domain;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

void set_int(model::Node& node, const std::string& name, int64_t value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInt;
  attribute.i = value;
  node.attributes[name] = attribute;
}

void set_string(model::Node& node, const std::string& name, const std::string& value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kString;
  attribute.s = value;
  node.attributes[name] = attribute;
}

TEST(CostModel, ConvCountsOutputTimesKernelVolume) {
  ValueMap values;
  add_value(values, "x", {1, 3, 8, 8});
  add_value(values, "w", {4, 3, 3, 3});
  add_value(values, "y", {1, 4, 6, 6});
  const NodeCost cost = node_cost(make_node("Conv", {"x", "w"}, {"y"}), values);
  ASSERT_TRUE(cost.known);
  EXPECT_DOUBLE_EQ(cost.flops, 2.0 * 144 * 27);
  EXPECT_DOUBLE_EQ(cost.bytes, (192 + 108 + 144) * 4.0);
}

TEST(CostModel, GroupedAndFusedConv) {
  ValueMap values;
  add_value(values, "x", {1, 4, 5, 5});
  add_value(values, "w", {4, 1, 3, 3});  // depthwise: group 4
  add_value(values, "b", {4});
  add_value(values, "y", {1, 4, 3, 3});
  model::Node node = make_node("FusedConv", {"x", "w", "b", ""}, {"y"}, "ai.inferlab");
  set_int(node, "group", 4);
  const NodeCost cost = node_cost(node, values);
  ASSERT_TRUE(cost.known);
  EXPECT_DOUBLE_EQ(cost.flops, 2.0 * 36 * 9);
  EXPECT_DOUBLE_EQ(cost.bytes, (100 + 36 + 4 + 36) * 4.0);  // the omitted Z reads nothing
}

TEST(CostModel, ConvTransposeCountsInputTimesKernelVolume) {
  ValueMap values;
  add_value(values, "x", {1, 2, 3, 3});
  add_value(values, "w", {2, 4, 2, 2});
  add_value(values, "y", {1, 4, 4, 4});
  const NodeCost cost = node_cost(make_node("ConvTranspose", {"x", "w"}, {"y"}), values);
  EXPECT_DOUBLE_EQ(cost.flops, 2.0 * 18 * 16);
}

TEST(CostModel, GemmHonoursTransA) {
  ValueMap values;
  add_value(values, "a", {5, 3});
  add_value(values, "b", {5, 4});
  add_value(values, "y", {3, 4});
  model::Node node = make_node("Gemm", {"a", "b"}, {"y"});
  set_int(node, "transA", 1);
  EXPECT_DOUBLE_EQ(node_cost(node, values).flops, 2.0 * 3 * 4 * 5);
  model::Node fused = make_node("FusedGemm", {"a", "b"}, {"y"}, "ai.inferlab");
  set_int(fused, "transA", 1);
  EXPECT_DOUBLE_EQ(node_cost(fused, values).flops, 2.0 * 3 * 4 * 5);
}

TEST(CostModel, BatchedMatMulAndFusedMatMul) {
  ValueMap values;
  add_value(values, "a", {2, 3, 4});
  add_value(values, "b", {4, 5});
  add_value(values, "bias", {5});
  add_value(values, "y", {2, 3, 5});
  EXPECT_DOUBLE_EQ(node_cost(make_node("MatMul", {"a", "b"}, {"y"}), values).flops, 2.0 * 120);
  const NodeCost fused =
      node_cost(make_node("FusedMatMul", {"a", "b", "bias"}, {"y"}, "ai.inferlab"), values);
  EXPECT_DOUBLE_EQ(fused.flops, 2.0 * 120);
  EXPECT_DOUBLE_EQ(fused.bytes, (24 + 20 + 5 + 30) * 4.0);
}

TEST(CostModel, EinsumWithAndWithoutEllipsis) {
  ValueMap values;
  add_value(values, "a", {2, 3, 4});
  add_value(values, "b", {2, 4, 5});
  add_value(values, "y", {2, 3, 5});
  model::Node node = make_node("Einsum", {"a", "b"}, {"y"});
  set_string(node, "equation", "bij,bjk->bik");
  EXPECT_DOUBLE_EQ(node_cost(node, values).flops, 2.0 * 2 * 3 * 4 * 5);
  set_string(node, "equation", "...ij,...jk->...ik");
  EXPECT_DOUBLE_EQ(node_cost(node, values).flops, 2.0 * 2 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(einsum_macs("ij->ji", {Shape{3, 4}}), 0.0);
  EXPECT_THROW(einsum_macs("ij,jk->ik", {Shape{3, 4, 5}, Shape{4, 5}}), Error);
}

TEST(CostModel, AttentionCountsProjectionAndBothProducts) {
  ValueMap values;
  add_value(values, "x", {1, 4, 8});
  add_value(values, "w", {8, 24});
  add_value(values, "bias", {24});
  add_value(values, "y", {1, 4, 8});
  model::Node node = make_node("Attention", {"x", "w", "bias"}, {"y"}, "com.microsoft");
  set_int(node, "num_heads", 2);
  // B*S*D_in*3H + 2 * B*S*S*H (Q.K^T and P.V over all heads).
  EXPECT_DOUBLE_EQ(node_cost(node, values).flops, 2.0 * (4 * 8 * 24 + 2 * 4 * 4 * 8));
}

TEST(CostModel, OtherOperatorsMoveBytesOnly) {
  ValueMap values;
  add_value(values, "x", {2, 8});
  add_value(values, "y", {2, 8});
  const NodeCost cost = node_cost(make_node("Relu", {"x"}, {"y"}), values);
  ASSERT_TRUE(cost.known);
  EXPECT_DOUBLE_EQ(cost.flops, 0.0);
  EXPECT_DOUBLE_EQ(cost.bytes, 2 * 16 * 4.0);
}

TEST(CostModel, GatherReadsOnlyTheRowsItWrites) {
  ValueMap values;
  add_value(values, "table", {1000, 16});
  add_value(values, "ids", {2, 3});
  values["ids"].dtype = DataType::kInt64;
  add_value(values, "y", {2, 3, 16});
  const NodeCost cost = node_cost(make_node("Gather", {"table", "ids"}, {"y"}), values);
  ASSERT_TRUE(cost.known);
  EXPECT_DOUBLE_EQ(cost.bytes, 96 * 4.0 + 6 * 8.0 + 96 * 4.0);
}

TEST(CostModel, UnknownShapeMakesTheCostUnknown) {
  ValueMap values;
  add_value(values, "x", {2, 8});
  model::ValueInfo symbolic;
  symbolic.name = "y";
  symbolic.dtype = DataType::kFloat32;
  symbolic.has_shape = true;
  symbolic.dims = {model::Dim::symbolic("batch"), model::Dim::fixed(8)};
  values["y"] = symbolic;
  EXPECT_FALSE(node_cost(make_node("Relu", {"x"}, {"y"}), values).known);
  EXPECT_FALSE(node_cost(make_node("Relu", {"x"}, {"missing"}), values).known);
}

}  // namespace
}  // namespace inferlab::profile
