// GraphEditor on hand-built graphs: producer/consumer queries, rewiring
// (including graph outputs, which keep their names), removal, fresh names,
// constants versus overridable initializers, and order restoration.
#include "inferlab/optimizer/graph_editor.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab::optimizer {
namespace {

model::Node make_node(const std::string& op, std::vector<std::string> inputs,
                      std::vector<std::string> outputs, const std::string& name) {
  model::Node node;
  node.name = name;
  node.op_type = op;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

// x -> Relu(a) -> Identity(b) -> Add(b, w) -> y (graph output); w a constant,
// o an overridable initializer.
model::Graph make_graph() {
  model::Graph graph;
  graph.name = "g";
  graph.inputs.push_back(model::ValueInfo{"x", DataType::kFloat32, false, {}});
  graph.outputs.push_back(model::ValueInfo{"y", DataType::kFloat32, false, {}});
  graph.initializers["w"] = Tensor::from_vector<float>({1.0f}, {1});
  graph.initializers["o"] = Tensor::from_vector<float>({2.0f}, {1});
  graph.overridable_initializers.push_back(model::ValueInfo{"o", DataType::kFloat32, false, {}});
  graph.nodes.push_back(make_node("Relu", {"x"}, {"a"}, "relu"));
  graph.nodes.push_back(make_node("Identity", {"a"}, {"b"}, "identity"));
  graph.nodes.push_back(make_node("Add", {"b", "w"}, {"y"}, "add"));
  return graph;
}

TEST(GraphEditor, AnswersProducersConsumersAndUses) {
  model::Graph graph = make_graph();
  GraphEditor editor(graph);
  EXPECT_EQ(editor.producer("a"), 0);
  EXPECT_EQ(editor.producer("x"), -1);
  EXPECT_EQ(editor.producer("w"), -1);
  ASSERT_EQ(editor.consumers("a").size(), 1u);
  EXPECT_EQ(editor.consumers("a")[0], 1);
  EXPECT_EQ(editor.use_count("y"), 1);  // the graph output
  EXPECT_EQ(editor.use_count("nothing"), 0);
  EXPECT_TRUE(editor.is_graph_output("y"));
  EXPECT_TRUE(editor.is_graph_input("x"));
  EXPECT_FALSE(editor.is_graph_input("w"));
}

TEST(GraphEditor, OverridableInitializerIsNotAConstant) {
  model::Graph graph = make_graph();
  GraphEditor editor(graph);
  ASSERT_NE(editor.constant("w"), nullptr);
  EXPECT_EQ(editor.constant("o"), nullptr);
  EXPECT_EQ(editor.constant("x"), nullptr);
  EXPECT_EQ(editor.constant("a"), nullptr);
}

TEST(GraphEditor, CountsEveryReadOfAValue) {
  model::Graph graph = make_graph();
  graph.nodes[2].inputs = {"b", "b"};
  GraphEditor editor(graph);
  EXPECT_EQ(editor.consumers("b").size(), 1u);
  EXPECT_EQ(editor.use_count("b"), 2);
}

TEST(GraphEditor, BypassesANodeAndCompacts) {
  model::Graph graph = make_graph();
  GraphEditor editor(graph);
  EXPECT_EQ(editor.replace_all_uses("b", "a"), "a");
  EXPECT_EQ(editor.use_count("b"), 0);
  editor.remove_node(1);
  EXPECT_TRUE(editor.is_removed(1));
  EXPECT_EQ(editor.producer("b"), -1);
  editor.compact();
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.nodes[1].inputs[0], "a");
  EXPECT_EQ(editor.consumers("a").size(), 1u);
}

TEST(GraphEditor, GraphOutputKeepsItsName) {
  // x -> Relu(a) -> Identity -> y (graph output): removing the Identity renames a to y.
  model::Graph graph;
  graph.inputs.push_back(model::ValueInfo{"x", DataType::kFloat32, false, {}});
  graph.outputs.push_back(model::ValueInfo{"y", DataType::kFloat32, false, {}});
  graph.nodes.push_back(make_node("Relu", {"x"}, {"a"}, "relu"));
  graph.nodes.push_back(make_node("Neg", {"a"}, {"n"}, "neg"));
  graph.nodes.push_back(make_node("Identity", {"a"}, {"y"}, "identity"));
  graph.outputs.push_back(model::ValueInfo{"n", DataType::kFloat32, false, {}});
  GraphEditor editor(graph);
  EXPECT_EQ(editor.replace_all_uses("y", "a"), "y");
  EXPECT_EQ(graph.nodes[0].outputs[0], "y");
  EXPECT_EQ(graph.nodes[1].inputs[0], "y");
  EXPECT_EQ(editor.producer("y"), 0);
  editor.remove_node(2);
  editor.compact();
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.outputs[0].name, "y");
  EXPECT_EQ(editor.use_count("y"), 2);  // Neg and the graph output
}

