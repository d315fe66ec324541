// Unary math operators, activations, Clip and PRelu through the registry,
// with expected values from numpy.
#include <cmath>
#include <limits>

#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

std::vector<float> run_float(const std::string& op, std::vector<float> x,
                             model::AttributeMap attributes = {}, int64_t opset = 17) {
  const Shape shape{static_cast<int64_t>(x.size())};
  NodeRun node{op, opset, std::move(attributes)};
  return values_of<float>(node.run({make<float>(x, shape)})[0]);
}

void expect_near_all(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << "element " << i;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1e-5 * std::fabs(expected[i])) << "element " << i;
    }
  }
}

TEST(UnaryMath, FloatFunctionsMatchNumpy) {
  const std::vector<float> x{-1.5f, -0.5f, 0.0f, 0.5f, 2.5f};
  expect_near_all(run_float("Abs", x), {1.5f, 0.5f, 0.0f, 0.5f, 2.5f});
  expect_near_all(run_float("Ceil", x), {-1, -0, 0, 1, 3});
  expect_near_all(run_float("Floor", x), {-2, -1, 0, 0, 2});
  // Round halves to even, like numpy.round.
  expect_near_all(run_float("Round", x), {-2, -0, 0, 0, 2});
  expect_near_all(run_float("Neg", x), {1.5f, 0.5f, -0.0f, -0.5f, -2.5f});
  expect_near_all(run_float("Sign", x), {-1, -1, 0, 1, 1});
  expect_near_all(run_float("Relu", x), {0, 0, 0, 0.5f, 2.5f});
  expect_near_all(run_float("Sigmoid", {-100.0f, 0.0f, 2.0f}), {0.0f, 0.5f, 0.880797f});
  expect_near_all(run_float("Erf", {-1.0f, 0.0f, 0.5f}), {-0.842701f, 0.0f, 0.520500f});
  expect_near_all(run_float("Exp", {0.0f, 1.0f}), {1.0f, 2.718282f});
  expect_near_all(run_float("Log", {1.0f, 0.0f, -1.0f}),
                  {0.0f, -std::numeric_limits<float>::infinity(), NAN});
  expect_near_all(run_float("Sqrt", {4.0f, 2.0f}), {2.0f, 1.414214f});
  expect_near_all(run_float("Reciprocal", {4.0f, -0.5f}), {0.25f, -2.0f});
  expect_near_all(run_float("Tanh", {0.5f}), {0.462117f});
  expect_near_all(run_float("Sin", {1.0f}), {0.841471f});
  expect_near_all(run_float("Cos", {1.0f}), {0.540302f});
}

TEST(UnaryMath, IntegerAbsNegAndSignWrapWithoutOverflow) {
  const int32_t lowest = std::numeric_limits<int32_t>::lowest();
  const Tensor x = make<int32_t>({-3, 0, 7, lowest}, {2, 2});
  EXPECT_EQ(values_of<int32_t>(NodeRun{"Abs", 13}.run({x})[0]),
            (std::vector<int32_t>{3, 0, 7, lowest}));
  EXPECT_EQ(values_of<int32_t>(NodeRun{"Neg", 13}.run({x})[0]),
            (std::vector<int32_t>{3, 0, -7, lowest}));
  EXPECT_EQ(values_of<int32_t>(NodeRun{"Sign", 13}.run({x})[0]),
            (std::vector<int32_t>{-1, 0, 1, -1}));
  const Tensor u = make<uint8_t>({0, 5, 255}, {3});
  EXPECT_EQ(values_of<uint8_t>(NodeRun{"Abs", 13}.run({u})[0]), (std::vector<uint8_t>{0, 5, 255}));
  EXPECT_EQ(values_of<uint8_t>(NodeRun{"Sign", 13}.run({u})[0]), (std::vector<uint8_t>{0, 1, 1}));
}

TEST(UnaryMath, TypeRulesFollowTheOpset) {
  const Tensor x = make<int8_t>({-2, 3}, {2});
  EXPECT_EQ(values_of<int8_t>(NodeRun{"Relu", 14}.run({x})[0]), (std::vector<int8_t>{0, 3}));
  expect_error(
      [&] {
        NodeRun{"Relu", 13}.run({x});
      },
      ErrorCode::kInvalidModel, {"Relu node 'node'", "int8"});
  expect_error(
      [&] {
        NodeRun{"Neg", 13}.run({make<uint8_t>({1}, {1})});
      },
      ErrorCode::kInvalidModel, {"uint8"});
  expect_error(
      [&] {
        NodeRun{"Sqrt", 13}.run({make<int32_t>({4}, {1})});
      },
      ErrorCode::kInvalidModel, {"Sqrt"});
}

TEST(UnaryMath, NotAndAwkwardShapes) {
  const auto out = NodeRun{"Not", 7}.run({make<bool>({true, false}, {1, 2, 1})})[0];
  EXPECT_EQ(out.shape(), (Shape{1, 2, 1}));
  EXPECT_EQ(values_of<bool>(out), (std::vector<bool>{false, true}));
  const auto empty = NodeRun{"Exp", 13}.run({Tensor(DataType::kFloat32, {0, 3})})[0];
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
  const auto scalar = NodeRun{"Neg", 13}.run({Tensor::scalar<double>(2.0)})[0];
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(values_of<double>(scalar), (std::vector<double>{-2.0}));
}

TEST(UnaryMath, Float16ComputesThroughFloat) {
  Tensor x(DataType::kFloat16, {2});
  x.data<Float16>()[0] = Float16::from_float(-2.0f);
  x.data<Float16>()[1] = Float16::from_float(0.25f);
  const auto out = NodeRun{"Abs", 13}.run({x})[0];
  EXPECT_EQ(out.data<Float16>()[0].to_float(), 2.0f);
  EXPECT_EQ(out.data<Float16>()[1].to_float(), 0.25f);
}

