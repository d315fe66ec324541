// Reshape, Flatten, Squeeze, Unsqueeze and Identity: shape rules and errors.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Reshape, ResolvesZeroAndMinusOne) {
  NodeRun reshape{"Reshape", 13};
  const Tensor data = make<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 3, 2});
  const auto out = reshape.run({data, make<int64_t>({0, -1}, {2})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 6}));
  EXPECT_EQ(values_of<int64_t>(out[0]), values_of<int64_t>(data));
}

TEST(Reshape, AllowZeroKeepsZeroDims) {
  NodeRun reshape{"Reshape", 14, {{"allowzero", int_attr(1)}}};
  const auto out = reshape.run({Tensor(DataType::kFloat32, {0, 3}), make<int64_t>({3, 0}, {2})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 0}));
}

TEST(Reshape, WorksOnStrings) {
  NodeRun reshape{"Reshape", 13};
  const auto out =
      reshape.run({make<std::string>({"a", "b", "c", "d"}, {4}), make<int64_t>({2, 2}, {2})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].data<std::string>()[3], "d");
}

TEST(Reshape, RejectsIncompatibleSizeNamingTheNode) {
  NodeRun reshape{"Reshape", 13};
  expect_error(
      [&] {
        reshape.run({Tensor(DataType::kFloat32, {2, 3}), make<int64_t>({4, -1}, {2})});
      },
      ErrorCode::kInvalidArgument, {"Reshape node 'node'", "[2, 3]"});
  expect_error(
      [&] {
        reshape.run({Tensor(DataType::kFloat32, {2, 3}), make<int64_t>({5}, {1})});
      },
      ErrorCode::kInvalidArgument, {"Reshape node 'node'"});
}

TEST(Reshape, UnknownShapeInputGivesDynamicOutput) {
  NodeRun reshape{"Reshape", 13};
  const auto out =
      reshape.infer({{DataType::kFloat32, {2, 3}, nullptr}, {DataType::kInt64, {2}, nullptr}});
  ASSERT_TRUE(out[0].has_value());
  EXPECT_FALSE(out[0]->second.has_value());
}

TEST(Flatten, HandlesAxisZeroAndNegative) {
  const Tensor data(DataType::kBool, {2, 3, 4});
  EXPECT_EQ((NodeRun{"Flatten", 13, {{"axis", int_attr(0)}}}.run({data})[0].shape()),
            (Shape{1, 24}));
  EXPECT_EQ((NodeRun{"Flatten", 13, {{"axis", int_attr(-1)}}}.run({data})[0].shape()),
            (Shape{6, 4}));
  EXPECT_EQ((NodeRun{"Flatten", 13, {{"axis", int_attr(3)}}}.run({data})[0].shape()),
            (Shape{24, 1}));
}

TEST(Squeeze, UsesAttributeBeforeOpset13AndInputAfter) {
  const Tensor data(DataType::kFloat32, {1, 3, 1});
  EXPECT_EQ((NodeRun{"Squeeze", 11, {{"axes", ints_attr({-1})}}}.run({data})[0].shape()),
            (Shape{1, 3}));
  EXPECT_EQ((NodeRun{"Squeeze", 13}.run({data, make<int64_t>({0}, {1})})[0].shape()),
            (Shape{3, 1}));
  EXPECT_EQ((NodeRun{"Squeeze", 13}.run({data})[0].shape()), (Shape{3}));
}

TEST(Squeeze, RejectsAxisThatIsNotOne) {
  expect_error(
      [] {
        NodeRun{"Squeeze", 13}.run({Tensor(DataType::kFloat32, {2, 3}), make<int64_t>({1}, {1})});
      },
      ErrorCode::kInvalidArgument, {"Squeeze node 'node'", "axis 1 of size 3"});
}

TEST(Unsqueeze, InsertsAxesOfTheOutputRank) {
  const Tensor data = Tensor::scalar<float>(2.0f);
  EXPECT_EQ((NodeRun{"Unsqueeze", 13}.run({data, make<int64_t>({0, -1}, {2})})[0].shape()),
            (Shape{1, 1}));
  const Tensor matrix(DataType::kInt64, {3, 4});
  EXPECT_EQ((NodeRun{"Unsqueeze", 11, {{"axes", ints_attr({0, 3})}}}.run({matrix})[0].shape()),
            (Shape{1, 3, 4, 1}));
  expect_error(
      [&] {
        NodeRun{"Unsqueeze", 13}.run({matrix, make<int64_t>({1, 1}, {2})});
      },
      ErrorCode::kInvalidModel, {"repeated"});
}

TEST(Identity, SharesItsInput) {
  const Tensor data = make<std::string>({"x"}, {1});
  const NodeRun identity{"Identity", 16};
  EXPECT_TRUE(identity.run({data})[0].equals(data));
}

}  // namespace
}  // namespace inferlab::testing
