// activation_affine_fusion on hand-built graphs: scalar Mul/Add after an
// activated fused node join it as activation_affine (PaddleOCR's learnable
// affine blocks), and where it must not fire.
#include "conv_fusion_test_graph.h"

namespace inferlab::optimizer {
namespace {

using testing::GraphBuilder;
using testing::ints;

// x -> Conv -> Relu -> r, then `tail` adds nodes reading r.
GraphBuilder conv_relu() {
  GraphBuilder g;
  g.input("x", {1, 3, 8, 8});
  g.node("Conv", {"x", g.constant("w", {4, 3, 3, 3}), g.constant("b", {4})}, {"c"},
         {{"pads", ints({1, 1, 1, 1})}});
  g.node("Relu", {"c"}, {"r"});
  return g;
}

// Runs activation_fusion, then the affine pass, comparing outputs each time.
PassStats fuse(GraphBuilder& g) {
  testing::run_and_compare("activation_fusion", g.model);
  return testing::run_and_compare("activation_affine_fusion", g.model);
}

TEST(ActivationAffineFusion, AbsorbsAScalarMulThenAdd) {
  GraphBuilder g = conv_relu();
  g.node("Mul", {"r", g.constant("scale", {1}, 0.5f, 1.5f)}, {"m"});
  g.node("Add", {g.constant("shift", {}, -1.0f, 1.0f), "m"}, {"y"});
  g.output("y");
  const PassStats stats = fuse(g);
  // Each pass runs with labels of its own here, so the log starts at "Conv".
  EXPECT_EQ(stats.changes.at("fused Conv+Mul"), 1);
  EXPECT_EQ(stats.changes.at("fused Conv+Mul+Add"), 1);
  EXPECT_EQ(testing::count_op(g.model, "Mul"), 0);
  EXPECT_EQ(testing::count_op(g.model, "Add"), 0);
  const model::Node* fused = testing::find_op(g.model, "ai.inferlab::FusedConv");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->attributes.at("activation_affine").floats.size(), 2u);
  EXPECT_EQ(fused->attributes.at("fused_nodes").strings,
            (std::vector<std::string>{"Conv_0", "Relu_1", "Mul_2", "Add_3"}));
}

TEST(ActivationAffineFusion, LeavesWhatIsNotAScalarAfterAnActivation) {
  // A per-channel constant.
  GraphBuilder per_channel = conv_relu();
  per_channel.node("Mul", {"r", per_channel.constant("k", {1, 4, 1, 1})}, {"y"});
  per_channel.output("y");
  EXPECT_FALSE(fuse(per_channel).changed());
  // A scalar of higher rank than the tensor would enlarge it.
  GraphBuilder rank = conv_relu();
  rank.node("Mul", {"r", rank.constant("k", {1, 1, 1, 1, 1})}, {"y"});
  rank.output("y");
  EXPECT_FALSE(fuse(rank).changed());
  // The activated value has another reader.
  GraphBuilder shared = conv_relu();
  shared.node("Mul", {"r", shared.constant("k", {1})}, {"y"});
  shared.output("y");
  shared.output("r");
  EXPECT_FALSE(fuse(shared).changed());
  // No activation to follow: batchnorm_folding's business, not this pass's.
  GraphBuilder plain;
  plain.input("x", {1, 3, 8, 8});
  plain.node("Conv", {"x", plain.constant("w", {4, 3, 1, 1})}, {"c"});
  plain.node("Mul", {"c", plain.constant("k", {1})}, {"y"});
  plain.output("y");
  EXPECT_FALSE(testing::run_and_compare("activation_affine_fusion", plain.model).changed());
}

}  // namespace
}  // namespace inferlab::optimizer
