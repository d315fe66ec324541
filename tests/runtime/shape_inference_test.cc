// Shape inference on hand-built graphs: a shape subgraph resolved by folding,
// unresolved inputs, unsupported nodes, and rule errors naming the model.
#include "inferlab/runtime/shape_inference.h"

#include <gtest/gtest.h>

#include "inferlab/kernels/registry.h"

namespace inferlab::runtime {
namespace {

model::ValueInfo float_input(const std::string& name, std::vector<model::Dim> dims) {
  model::ValueInfo info;
  info.name = name;
  info.dtype = DataType::kFloat32;
  info.has_shape = true;
  info.dims = std::move(dims);
  return info;
}

model::Node make_node(const std::string& op, std::vector<std::string> inputs,
                      std::vector<std::string> outputs, const std::string& name) {
  model::Node node;
  node.name = name;
  node.op_type = op;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

model::Attribute int_attribute(int64_t value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInt;
  attribute.i = value;
  return attribute;
}

// x[batch, 3, 4] -> Shape -> Gather(0) -> Concat(-1) -> Reshape(x): y[batch, 12].
model::Model make_reshape_by_shape_model() {
  auto graph = std::make_shared<model::Graph>();
  graph->name = "reshape_by_shape";
  graph->inputs.push_back(float_input(
      "x", {model::Dim::symbolic("batch"), model::Dim::fixed(3), model::Dim::fixed(4)}));
  graph->outputs.push_back(model::ValueInfo{"y", DataType::kFloat32, false, {}});
  graph->initializers["zero"] = Tensor::from_vector<int64_t>({0}, {1});
  graph->initializers["minus_one"] = Tensor::from_vector<int64_t>({-1}, {1});
  graph->nodes.push_back(make_node("Shape", {"x"}, {"shape"}, "shape"));
  model::Node gather = make_node("Gather", {"shape", "zero"}, {"batch_size"}, "gather");
  gather.attributes["axis"] = int_attribute(0);
  graph->nodes.push_back(gather);
  model::Node concat = make_node("Concat", {"batch_size", "minus_one"}, {"target"}, "concat");
  concat.attributes["axis"] = int_attribute(0);
  graph->nodes.push_back(concat);
  graph->nodes.push_back(make_node("Reshape", {"x", "target"}, {"y"}, "reshape"));
  model::Model model;
  model.source = "reshape_by_shape.onnx";
  model.ir_version = 8;
  model.opsets[""] = 13;
  model.graph = graph;
  return model;
}

const kernels::OpRegistry& registry() { return kernels::OpRegistry::reference(); }

TEST(ShapeInference, ResolvesShapeGatherConcatReshapeSubgraph) {
  const model::Model model = make_reshape_by_shape_model();
  ShapeInferenceOptions options;
  options.input_shapes["x"] = {2, 3, 4};
  const ShapeInferenceResult result = infer_shapes(model, options, registry());

  const model::ValueInfo* y = result.find_resolved("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->dtype, DataType::kFloat32);
  EXPECT_EQ(y->static_shape(), (Shape{2, 12}));
  ASSERT_EQ(result.known_values.count("target"), 1u);
  EXPECT_EQ(result.known_values.at("target").to_int64_vector(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(result.find_resolved("shape")->static_shape(), (Shape{3}));
  EXPECT_TRUE(result.unresolved.empty());
}

TEST(ShapeInference, LeavesDependentValuesUnresolvedWithoutInputShape) {
  const model::Model model = make_reshape_by_shape_model();
  const ShapeInferenceResult result = infer_shapes(model, {}, registry());
  EXPECT_EQ(result.find_resolved("y"), nullptr);
  EXPECT_EQ(result.unresolved.count("y"), 1u);
  EXPECT_EQ(result.unresolved.count("x"), 1u);
  // The declared symbolic input is still reported.
  EXPECT_EQ(result.values.at("x").to_string(), "float[batch, 3, 4]");
}

TEST(ShapeInference, SkipsNodesWithoutKernel) {
  model::Model model = make_reshape_by_shape_model();
  model.graph->nodes[1].op_type = "FooGather";
  ShapeInferenceOptions options;
  options.input_shapes["x"] = {2, 3, 4};
  const ShapeInferenceResult result = infer_shapes(model, options, registry());
  EXPECT_NE(result.find_resolved("shape"), nullptr);
  EXPECT_EQ(result.find_resolved("batch_size"), nullptr);
  EXPECT_EQ(result.find_resolved("y"), nullptr);
}

TEST(ShapeInference, RuleErrorNamesModelAndNode) {
  model::Model model = make_reshape_by_shape_model();
  model.graph->initializers["minus_one"] = Tensor::from_vector<int64_t>({5}, {1});
  ShapeInferenceOptions options;
  options.input_shapes["x"] = {2, 3, 4};
  try {
    infer_shapes(model, options, registry());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("reshape_by_shape.onnx"), std::string::npos) << message;
    EXPECT_NE(message.find("'reshape'"), std::string::npos) << message;
  }
}

TEST(ShapeInference, RejectsInferredTensorOverTheByteLimit) {
  const model::Model model = make_reshape_by_shape_model();
  ShapeInferenceOptions options;
  options.input_shapes["x"] = {2, 3, 4};
  options.max_tensor_bytes = 64;  // 2*12 floats = 96 bytes
  try {
    infer_shapes(model, options, registry());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kLimitExceeded);
    EXPECT_NE(std::string(error.what()).find("limit"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace inferlab::runtime