TEST(GraphEditor, GraphOutputCannotTakeOverAGraphInput) {
  model::Graph graph;
  graph.inputs.push_back(model::ValueInfo{"x", DataType::kFloat32, false, {}});
  graph.outputs.push_back(model::ValueInfo{"y", DataType::kFloat32, false, {}});
  graph.nodes.push_back(make_node("Identity", {"x"}, {"y"}, "identity"));
  GraphEditor editor(graph);
  EXPECT_THROW(editor.replace_all_uses("y", "x"), Error);
}

TEST(GraphEditor, RefusesToRemoveANodeWhoseOutputIsUsed) {
  model::Graph graph = make_graph();
  GraphEditor editor(graph);
  EXPECT_THROW(editor.remove_node(0), Error);
  EXPECT_FALSE(editor.is_removed(0));
}

TEST(GraphEditor, FreshNamesAvoidEveryExistingName) {
  model::Graph graph = make_graph();
  GraphEditor editor(graph);
  EXPECT_EQ(editor.fresh_name("a"), "a_1");
  EXPECT_EQ(editor.fresh_name("a"), "a_2");
  EXPECT_EQ(editor.fresh_name("relu"), "relu_1");  // node names count too
  EXPECT_EQ(editor.fresh_name("new"), "new");
  const std::string name = editor.add_constant("w", Tensor::scalar<float>(3.0f));
  EXPECT_EQ(name, "w_1");
  ASSERT_NE(editor.constant(name), nullptr);
}

TEST(GraphEditor, AddedNodesAreSortedAfterTheirProducers) {
  model::Graph graph = make_graph();
  GraphEditor editor(graph);
  // A new node reading 'a' and feeding the Add, appended at the end.
  const int neg = editor.add_node(make_node("Neg", {"a"}, {"c"}, "neg"));
  EXPECT_EQ(editor.producer("c"), neg);
  editor.replace_all_uses("b", "c");
  editor.remove_node(1);
  editor.compact();
  ASSERT_EQ(graph.nodes.size(), 3u);
  EXPECT_EQ(graph.nodes[0].name, "relu");
  EXPECT_EQ(graph.nodes[1].name, "neg");
  EXPECT_EQ(graph.nodes[2].name, "add");
  EXPECT_EQ(graph.nodes[2].inputs[0], "c");
}

TEST(GraphEditor, RemovesUnusedInitializersButKeepsOverridableOnes) {
  model::Graph graph = make_graph();
  graph.initializers["unused"] = Tensor::scalar<float>(0.0f);
  GraphEditor editor(graph);
  editor.remove_unused_initializers();
  EXPECT_EQ(graph.initializers.count("unused"), 0u);
  EXPECT_EQ(graph.initializers.count("w"), 1u);
  EXPECT_EQ(graph.initializers.count("o"), 1u);
}

TEST(GraphEditor, RenamesReadsInsideSubgraphs) {
  model::Graph graph = make_graph();
  auto body = std::make_shared<model::Graph>();
  body->outer_scope_inputs = {"b"};
  body->outputs.push_back(model::ValueInfo{"z", DataType::kFloat32, false, {}});
  body->nodes.push_back(make_node("Neg", {"b"}, {"z"}, "inner"));
  model::Node holder = make_node("If", {"cond"}, {"r"}, "if");
  holder.attributes["then_branch"].kind = model::Attribute::Kind::kGraph;
  holder.attributes["then_branch"].g = body;
  graph.nodes.push_back(holder);
  GraphEditor editor(graph);
  EXPECT_EQ(editor.use_count("b"), 2);  // the Add and the subgraph
  editor.replace_all_uses("b", "a");
  EXPECT_EQ(body->nodes[0].inputs[0], "a");
  EXPECT_EQ(body->outer_scope_inputs[0], "a");
  EXPECT_EQ(editor.use_count("b"), 0);
}

}  // namespace
}  // namespace inferlab::optimizer
