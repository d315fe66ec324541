// dead_node_elimination on hand-built graphs: unread chains and unread
// initializers go; graph outputs, overridable initializers and nodes of
// unknown domains stay.
#include <gtest/gtest.h>

#include "basic_pass_test_util.h"
#include "inferlab/optimizer/basic_passes.h"

namespace inferlab::optimizer {
namespace {

using basic_test::TestModel;

TEST(DeadNodeElimination, RemovesAnUnreadChainAndItsInitializers) {
  TestModel test;
  test.input("x", {2});
  test.output("y");
  test.constant("c", Tensor::from_vector<float>({1, 2}, {2}));
  test.overridable("o", Tensor::from_vector<float>({1, 2}, {2}));
  test.node("relu", "Relu", {"x"}, {"y"});
  test.node("add", "Add", {"x", "c"}, {"dead1"});
  test.node("neg", "Neg", {"dead1"}, {"dead2"});
  auto pass = make_dead_node_elimination_pass();
  const PassStats stats = basic_test::run_pass(*pass, test.model);
  EXPECT_EQ(stats.changes.at("removed unused Add"), 1);
  EXPECT_EQ(stats.changes.at("removed unused Neg"), 1);
  EXPECT_EQ(stats.changes.at("removed unused initializer"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().initializers.count("c"), 0u);
  EXPECT_EQ(test.graph().initializers.count("o"), 1u);
}

TEST(DeadNodeElimination, KeepsGraphOutputsAndUnknownDomains) {
  TestModel test;
  test.input("x", {2});
  test.output("y");
  test.node("relu", "Relu", {"x"}, {"y"});
  test.node("custom", "Log", {"x"}, {"unread"}).domain = "com.example";
  auto pass = make_dead_node_elimination_pass();
  EXPECT_FALSE(basic_test::run_pass(*pass, test.model).changed());
  EXPECT_EQ(test.graph().nodes.size(), 2u);
}

}  // namespace
}  // namespace inferlab::optimizer
