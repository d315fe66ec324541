// Shape, Size, ConstantOfShape, Constant, Range and Trilu.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Shape, StartAndEndInOpset15) {
  const Tensor data(DataType::kFloat32, {2, 3, 4, 5});
  EXPECT_EQ(values_of<int64_t>(NodeRun{"Shape", 13}.run({data})[0]),
            (std::vector<int64_t>{2, 3, 4, 5}));
  NodeRun window{"Shape", 15, {{"start", int_attr(-3)}, {"end", int_attr(-1)}}};
  EXPECT_EQ(values_of<int64_t>(window.run({data})[0]), (std::vector<int64_t>{3, 4}));
  NodeRun empty{"Shape", 15, {{"start", int_attr(10)}}};
  EXPECT_EQ(empty.run({data})[0].shape(), (Shape{0}));
}

TEST(Size, CountsElements) {
  const NodeRun size{"Size", 13};
  EXPECT_EQ(size.run({Tensor(DataType::kString, {3, 0})})[0].data<int64_t>()[0], 0);
  EXPECT_EQ(size.run({Tensor(DataType::kBool, {3, 2})})[0].data<int64_t>()[0], 6);
}

TEST(ConstantOfShape, FillsWithTheValueType) {
  NodeRun fill{"ConstantOfShape", 13, {{"value", tensor_attr(make<int32_t>({7}, {1}))}}};
  const auto out = fill.run({make<int64_t>({2, 2}, {2})});
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{7, 7, 7, 7}));
  const auto zeros = NodeRun{"ConstantOfShape", 13}.run({make<int64_t>({0}, {1})});
  EXPECT_EQ(zeros[0].dtype(), DataType::kFloat32);
  EXPECT_EQ(zeros[0].shape(), (Shape{0}));
}

TEST(Constant, ReadsEveryValueAttribute) {
  NodeRun ints{"Constant", 13, {{"value_ints", ints_attr({1, 2})}}};
  EXPECT_EQ(values_of<int64_t>(ints.run({})[0]), (std::vector<int64_t>{1, 2}));
  NodeRun scalar{"Constant", 13, {{"value_float", float_attr(2.5f)}}};
  EXPECT_EQ(scalar.run({})[0].shape(), (Shape{}));
  NodeRun sparse{"Constant", 13, {{"sparse_value", int_attr(0)}}};
  expect_error([&] { sparse.run({}); }, ErrorCode::kUnsupported,
               {"Constant node 'node'", "sparse_value"});
}

TEST(Range, MatchesArange) {
  NodeRun range{"Range", 13};
  const auto ints = range.run(
      {Tensor::scalar<int32_t>(10), Tensor::scalar<int32_t>(4), Tensor::scalar<int32_t>(-3)});
  EXPECT_EQ(values_of<int32_t>(ints[0]), (std::vector<int32_t>{10, 7}));
  const auto floats =
      range.run({Tensor::scalar<float>(1), Tensor::scalar<float>(2), Tensor::scalar<float>(0.3f)});
  EXPECT_EQ(floats[0].shape(), (Shape{4}));
  const auto none = range.run(
      {Tensor::scalar<int64_t>(5), Tensor::scalar<int64_t>(1), Tensor::scalar<int64_t>(1)});
  EXPECT_EQ(none[0].shape(), (Shape{0}));
}

TEST(Trilu, KeepsUpperAndLowerWithOffset) {
  const Tensor data = make<int64_t>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  NodeRun upper{"Trilu", 14};
  EXPECT_EQ(values_of<int64_t>(upper.run({data, Tensor::scalar<int64_t>(1)})[0]),
            (std::vector<int64_t>{0, 2, 3, 0, 0, 6, 0, 0, 0}));
  NodeRun lower{"Trilu", 14, {{"upper", int_attr(0)}}};
  EXPECT_EQ(values_of<int64_t>(lower.run({data, Tensor::scalar<int64_t>(-1)})[0]),
            (std::vector<int64_t>{0, 0, 0, 4, 0, 0, 7, 8, 0}));
  EXPECT_EQ(values_of<int64_t>(lower.run({data, Tensor::scalar<int64_t>(INT64_MAX)})[0]),
            values_of<int64_t>(data));
}

}  // namespace
}  // namespace inferlab::testing
