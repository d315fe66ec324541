// constant_sharing on hand-built graphs: equal constants become one; equal
// bytes with another shape or dtype, and overridable initializers, do not.
#include <gtest/gtest.h>

#include "basic_pass_test_util.h"
#include "inferlab/optimizer/basic_passes.h"

namespace inferlab::optimizer {
namespace {

using basic_test::TestModel;

// y = x + a + b with the given constants.
TestModel make_two_constant_model(Tensor a, Tensor b, bool b_overridable = false) {
  TestModel test;
  test.input("x", {2, 2});
  test.output("y");
  test.constant("a", std::move(a));
  if (b_overridable) {
    test.overridable("b", std::move(b));
  } else {
    test.constant("b", std::move(b));
  }
  test.node("add_a", "Add", {"x", "a"}, {"xa"});
  test.node("add_b", "Add", {"xa", "b"}, {"y"});
  return test;
}

PassStats run_sharing(TestModel& test) {
  auto pass = make_constant_sharing_pass();
  return basic_test::run_pass(*pass, test.model);
}

TEST(ConstantSharing, SharesEqualConstants) {
  TestModel test = make_two_constant_model(Tensor::from_vector<float>({1, 2}, {2}),
                                           Tensor::from_vector<float>({1, 2}, {2}));
  EXPECT_EQ(run_sharing(test).changes.at("shared constant"), 1);
  EXPECT_EQ(test.graph().initializers.count("b"), 0u);
  EXPECT_EQ(test.graph().nodes[1].inputs[1], "a");
}

TEST(ConstantSharing, DoesNotShareEqualBytesOfAnotherShape) {
  // x[1, 1] + a[1, 4] + b[4, 1]: same bytes, different meaning.
  TestModel test = make_two_constant_model(Tensor::from_vector<float>({1, 2, 3, 4}, {4}),
                                           Tensor::from_vector<float>({1, 2, 3, 4}, {4}));
  test.graph().inputs[0].dims = {model::Dim::fixed(1), model::Dim::fixed(1)};
  test.graph().initializers["a"] = test.graph().initializers["a"].reshaped({1, 4});
  test.graph().initializers["b"] = test.graph().initializers["b"].reshaped({4, 1});
  EXPECT_FALSE(run_sharing(test).changed());
}

TEST(ConstantSharing, DoesNotShareDifferentValuesOrTypes) {
  TestModel values = make_two_constant_model(Tensor::from_vector<float>({1, 2}, {2}),
                                             Tensor::from_vector<float>({1, 3}, {2}));
  EXPECT_FALSE(run_sharing(values).changed());
  TestModel types = make_two_constant_model(Tensor::from_vector<int32_t>({0, 0}, {2}),
                                            Tensor::from_vector<float>({0, 0}, {2}));
  types.graph().nodes[0].op_type = "Identity";  // no float + int32 Add needed
  types.graph().nodes[0].inputs = {"x"};
  EXPECT_FALSE(run_sharing(types).changed());
}

TEST(ConstantSharing, DoesNotShareAnOverridableInitializer) {
  TestModel test = make_two_constant_model(Tensor::from_vector<float>({1, 2}, {2}),
                                           Tensor::from_vector<float>({1, 2}, {2}), true);
  EXPECT_FALSE(run_sharing(test).changed());
  EXPECT_EQ(test.graph().nodes[1].inputs[1], "b");
}

}  // namespace
}  // namespace inferlab::optimizer
