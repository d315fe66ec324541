// Concat and Split, including zero-size inputs and bad split sizes.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Concat, JoinsAlongNegativeAxis) {
  NodeRun concat{"Concat", 13, {{"axis", int_attr(-1)}}};
  const auto out = concat.run({make<int64_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({5, 6}, {2, 1}),
                               Tensor(DataType::kInt64, {2, 0})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 5, 3, 4, 6}));
}

TEST(Concat, JoinsStrings) {
  NodeRun concat{"Concat", 13, {{"axis", int_attr(0)}}};
  const auto out = concat.run({make<std::string>({"a"}, {1}), make<std::string>({"b", "c"}, {2})});
  EXPECT_EQ(values_of<std::string>(out[0]), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Concat, RejectsMismatchedShapes) {
  NodeRun concat{"Concat", 13, {{"axis", int_attr(0)}}};
  expect_error(
      [&] {
        concat.run({Tensor(DataType::kFloat32, {1, 2}), Tensor(DataType::kFloat32, {1, 3})});
      },
      ErrorCode::kInvalidArgument, {"Concat node 'node'", "input 1"});
}

TEST(Split, UsesSplitInputFromOpset13) {
  NodeRun split{"Split", 13, {{"axis", int_attr(1)}}};
  const auto out =
      split.run({make<float>({1, 2, 3, 4, 5, 6}, {2, 3}), make<int64_t>({1, 2}, {2})}, 2);
  EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{1, 4}));
  EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{2, 3, 5, 6}));
}

TEST(Split, SplitsEvenlyAndByAttribute) {
  const Tensor data = make<int32_t>({1, 2, 3, 4, 5, 6}, {6});
  const auto even = NodeRun{"Split", 13}.run({data}, 3);
  EXPECT_EQ(values_of<int32_t>(even[2]), (std::vector<int32_t>{5, 6}));
  const auto attr = NodeRun{"Split", 11, {{"split", ints_attr({4, 2})}}}.run({data}, 2);
  EXPECT_EQ(values_of<int32_t>(attr[0]), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(Split, NumOutputsInOpset18MakesTheLastSmaller) {
  NodeRun split{"Split", 18, {{"num_outputs", int_attr(3)}}};
  const auto out = split.run({make<int32_t>({1, 2, 3, 4, 5}, {5})}, 3);
  EXPECT_EQ(out[0].shape(), (Shape{2}));
  EXPECT_EQ(values_of<int32_t>(out[2]), (std::vector<int32_t>{5}));
}

TEST(Split, RejectsBadSizes) {
  NodeRun split{"Split", 13};
  expect_error(
      [&] {
        split.run({Tensor(DataType::kFloat32, {5}), make<int64_t>({2, 2}, {2})}, 2);
      },
      ErrorCode::kInvalidArgument, {"Split node 'node'", "size 5"});
  expect_error([&] { split.run({Tensor(DataType::kFloat32, {5})}, 2); },
               ErrorCode::kInvalidArgument, {"evenly"});
}

}  // namespace
}  // namespace inferlab::testing
