// Slice: clamping, negative steps, attribute form and unknown inputs.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

TEST(Slice, ClampsEndsAndTakesSteps) {
  // np.arange(10)[1:1000:3]
  NodeRun slice{"Slice", 13};
  const auto out =
      slice.run({make<int64_t>(iota(10), {10}), make<int64_t>({1}, {1}), make<int64_t>({1000}, {1}),
                 make<int64_t>({0}, {1}), make<int64_t>({3}, {1})});
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 4, 7}));
}

TEST(Slice, NegativeStepReverses) {
  // np.arange(12).reshape(3,4)[:, ::-2] and [-1:-100:-1, 1:3]
  NodeRun slice{"Slice", 13};
  const Tensor data = make<int64_t>(iota(12), {3, 4});
  const auto reversed = slice.run({data, make<int64_t>({-1}, {1}), make<int64_t>({INT64_MIN}, {1}),
                                   make<int64_t>({-1}, {1}), make<int64_t>({-2}, {1})});
  EXPECT_EQ(values_of<int64_t>(reversed[0]), (std::vector<int64_t>{3, 1, 7, 5, 11, 9}));
  const auto both = slice.run({data, make<int64_t>({-1, 1}, {2}), make<int64_t>({-100, 3}, {2}),
                               std::nullopt, make<int64_t>({-1, 1}, {2})});
  EXPECT_EQ(values_of<int64_t>(both[0]), (std::vector<int64_t>{9, 10, 5, 6, 1, 2}));
}

TEST(Slice, EmptyWhenStartPassesEnd) {
  NodeRun slice{"Slice", 13};
  const auto out =
      slice.run({make<int64_t>(iota(5), {5}), make<int64_t>({3}, {1}), make<int64_t>({1}, {1})});
  EXPECT_EQ(out[0].shape(), (Shape{0}));
}

TEST(Slice, AttributeFormBeforeOpset10) {
  NodeRun slice{"Slice",
                9,
                {{"starts", ints_attr({1})}, {"ends", ints_attr({-1})}, {"axes", ints_attr({1})}}};
  const auto out = slice.run({make<std::string>({"a", "b", "c", "d", "e", "f"}, {2, 3})});
  EXPECT_EQ(values_of<std::string>(out[0]), (std::vector<std::string>{"b", "e"}));
}

TEST(Slice, RejectsZeroStep) {
  NodeRun slice{"Slice", 13};
  expect_error(
      [&] {
        slice.run({make<int64_t>(iota(5), {5}), make<int64_t>({0}, {1}), make<int64_t>({5}, {1}),
                   make<int64_t>({0}, {1}), make<int64_t>({0}, {1})});
      },
      ErrorCode::kInvalidModel, {"Slice node 'node'", "step"});
}

TEST(Slice, UnknownStartsGiveDynamicShape) {
  NodeRun slice{"Slice", 13};
  const Tensor ends = make<int64_t>({2}, {1});
  const auto out = slice.infer({{DataType::kFloat32, {5}, nullptr},
                                {DataType::kInt64, {1}, nullptr},
                                {DataType::kInt64, {1}, &ends}});
  ASSERT_TRUE(out[0].has_value());
  EXPECT_FALSE(out[0]->second.has_value());
}

}  // namespace
}  // namespace inferlab::testing
