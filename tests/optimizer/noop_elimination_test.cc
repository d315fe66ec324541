// noop_elimination on hand-built graphs: Identity, inference Dropout and
// provable no-op Reshape/Cast/Transpose/Pad/Slice/Expand go; graph outputs
// keep their names; anything that changes data stays.
#include <gtest/gtest.h>

#include "basic_pass_test_util.h"
#include "inferlab/optimizer/basic_passes.h"
#include "test_util.h"

namespace inferlab::optimizer {
namespace {

using basic_test::int_attr;
using basic_test::ints_attr;
using basic_test::TestModel;

PassStats run_noop(TestModel& test) {
  auto pass = make_noop_elimination_pass();
  return basic_test::run_pass(*pass, test.model);
}

TEST(NoopElimination, RemovesIdentityAndInferenceDropout) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.node("identity", "Identity", {"x"}, {"a"});
  test.node("dropout", "Dropout", {"a"}, {"b", "mask"});
  test.node("relu", "Relu", {"b"}, {"y"});
  const PassStats stats = run_noop(test);
  EXPECT_EQ(stats.changes.at("removed Identity"), 1);
  EXPECT_EQ(stats.changes.at("removed Dropout"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].inputs[0], "x");
}

TEST(NoopElimination, GraphOutputKeepsItsName) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.node("relu", "Relu", {"x"}, {"a"});
  test.node("identity", "Identity", {"a"}, {"y"});
  EXPECT_TRUE(run_noop(test).changed());
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].outputs[0], "y");
  EXPECT_EQ(test.graph().outputs[0].name, "y");
}

TEST(NoopElimination, KeepsAnIdentityFromAGraphInputToAGraphOutput) {
  TestModel test;
  test.input("x", {2});
  test.output("y");
  test.node("identity", "Identity", {"x"}, {"y"});
  EXPECT_FALSE(run_noop(test).changed());
  EXPECT_EQ(test.count("Identity"), 1);
}

TEST(NoopElimination, KeepsADropoutWhoseMaskIsRead) {
  TestModel test;
  test.input("x", {2});
  test.output("y");
  test.output("m");
  test.node("dropout", "Dropout", {"x"}, {"y", "m"});
  EXPECT_FALSE(run_noop(test).changed());
}

TEST(NoopElimination, KeepsADropoutInTrainingMode) {
  TestModel test;
  test.input("x", {2});
  test.input("training", {}, DataType::kBool);
  test.output("y");
  test.constant("ratio", Tensor::scalar<float>(0.5f));
  test.node("dropout", "Dropout", {"x", "ratio", "training"}, {"d"});
  test.node("relu", "Relu", {"d"}, {"y"});
  EXPECT_FALSE(run_noop(test).changed());
}

TEST(NoopElimination, RemovesAReshapeToTheSameShapeOnly) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.constant("same", Tensor::from_vector<int64_t>({2, 3}, {2}));
  test.constant("other", Tensor::from_vector<int64_t>({3, 2}, {2}));
  test.node("keep_shape", "Reshape", {"x", "same"}, {"a"});
  test.node("change_shape", "Reshape", {"a", "other"}, {"y"});
  EXPECT_EQ(run_noop(test).changes.at("removed Reshape"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].name, "change_shape");
  EXPECT_EQ(test.graph().nodes[0].inputs[0], "x");
}

TEST(NoopElimination, RemovesSameTypeCastAndIdentityTransposeOnly) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.node("cast_same", "Cast", {"x"}, {"a"}, {{"to", int_attr(1)}});
  test.node("cast_double", "Cast", {"a"}, {"b"}, {{"to", int_attr(11)}});
  test.node("cast_back", "Cast", {"b"}, {"c"}, {{"to", int_attr(1)}});
  test.node("transpose_same", "Transpose", {"c"}, {"d"}, {{"perm", ints_attr({0, 1})}});
  test.node("transpose_swap", "Transpose", {"d"}, {"y"}, {{"perm", ints_attr({1, 0})}});
  const PassStats stats = run_noop(test);
  EXPECT_EQ(stats.changes.at("removed Cast"), 1);
  EXPECT_EQ(stats.changes.at("removed Transpose"), 1);
  EXPECT_EQ(test.count("Cast"), 2);
  EXPECT_EQ(test.count("Transpose"), 1);
}

TEST(NoopElimination, RemovesZeroPadFullSliceAndSameShapeExpand) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.constant("pads", Tensor::from_vector<int64_t>({0, 0, 0, 0}, {4}));
  test.constant("starts", Tensor::from_vector<int64_t>({0}, {1}));
  test.constant("ends", Tensor::from_vector<int64_t>({100}, {1}));
  test.constant("axes", Tensor::from_vector<int64_t>({1}, {1}));
  test.constant("shape", Tensor::from_vector<int64_t>({2, 3}, {2}));
  test.node("pad", "Pad", {"x", "pads"}, {"a"});
  test.node("slice", "Slice", {"a", "starts", "ends", "axes"}, {"b"});
  test.node("expand", "Expand", {"b", "shape"}, {"c"});
  test.node("relu", "Relu", {"c"}, {"y"});
  const PassStats stats = run_noop(test);
  EXPECT_EQ(stats.changes.size(), 3u);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].inputs[0], "x");
}

TEST(NoopElimination, KeepsAReversingSliceOfTheSameShape) {
  TestModel test;
  test.input("x", {1, 3});
  test.output("y");
  test.constant("starts", Tensor::from_vector<int64_t>({-1}, {1}));
  test.constant("ends", Tensor::from_vector<int64_t>({-100}, {1}));
  test.constant("axes", Tensor::from_vector<int64_t>({1}, {1}));
  test.constant("steps", Tensor::from_vector<int64_t>({-1}, {1}));
  test.node("slice", "Slice", {"x", "starts", "ends", "axes", "steps"}, {"s"});
  test.node("relu", "Relu", {"s"}, {"y"});
  EXPECT_FALSE(run_noop(test).changed());
}

TEST(NoopElimination, KeepsAPadThatPadsAndAnExpandThatBroadcasts) {
  TestModel test;
  test.input("x", {1, 3});
  test.output("y");
  test.constant("pads", Tensor::from_vector<int64_t>({0, 1, 0, 0}, {4}));
  test.constant("shape", Tensor::from_vector<int64_t>({2, 4}, {2}));
  test.node("pad", "Pad", {"x", "pads"}, {"a"});
  test.node("expand", "Expand", {"a", "shape"}, {"y"});
  EXPECT_FALSE(run_noop(test).changed());
}

}  // namespace
}  // namespace inferlab::optimizer