TEST(Activations, AttributesAndDefaults) {
  const std::vector<float> x{-1.0f, 0.0f, 1.0f};
  expect_near_all(run_float("Elu", x, {{"alpha", float_attr(2.0f)}}), {-1.264241f, 0.0f, 1.0f});
  expect_near_all(run_float("Elu", x), {-0.632121f, 0.0f, 1.0f});
  expect_near_all(run_float("HardSigmoid", x), {0.3f, 0.5f, 0.7f});
  expect_near_all(
      run_float("HardSigmoid", x, {{"alpha", float_attr(0.5f)}, {"beta", float_attr(0.6f)}}),
      {0.1f, 0.6f, 1.0f});
  expect_near_all(run_float("HardSwish", {-4.0f, 1.0f, 4.0f}), {0.0f, 0.666667f, 4.0f});
  expect_near_all(run_float("LeakyRelu", x), {-0.01f, 0.0f, 1.0f});
  expect_near_all(run_float("LeakyRelu", x, {{"alpha", float_attr(0.1f)}}), {-0.1f, 0.0f, 1.0f});
  expect_near_all(run_float("Selu", x), {-1.111330f, 0.0f, 1.050701f});
  expect_near_all(run_float("Softplus", {-1.0f, 0.0f, 100.0f}), {0.313262f, 0.693147f, 100.0f});
  expect_near_all(run_float("Softsign", x), {-0.5f, 0.0f, 0.5f});
  expect_near_all(run_float("ThresholdedRelu", {0.5f, 1.0f, 2.0f}), {0.0f, 0.0f, 2.0f});
  expect_near_all(run_float("ThresholdedRelu", {0.5f, 1.0f, 2.0f}, {{"alpha", float_attr(0.2f)}}),
                  {0.5f, 1.0f, 2.0f});
}

TEST(Clip, AttributesBeforeOpset11) {
  expect_near_all(run_float("Clip", {-2.0f, 0.5f, 3.0f},
                            {{"min", float_attr(-1.0f)}, {"max", float_attr(1.0f)}}, 7),
                  {-1.0f, 0.5f, 1.0f});
  expect_near_all(run_float("Clip", {-2.0f, 3.0f}, {{"min", float_attr(0.0f)}}, 7), {0.0f, 3.0f});
}

TEST(Clip, OptionalInputsFromOpset11AndIntegersFrom12) {
  const Tensor x = make<float>({-2.0f, 0.5f, 3.0f}, {3});
  NodeRun clip{"Clip", 13};
  EXPECT_EQ(values_of<float>(clip.run({x, std::nullopt, Tensor::scalar(1.0f)})[0]),
            (std::vector<float>{-2.0f, 0.5f, 1.0f}));
  EXPECT_EQ(values_of<float>(clip.run({x, Tensor::scalar(0.0f)})[0]),
            (std::vector<float>{0.0f, 0.5f, 3.0f}));
  // min > max: everything becomes max.
  EXPECT_EQ(values_of<float>(clip.run({x, Tensor::scalar(2.0f), Tensor::scalar(1.0f)})[0]),
            (std::vector<float>{1.0f, 1.0f, 1.0f}));
  const Tensor ints = make<int8_t>({-128, 0, 127}, {3});
  EXPECT_EQ(values_of<int8_t>(clip.run({ints, Tensor::scalar<int8_t>(-5)})[0]),
            (std::vector<int8_t>{-5, 0, 127}));
  expect_error([&] { NodeRun{"Clip", 11}.run({ints}); }, ErrorCode::kInvalidModel, {"int8"});
  expect_error(
      [&] {
        clip.run({x, make<float>({0, 1}, {2})});
      },
      ErrorCode::kInvalidArgument, {"Clip node 'node'", "scalar"});
}

TEST(PRelu, BroadcastsSlopeUnidirectionally) {
  const Tensor x = make<float>({-1, 2, -3, 4, -5, 6}, {2, 3});
  const auto out = NodeRun{"PRelu", 9}.run({x, make<float>({0.1f, 0.2f, 0.3f}, {3})})[0];
  expect_near_all(values_of<float>(out), {-0.1f, 2, -0.9f, 4, -1.0f, 6});
  const auto scalar = NodeRun{"PRelu", 9}.run({x, Tensor::scalar(0.5f)})[0];
  expect_near_all(values_of<float>(scalar), {-0.5f, 2, -1.5f, 4, -2.5f, 6});
}

TEST(PRelu, ReadsALegacyChannelSlopePerChannel) {
  // x: N=1, C=2, W=3 with slope [2] (the pre-opset-7 layout).
  const Tensor x = make<float>({-1, -1, -1, -1, -1, -1}, {1, 2, 3});
  const auto out = NodeRun{"PRelu", 7}.run({x, make<float>({0.5f, 0.25f}, {2})})[0];
  expect_near_all(values_of<float>(out), {-0.5f, -0.5f, -0.5f, -0.25f, -0.25f, -0.25f});
}

TEST(PRelu, RejectsASlopeThatWouldGrowTheOutput) {
  expect_error(
      [&] {
        NodeRun{"PRelu", 16}.run({make<float>({1, 2}, {2}), make<float>({1, 2, 3, 4}, {2, 2})});
      },
      ErrorCode::kInvalidArgument, {"PRelu node 'node'", "slope shape [2, 2]"});
}

}  // namespace
}  // namespace inferlab::testing
