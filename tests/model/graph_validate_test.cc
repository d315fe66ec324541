// InferLab's own validation and topological sort (the ONNX checker is off
// here: it rejects unsorted graphs before InferLab could sort them).
#include <gtest/gtest.h>

#include "inferlab/model/graph_dump.h"
#include "inferlab/model/onnx_import.h"
#include "onnx_test_models.h"

namespace inferlab::model {
namespace {

using inferlab::testing::add_node;
using inferlab::testing::add_tensor_value;
using inferlab::testing::expect_error;

onnx::ModelProto empty_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* import = model.add_opset_import();
  import->set_version(13);
  add_tensor_value(model.mutable_graph()->add_input(), "x", onnx::TensorProto::FLOAT, {4});
  add_tensor_value(model.mutable_graph()->add_output(), "y", onnx::TensorProto::FLOAT, {4});
  return model;
}

Model import_unchecked(const onnx::ModelProto& proto) {
  ImportOptions options;
  options.run_checker = false;
  const std::string bytes = inferlab::testing::serialize(proto);
  return import_model_bytes(bytes.data(), bytes.size(), options, {}, "test.onnx");
}

std::vector<std::string> node_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& node : graph.nodes) names.push_back(node.name);
  return names;
}

TEST(GraphValidate, SortsOutOfOrderNodesStably) {
  auto proto = empty_model();
  auto* graph = proto.mutable_graph();
  add_node(graph, "Relu", {"b"}, {"y"}, "last");
  add_node(graph, "Neg", {"x"}, {"a"}, "first");
  add_node(graph, "Abs", {"a"}, {"b"}, "middle");
  add_node(graph, "Exp", {"x"}, {"unused"}, "independent");
  const Model model = import_unchecked(proto);
  EXPECT_EQ(node_names(*model.graph),
            (std::vector<std::string>{"first", "middle", "last", "independent"}));
}

TEST(GraphValidate, DetectsCycleNamingANodeOnIt) {
  auto proto = empty_model();
  auto* graph = proto.mutable_graph();
  add_node(graph, "Neg", {"x"}, {"a"}, "entry");
  add_node(graph, "Add", {"a", "c"}, {"b"}, "loop_add");
  add_node(graph, "Abs", {"b"}, {"c"}, "loop_abs");
  add_node(graph, "Relu", {"c"}, {"y"}, "exit");
  expect_error([&] { import_unchecked(proto); }, ErrorCode::kInvalidModel,
               {"test.onnx", "cycle through node 'loop_"});
}

TEST(GraphValidate, RejectsUndefinedInputNamingNodeAndValue) {
  auto proto = empty_model();
  add_node(proto.mutable_graph(), "Add", {"x", "ghost"}, {"y"}, "adder");
  expect_error([&] { import_unchecked(proto); }, ErrorCode::kInvalidModel,
               {"test.onnx", "node 'adder' (Add) reads 'ghost'"});
}

TEST(GraphValidate, RejectsValueDefinedTwice) {
  auto proto = empty_model();
  add_node(proto.mutable_graph(), "Neg", {"x"}, {"y"}, "one");
  add_node(proto.mutable_graph(), "Abs", {"x"}, {"y"}, "two");
  expect_error([&] { import_unchecked(proto); }, ErrorCode::kInvalidModel,
               {"value 'y' is defined twice", "node 'one'", "node 'two'"});
}

TEST(GraphValidate, RejectsOutputNobodyProduces) {
  auto proto = empty_model();
  add_node(proto.mutable_graph(), "Neg", {"x"}, {"z"}, "neg");
  expect_error([&] { import_unchecked(proto); }, ErrorCode::kInvalidModel,
               {"graph output 'y' is not produced"});
}

TEST(GraphValidate, NamesUnnamedNodesUniquely) {
  auto proto = empty_model();
  add_node(proto.mutable_graph(), "Neg", {"x"}, {"a"}, "Relu_1");
  add_node(proto.mutable_graph(), "Relu", {"a"}, {"y"});
  const Model model = import_unchecked(proto);
  EXPECT_EQ(model.graph->nodes[1].name, "Relu_1_2");
}

TEST(GraphValidate, SubgraphReadsOuterScopeValues) {
  auto proto = empty_model();
  auto* graph = proto.mutable_graph();
  add_tensor_value(graph->add_input(), "cond", onnx::TensorProto::BOOL, {});
  onnx::NodeProto* if_node = add_node(graph, "If", {"cond"}, {"y"}, "branch");
  add_node(graph, "Neg", {"x"}, {"negx"}, "neg");  // defined after its reader: sorting fixes it
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* attr = if_node->add_attribute();
    attr->set_name(branch);
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = attr->mutable_g();
    add_tensor_value(body->add_output(), "out", onnx::TensorProto::FLOAT, {4});
    add_node(body, "Abs", {"negx"}, {"out"});
  }
  const Model model = import_unchecked(proto);
  EXPECT_EQ(node_names(*model.graph), (std::vector<std::string>{"neg", "branch"}));
  const Graph& then_graph = *model.graph->nodes[1].attributes.at("then_branch").g;
  EXPECT_EQ(then_graph.outer_scope_inputs, std::vector<std::string>{"negx"});
  EXPECT_NE(dump_graph(model).find("outer scope inputs: negx"), std::string::npos);
}

TEST(GraphValidate, RejectsSubgraphReadingUnknownValue) {
  auto proto = empty_model();
  auto* graph = proto.mutable_graph();
  add_tensor_value(graph->add_input(), "cond", onnx::TensorProto::BOOL, {});
  onnx::NodeProto* if_node = add_node(graph, "If", {"cond"}, {"y"}, "branch");
  onnx::AttributeProto* attr = if_node->add_attribute();
  attr->set_name("then_branch");
  attr->set_type(onnx::AttributeProto::GRAPH);
  add_tensor_value(attr->mutable_g()->add_output(), "out", onnx::TensorProto::FLOAT, {4});
  add_node(attr->mutable_g(), "Abs", {"nowhere"}, {"out"}, "inner");
  expect_error([&] { import_unchecked(proto); }, ErrorCode::kInvalidModel,
               {"subgraph 'then_branch' of node 'branch'", "node 'inner' (Abs) reads 'nowhere'"});
}

}  // namespace
}  // namespace inferlab::model
