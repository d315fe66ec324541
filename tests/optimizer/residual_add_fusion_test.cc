// residual_add_fusion on hand-built graphs: Add(conv, other) (+ activation)
// into FusedConv with Z — and where it must not fire.
#include "conv_fusion_test_graph.h"

namespace inferlab::optimizer {
namespace {

using testing::GraphBuilder;
using testing::ints;

// x[2,4,6,6] -> Conv(4 -> 4, pads 1) -> c; Add(c, x) -> s
GraphBuilder residual_graph(bool conv_first) {
  GraphBuilder g;
  g.input("x", {2, 4, 6, 6});
  g.node("Conv", {"x", g.constant("w", {4, 4, 3, 3}), g.constant("b", {4})}, {"c"},
         {{"pads", ints({1, 1, 1, 1})}});
  g.node("Add",
         conv_first ? std::vector<std::string>{"c", "x"} : std::vector<std::string>{"x", "c"},
         {"s"});
  return g;
}

TEST(ResidualAddFusion, FusesAddAndReluIntoConv) {
  for (bool conv_first : {true, false}) {
    GraphBuilder g = residual_graph(conv_first);
    g.node("Relu", {"s"}, {"y"});
    g.output("y");
    const PassStats stats = testing::run_and_compare("residual_add_fusion", g.model);
    EXPECT_EQ(stats.changes.at("fused Conv+Add+Relu"), 1);
    ASSERT_EQ(g.graph().nodes.size(), 1u);
    const model::Node& fused = g.graph().nodes[0];
    EXPECT_EQ(fused.op_type, "FusedConv");
    ASSERT_EQ(fused.inputs.size(), 4u);
    EXPECT_EQ(fused.inputs[3], "x");
    EXPECT_EQ(fused.attributes.at("activation").s, "Relu");
    EXPECT_EQ(fused.attributes.at("fused_nodes").strings,
              (std::vector<std::string>{"Conv_0", "Add_1", "Relu_2"}));
  }
}

TEST(ResidualAddFusion, FusesAddWithoutActivation) {
  GraphBuilder g = residual_graph(true);
  g.output("s");
  const PassStats stats = testing::run_and_compare("residual_add_fusion", g.model);
  EXPECT_EQ(stats.changes.at("fused Conv+Add"), 1);
  EXPECT_EQ(g.graph().nodes.size(), 1u);
  EXPECT_EQ(g.graph().nodes[0].outputs[0], "s");
}

TEST(ResidualAddFusion, DoesNotFuseWhenConvOutputHasAnotherReader) {
  GraphBuilder g = residual_graph(true);
  g.output("s");
  g.output("c");
  EXPECT_FALSE(testing::run_and_compare("residual_add_fusion", g.model).changed());
}

TEST(ResidualAddFusion, DoesNotFuseWhenOtherOperandBroadcasts) {
  GraphBuilder g;
  g.input("x", {2, 4, 6, 6});
  g.input("z", {1, 4, 1, 1});
  g.node("Conv", {"x", g.constant("w", {4, 4, 1, 1})}, {"c"});
  g.node("Add", {"c", "z"}, {"s"});
  g.output("s");
  EXPECT_FALSE(testing::run_and_compare("residual_add_fusion", g.model).changed());
}

TEST(ResidualAddFusion, DoesNotFuseNonConstantWeights) {
  GraphBuilder g;
  g.input("x", {1, 4, 6, 6});
  g.input("w", {4, 4, 1, 1});
  g.node("Conv", {"x", "w"}, {"c"});
  g.node("Add", {"c", "x"}, {"s"});
  g.output("s");
  EXPECT_FALSE(testing::run_and_compare("residual_add_fusion", g.model).changed());
}

}  // namespace
}  // namespace inferlab::optimizer
