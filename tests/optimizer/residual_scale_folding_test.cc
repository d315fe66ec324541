// residual_scale_folding on hand-built graphs: x + x * s with a per-channel
// s becomes x * (s + 1) (PaddleOCR's residual squeeze-excite), in either
// operand order, and where it must not fire.
#include "conv_fusion_test_graph.h"

namespace inferlab::optimizer {
namespace {

using testing::GraphBuilder;

// x [1, 4, 6, 6] and a per-channel s = Sigmoid(GlobalAveragePool(x)).
GraphBuilder scaled_input() {
  GraphBuilder g;
  g.input("x", {1, 4, 6, 6});
  g.node("GlobalAveragePool", {"x"}, {"pooled"});
  g.node("Sigmoid", {"pooled"}, {"s"});
  return g;
}

TEST(ResidualScaleFolding, FoldsXPlusXTimesSInEitherOrder) {
  for (bool swapped : {false, true}) {
    GraphBuilder g = scaled_input();
    g.node("Mul", swapped ? std::vector<std::string>{"s", "x"} : std::vector<std::string>{"x", "s"},
           {"m"});
    g.node("Add", swapped ? std::vector<std::string>{"m", "x"} : std::vector<std::string>{"x", "m"},
           {"y"});
    g.output("y");
    const PassStats stats = testing::run_and_compare("residual_scale_folding", g.model);
    EXPECT_EQ(stats.changes.at("folded Add(x, Mul(x, s)) into Mul(x, s + 1)"), 1) << swapped;
    // One Mul over x remains, and one Add over s alone.
    EXPECT_EQ(testing::count_op(g.model, "Mul"), 1);
    const model::Node* add = testing::find_op(g.model, "Add");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->inputs[0], "s");
  }
}

TEST(ResidualScaleFolding, LeavesOtherSumsAlone) {
  // s as large as x: nothing to save.
  GraphBuilder full = scaled_input();
  full.input("t", {1, 4, 6, 6});
  full.node("Mul", {"x", "t"}, {"m"});
  full.node("Add", {"x", "m"}, {"y"});
  full.output("y");
  EXPECT_FALSE(testing::run_and_compare("residual_scale_folding", full.model).changed());
  // The product has another reader.
  GraphBuilder shared = scaled_input();
  shared.node("Mul", {"x", "s"}, {"m"});
  shared.node("Add", {"x", "m"}, {"y"});
  shared.output("y");
  shared.output("m");
  EXPECT_FALSE(testing::run_and_compare("residual_scale_folding", shared.model).changed());
  // The sum adds a different tensor.
  GraphBuilder other = scaled_input();
  other.input("z", {1, 4, 6, 6});
  other.node("Mul", {"x", "s"}, {"m"});
  other.node("Add", {"z", "m"}, {"y"});
  other.output("y");
  EXPECT_FALSE(testing::run_and_compare("residual_scale_folding", other.model).changed());
}

}  // namespace
}  // namespace inferlab::optimizer
