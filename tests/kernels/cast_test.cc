// Cast and CastLike between numbers, halves, bool and strings, including the
// conversions C++ leaves undefined (out-of-range float -> int saturates).
#include <cmath>
#include <limits>

#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

NodeRun cast_to(DataType to, int64_t opset = 13) {
  return NodeRun{"Cast", opset, {{"to", int_attr(static_cast<int64_t>(to))}}};
}

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
  const Tensor x = make<float>({1.9f, -1.9f, 1e20f, -1e20f, NAN}, {5});
  EXPECT_EQ(values_of<int32_t>(cast_to(DataType::kInt32).run({x})[0]),
            (std::vector<int32_t>{1, -1, std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::lowest(), 0}));
  EXPECT_EQ(values_of<uint8_t>(cast_to(DataType::kUint8).run({x})[0]),
            (std::vector<uint8_t>{1, 0, 255, 0, 0}));
}

TEST(Cast, IntegersWrapAndBoolIsNonZero) {
  const Tensor x = make<int32_t>({300, -1, 0}, {3});
  EXPECT_EQ(values_of<uint8_t>(cast_to(DataType::kUint8).run({x})[0]),
            (std::vector<uint8_t>{44, 255, 0}));
  EXPECT_EQ(values_of<bool>(cast_to(DataType::kBool).run({x})[0]),
            (std::vector<bool>{true, true, false}));
  const auto back = cast_to(DataType::kFloat64).run({make<bool>({true, false}, {2})})[0];
  EXPECT_EQ(values_of<double>(back), (std::vector<double>{1.0, 0.0}));
}

TEST(Cast, HalfPrecisionRoundTrips) {
  const auto half = cast_to(DataType::kFloat16).run({make<float>({0.5f, 65504.0f, 1e6f}, {3})})[0];
  ASSERT_EQ(half.dtype(), DataType::kFloat16);
  EXPECT_EQ(half.data<Float16>()[0].to_float(), 0.5f);
  EXPECT_EQ(half.data<Float16>()[1].to_float(), 65504.0f);
  EXPECT_TRUE(std::isinf(half.data<Float16>()[2].to_float()));
  // bfloat16 keeps the top 16 bits (ONNX 1.12's reference truncates): 0.47891 -> 0.478515625.
  const auto bf = cast_to(DataType::kBFloat16).run({make<double>({3.0, 0.47891, NAN}, {3})})[0];
  EXPECT_EQ(bf.data<BFloat16>()[0].to_float(), 3.0f);
  EXPECT_EQ(bf.data<BFloat16>()[1].to_float(), 0.478515625f);
  EXPECT_TRUE(std::isnan(bf.data<BFloat16>()[2].to_float()));
  const auto ints = cast_to(DataType::kInt64).run({half})[0];
  EXPECT_EQ(values_of<int64_t>(ints)[0], 0);
  EXPECT_EQ(values_of<int64_t>(ints)[1], 65504);
}

TEST(Cast, NumbersToShortestRoundTripStrings) {
  const auto out = cast_to(DataType::kString)
                       .run({make<float>({0.039187793f, 1.5f, NAN, -INFINITY}, {2, 2})})[0];
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of<std::string>(out),
            (std::vector<std::string>{"0.039187793", "1.5", "NaN", "-INF"}));
  const auto ints = cast_to(DataType::kString).run({make<int64_t>({-12, 7}, {2})})[0];
  EXPECT_EQ(values_of<std::string>(ints), (std::vector<std::string>{"-12", "7"}));
}

TEST(Cast, StringsParseAsNumbers) {
  const Tensor x = make<std::string>({"0.5", "NaN", "INF", "+INF", "-INF", "1e-3"}, {6});
  const auto out = values_of<float>(cast_to(DataType::kFloat32).run({x})[0]);
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], INFINITY);
  EXPECT_EQ(out[3], INFINITY);
  EXPECT_EQ(out[4], -INFINITY);
  EXPECT_FLOAT_EQ(out[5], 0.001f);
  const auto big =
      cast_to(DataType::kInt64).run({make<std::string>({"9007199254740993", "-3"}, {2})})[0];
  EXPECT_EQ(values_of<int64_t>(big), (std::vector<int64_t>{9007199254740993, -3}));
}

TEST(Cast, UnparseableStringIsAnErrorNamingTheNode) {
  expect_error([] { cast_to(DataType::kFloat32).run({make<std::string>({"abc"}, {1})}); },
               ErrorCode::kInvalidArgument, {"Cast node 'node'", "'abc'"});
}

TEST(Cast, UnknownTargetTypeIsAnError) {
  NodeRun cast{"Cast", 13, {{"to", int_attr(99)}}};
  expect_error([&] { cast.run({make<float>({1}, {1})}); }, ErrorCode::kInvalidModel,
               {"Cast node 'node'", "99"});
  NodeRun complex{"Cast", 13, {{"to", int_attr(14)}}};
  expect_error([&] { complex.run({make<float>({1}, {1})}); }, ErrorCode::kInvalidModel, {"14"});
  expect_error(
      [] {
        NodeRun{"Cast", 13}.run({make<float>({1}, {1})});
      },
      ErrorCode::kInvalidModel, {"'to'"});
}

TEST(CastLike, TakesTheTargetTypeFromInput1) {
  const auto out = NodeRun{"CastLike", 15}.run(
      {make<double>({2.75, -0.5}, {1, 2}), Tensor(DataType::kInt16, {0})})[0];
  EXPECT_EQ(out.dtype(), DataType::kInt16);
  EXPECT_EQ(out.shape(), (Shape{1, 2}));
  EXPECT_EQ(values_of<int16_t>(out), (std::vector<int16_t>{2, 0}));
  EXPECT_EQ(kernels::OpRegistry::reference().find("", "CastLike", 14), nullptr);
}

}  // namespace
}  // namespace inferlab::testing
