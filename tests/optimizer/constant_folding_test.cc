// constant_folding on hand-built graphs: constant subgraphs and shape
// subgraphs fold into initializers; overridable initializers, graph outputs,
// dynamic shapes and blown-up results do not.
#include <gtest/gtest.h>

#include "basic_pass_test_util.h"
#include "inferlab/optimizer/basic_passes.h"
#include "test_util.h"

namespace inferlab::optimizer {
namespace {

using basic_test::int_attr;
using basic_test::TestModel;

TEST(ConstantFolding, FoldsNodesWhoseInputsAreConstants) {
  TestModel test;
  test.input("x", {2, 3});
  test.output("y");
  test.constant("c1", Tensor::from_vector<float>({1, 2, 3}, {3}));
  test.constant("c2", Tensor::from_vector<float>({4, 5, 6}, {3}));
  test.node("add", "Add", {"c1", "c2"}, {"sum"});
  test.node("neg", "Neg", {"sum"}, {"negated"});
  test.node("mul", "Mul", {"x", "negated"}, {"y"});
  const model::Model original = basic_test::deep_copy(test.model);
  auto pass = make_constant_folding_pass();
  const PassStats stats = basic_test::run_pass(*pass, test.model);
  EXPECT_EQ(stats.changes.at("folded Add"), 1);
  EXPECT_EQ(stats.changes.at("folded Neg"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  const Tensor x = testing::random_float_tensor({2, 3}, 1);
  const Tensor before = basic_test::execute(original, {{"x", x}}).at("y");
  const Tensor after = basic_test::execute(test.model, {{"x", x}}).at("y");
  EXPECT_TRUE(after.equals(before));
}

TEST(ConstantFolding, FoldsTheShapeSubgraphOfAStaticInput) {
  TestModel test;
  test.input("x", {2, 3, 4});
  test.output("y");
  test.constant("zero", Tensor::from_vector<int64_t>({0}, {1}));
  test.constant("minus_one", Tensor::from_vector<int64_t>({-1}, {1}));
  test.node("shape", "Shape", {"x"}, {"shape"});
  test.node("gather", "Gather", {"shape", "zero"}, {"batch"}, {{"axis", int_attr(0)}});
  test.node("concat", "Concat", {"batch", "minus_one"}, {"target"}, {{"axis", int_attr(0)}});
  test.node("reshape", "Reshape", {"x", "target"}, {"y"});
  auto pass = make_constant_folding_pass();
  const PassStats stats = basic_test::run_pass(*pass, test.model);
  EXPECT_EQ(stats.changes.at("folded Shape"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].op_type, "Reshape");
  const Tensor& target = test.graph().initializers.at(test.graph().nodes[0].inputs[1]);
  EXPECT_EQ(target.to_int64_vector(), (std::vector<int64_t>{2, -1}));
}

TEST(ConstantFolding, DoesNotFoldTheShapeOfADynamicInput) {
  TestModel test;
  test.graph().inputs.push_back(model::ValueInfo{
      "x", DataType::kFloat32, true, {model::Dim::symbolic("batch"), model::Dim::fixed(3)}});
  test.output("y");
  test.node("shape", "Shape", {"x"}, {"shape"});
  test.node("reshape", "Reshape", {"x", "shape"}, {"y"});
  auto pass = make_constant_folding_pass();
  EXPECT_FALSE(basic_test::run_pass(*pass, test.model).changed());
  EXPECT_EQ(test.count("Shape"), 1);
}

TEST(ConstantFolding, DoesNotFoldAnOverridableInitializer) {
  TestModel test;
  test.input("x", {3});
  test.output("y");
  test.overridable("scale", Tensor::from_vector<float>({1, 2, 3}, {3}));
  test.constant("c", Tensor::from_vector<float>({1, 1, 1}, {3}));
  test.node("add", "Add", {"scale", "c"}, {"s"});
  test.node("mul", "Mul", {"x", "s"}, {"y"});
  auto pass = make_constant_folding_pass();
  EXPECT_FALSE(basic_test::run_pass(*pass, test.model).changed());
  EXPECT_EQ(test.count("Add"), 1);
}

TEST(ConstantFolding, NeverFoldsAGraphOutput) {
  TestModel test;
  test.input("x", {3});
  test.output("y");
  test.output("z");
  test.constant("c", Tensor::from_vector<float>({1, 2, 3}, {3}));
  test.node("neg", "Neg", {"c"}, {"y"});
  test.node("relu", "Relu", {"x"}, {"z"});
  auto pass = make_constant_folding_pass();
  EXPECT_FALSE(basic_test::run_pass(*pass, test.model).changed());
  EXPECT_EQ(test.graph().outputs[0].name, "y");
  EXPECT_EQ(test.count("Neg"), 1);
}

TEST(ConstantFolding, DoesNotBlowUpTheModel) {
  // ConstantOfShape([1024, 1024]): 16 bytes in, 4 MiB out.
  TestModel test;
  test.input("x", {1024, 1024});
  test.output("y");
  test.constant("dims", Tensor::from_vector<int64_t>({1024, 1024}, {2}));
  test.node("fill", "ConstantOfShape", {"dims"}, {"ones"});
  test.node("add", "Add", {"x", "ones"}, {"y"});
  auto pass = make_constant_folding_pass();
  EXPECT_FALSE(basic_test::run_pass(*pass, test.model).changed());
  EXPECT_EQ(test.count("ConstantOfShape"), 1);
}

TEST(ConstantFolding, TurnsConstantNodesIntoInitializers) {
  TestModel test;
  test.input("x", {2});
  test.output("y");
  model::Attribute value;
  value.kind = model::Attribute::Kind::kTensor;
  value.t = Tensor::from_vector<float>({5, 6}, {2});
  test.node("const", "Constant", {}, {"c"}, {{"value", value}});
  test.node("add", "Add", {"x", "c"}, {"y"});
  auto pass = make_constant_folding_pass();
  EXPECT_EQ(basic_test::run_pass(*pass, test.model).changes.at("folded Constant"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  const Tensor& folded = test.graph().initializers.at(test.graph().nodes[0].inputs[1]);
  EXPECT_TRUE(folded.equals(value.t));
}

}  // namespace
}  // namespace inferlab::optimizer
