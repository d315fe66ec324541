// common_subexpression_elimination on hand-built graphs: identical nodes
// merge; different attributes, random ops and two graph outputs do not.
#include <gtest/gtest.h>

#include "basic_pass_test_util.h"
#include "inferlab/optimizer/basic_passes.h"

namespace inferlab::optimizer {
namespace {

using basic_test::ints_attr;
using basic_test::TestModel;

PassStats run_cse(TestModel& test) {
  auto pass = make_common_subexpression_elimination_pass();
  return basic_test::run_pass(*pass, test.model);
}

TEST(CommonSubexpressionElimination, MergesIdenticalNodesAndWhatFollows) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.node("relu_a", "Relu", {"x"}, {"a"});
  test.node("relu_b", "Relu", {"x"}, {"b"});
  test.node("neg_a", "Neg", {"a"}, {"na"});
  test.node("neg_b", "Neg", {"b"}, {"nb"});
  test.node("add", "Add", {"na", "nb"}, {"y"});
  const PassStats stats = run_cse(test);
  EXPECT_EQ(stats.changes.at("merged Relu"), 1);
  EXPECT_EQ(stats.changes.at("merged Neg"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 3u);
  EXPECT_EQ(test.graph().nodes[2].inputs, (std::vector<std::string>{"na", "na"}));
}

TEST(CommonSubexpressionElimination, DoesNotMergeDifferentAttributes) {
  TestModel test;
  test.input("x", {2, 2});
  test.output("y");
  test.node("t1", "Transpose", {"x"}, {"a"}, {{"perm", ints_attr({1, 0})}});
  test.node("t2", "Transpose", {"x"}, {"b"}, {{"perm", ints_attr({0, 1})}});
  test.node("add", "Add", {"a", "b"}, {"y"});
  EXPECT_FALSE(run_cse(test).changed());
}

TEST(CommonSubexpressionElimination, DoesNotMergeRandomOps) {
  TestModel test;
  test.input("x", {2, 2});
  test.output("y");
  test.node("r1", "RandomUniformLike", {"x"}, {"a"});
  test.node("r2", "RandomUniformLike", {"x"}, {"b"});
  test.node("add", "Add", {"a", "b"}, {"y"});
  EXPECT_FALSE(run_cse(test).changed());
}

TEST(CommonSubexpressionElimination, KeepsEveryGraphOutputName) {
  TestModel both;
  both.input("x", {2});
  both.output("y1");
  both.output("y2");
  both.node("r1", "Relu", {"x"}, {"y1"});
  both.node("r2", "Relu", {"x"}, {"y2"});
  EXPECT_FALSE(run_cse(both).changed());

  TestModel one;  // the duplicate's output is a graph output: the kept node takes its name
  one.input("x", {2});
  one.output("y");
  one.output("z");
  one.node("r1", "Relu", {"x"}, {"a"});
  one.node("neg", "Neg", {"a"}, {"z"});
  one.node("r2", "Relu", {"x"}, {"y"});
  EXPECT_TRUE(run_cse(one).changed());
  ASSERT_EQ(one.graph().nodes.size(), 2u);
  EXPECT_EQ(one.graph().nodes[0].outputs[0], "y");
  EXPECT_EQ(one.graph().nodes[1].inputs[0], "y");
}

}  // namespace
}  // namespace inferlab::optimizer
