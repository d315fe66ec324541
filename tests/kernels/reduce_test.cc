// Reductions (axes as attribute or input, keepdims, noop_with_empty_axes,
// empty windows), ArgMax/ArgMin, CumSum and Softmax/LogSoftmax.
#include <cmath>
#include <limits>

#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

const Tensor& sample() {
  // [[1, 2, 3], [4, 5, 6]]
  static const Tensor x = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  return x;
}

std::vector<float> reduce(const std::string& op, const std::vector<int64_t>& axes, int64_t keepdims,
                          Shape expected_shape) {
  model::AttributeMap attributes{{"keepdims", int_attr(keepdims)}};
  if (!axes.empty()) attributes["axes"] = ints_attr(axes);
  const auto out = NodeRun{op, 13, attributes}.run({sample()})[0];
  EXPECT_EQ(out.shape(), expected_shape) << op;
  return values_of<float>(out);
}

TEST(Reduce, EveryReductionAlongOneAxis) {
  EXPECT_EQ(reduce("ReduceSum", {1}, 1, {2, 1}), (std::vector<float>{6, 15}));
  EXPECT_EQ(reduce("ReduceMean", {0}, 0, {3}), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  EXPECT_EQ(reduce("ReduceMax", {-1}, 0, {2}), (std::vector<float>{3, 6}));
  EXPECT_EQ(reduce("ReduceMin", {0}, 1, {1, 3}), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(reduce("ReduceProd", {1}, 0, {2}), (std::vector<float>{6, 120}));
  EXPECT_EQ(reduce("ReduceL1", {1}, 0, {2}), (std::vector<float>{6, 15}));
  EXPECT_EQ(reduce("ReduceSumSquare", {1}, 0, {2}), (std::vector<float>{14, 77}));
  const auto l2 = reduce("ReduceL2", {1}, 0, {2});
  EXPECT_NEAR(l2[0], 3.741657f, 1e-5);
  const auto lse = reduce("ReduceLogSumExp", {1}, 0, {2});
  EXPECT_NEAR(lse[1], 6.407606f, 1e-5);
}

TEST(Reduce, EmptyAxesReduceEverything) {
  EXPECT_EQ(reduce("ReduceSum", {}, 1, {1, 1}), (std::vector<float>{21}));
  EXPECT_EQ(reduce("ReduceMax", {}, 0, {}), (std::vector<float>{6}));
}

TEST(Reduce, AxesFromInputAndNoopWithEmptyAxes) {
  const auto sum = NodeRun{"ReduceSum", 13, {{"keepdims", int_attr(0)}}}.run(
      {sample(), make<int64_t>({0}, {1})})[0];
  EXPECT_EQ(values_of<float>(sum), (std::vector<float>{5, 7, 9}));
  NodeRun noop{"ReduceSum", 13, {{"noop_with_empty_axes", int_attr(1)}}};
  const auto same = noop.run({sample(), Tensor(DataType::kInt64, {0})})[0];
  EXPECT_TRUE(same.equals(sample()));
  const auto max18 = NodeRun{"ReduceMax", 18}.run({sample(), make<int64_t>({1}, {1})})[0];
  EXPECT_EQ(values_of<float>(max18), (std::vector<float>{3, 6}));
}

TEST(Reduce, UnknownAxesInputMakesTheShapeDynamic) {
  const auto inferred = NodeRun{"ReduceSum", 13}.infer(
      {{DataType::kFloat32, {2, 3}, nullptr}, {DataType::kInt64, {1}, nullptr}});
  ASSERT_TRUE(inferred[0].has_value());
  EXPECT_FALSE(inferred[0]->second.has_value());
}

TEST(Reduce, IntegersAndEmptyWindows) {
  const auto ints = NodeRun{"ReduceSum", 13, {{"keepdims", int_attr(0)}}}.run(
      {make<int32_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({1}, {1})})[0];
  EXPECT_EQ(values_of<int32_t>(ints), (std::vector<int32_t>{3, 7}));
  const Tensor empty(DataType::kFloat32, {2, 0});
  const auto sum = NodeRun{"ReduceSum", 13, {{"keepdims", int_attr(0)}}}.run(
      {empty, make<int64_t>({1}, {1})})[0];
  EXPECT_EQ(values_of<float>(sum), (std::vector<float>{0, 0}));
  const auto prod = NodeRun{"ReduceProd", 13, {{"axes", ints_attr({1})}}}.run({empty})[0];
  EXPECT_EQ(values_of<float>(prod), (std::vector<float>{1, 1}));
}

TEST(Reduce, BadAxisNamesTheNode) {
  expect_error(
      [] {
        NodeRun{"ReduceMean", 13, {{"axes", ints_attr({2})}}}.run({sample()});
      },
      ErrorCode::kInvalidArgument, {"ReduceMean node 'node'", "axis 2"});
}

TEST(ArgMax, FirstOrLastIndexOnTies) {
  const Tensor x = make<int32_t>({2, 7, 7, 1, 0, 1}, {2, 3});
  const auto first = NodeRun{"ArgMax", 13, {{"axis", int_attr(1)}}}.run({x})[0];
  EXPECT_EQ(first.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of<int64_t>(first), (std::vector<int64_t>{1, 0}));
  NodeRun last{
      "ArgMax",
      13,
      {{"axis", int_attr(1)}, {"select_last_index", int_attr(1)}, {"keepdims", int_attr(0)}}};
  EXPECT_EQ(values_of<int64_t>(last.run({x})[0]), (std::vector<int64_t>{2, 2}));
  const auto argmin = NodeRun{"ArgMin", 13, {{"keepdims", int_attr(0)}}}.run({x})[0];
  EXPECT_EQ(argmin.shape(), (Shape{3}));
  EXPECT_EQ(values_of<int64_t>(argmin), (std::vector<int64_t>{1, 1, 1}));
}

TEST(CumSum, ExclusiveAndReverse) {
  const Tensor x = make<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor axis = Tensor::scalar<int32_t>(1);
  EXPECT_EQ(values_of<double>(NodeRun{"CumSum", 14}.run({x, axis})[0]),
            (std::vector<double>{1, 3, 6, 4, 9, 15}));
  NodeRun both{"CumSum", 14, {{"exclusive", int_attr(1)}, {"reverse", int_attr(1)}}};
  EXPECT_EQ(values_of<double>(both.run({x, axis})[0]), (std::vector<double>{5, 3, 0, 11, 6, 0}));
  EXPECT_EQ(values_of<double>(NodeRun{"CumSum", 14}.run({x, Tensor::scalar<int64_t>(-2)})[0]),
            (std::vector<double>{1, 2, 3, 5, 7, 9}));
  expect_error(
      [&] {
        NodeRun{"CumSum", 14}.run({x, Tensor::scalar<int64_t>(2)});
      },
      ErrorCode::kInvalidArgument, {"CumSum node 'node'"});
}

TEST(Softmax, AlongTheLastAxisFromOpset13) {
  const Tensor x = make<float>({1, 2, 3, 1000, 1000, 1000}, {2, 3});
  const auto out = values_of<float>(NodeRun{"Softmax", 13}.run({x})[0]);
  EXPECT_NEAR(out[0], 0.090031f, 1e-6);
  EXPECT_NEAR(out[2], 0.665241f, 1e-6);
  EXPECT_NEAR(out[4], 1.0f / 3, 1e-6);  // large inputs stay finite
  const auto log = values_of<float>(NodeRun{"LogSoftmax", 13}.run({x})[0]);
  EXPECT_NEAR(log[0], -2.407606f, 1e-5);
}

TEST(Softmax, CoercesTo2DBeforeOpset13) {
  // Shape [1, 2, 2] with axis 1: one row of 4 elements, not softmax along dim 1 alone.
  const Tensor x = make<float>({0, 0, 0, 0}, {1, 2, 2});
  const auto old = values_of<float>(NodeRun{"Softmax", 11}.run({x})[0]);
  for (float v : old) EXPECT_NEAR(v, 0.25f, 1e-6);
  const auto now = values_of<float>(NodeRun{"Softmax", 13, {{"axis", int_attr(1)}}}.run({x})[0]);
  for (float v : now) EXPECT_NEAR(v, 0.5f, 1e-6);
}

}  // namespace
}  // namespace inferlab::testing
