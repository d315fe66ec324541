// Broadcasting binary operators (arithmetic, Pow, Mod, comparisons, logic),
// the variadic Max/Min/Mean/Sum and Where, with expected values from numpy.
#include <cmath>
#include <limits>

#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Binary, AddBroadcastsRowAgainstColumn) {
  const auto out =
      NodeRun{"Add", 13}.run({make<float>({1, 2}, {2, 1}), make<float>({10, 20, 30}, {3})})[0];
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<float>(out), (std::vector<float>{11, 21, 31, 12, 22, 32}));
}

TEST(Binary, ArithmeticOnScalarsSizeOneAndEmptyDims) {
  const auto sub =
      NodeRun{"Sub", 13}.run({Tensor::scalar<int64_t>(5), make<int64_t>({1, 2}, {1, 2})})[0];
  EXPECT_EQ(sub.shape(), (Shape{1, 2}));
  EXPECT_EQ(values_of<int64_t>(sub), (std::vector<int64_t>{4, 3}));
  const auto scalar = NodeRun{"Mul", 13}.run({Tensor::scalar(3.0), Tensor::scalar(0.5)})[0];
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(values_of<double>(scalar), (std::vector<double>{1.5}));
  const auto empty =
      NodeRun{"Add", 13}.run({Tensor(DataType::kFloat32, {0, 1}), make<float>({1, 2, 3}, {3})})[0];
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
}

TEST(Binary, IntegerArithmeticWrapsAndDivisionTruncates) {
  const auto add =
      NodeRun{"Add", 14}.run({make<uint8_t>({250, 1}, {2}), make<uint8_t>({10, 1}, {2})})[0];
  EXPECT_EQ(values_of<uint8_t>(add), (std::vector<uint8_t>{4, 2}));
  const int32_t lowest = std::numeric_limits<int32_t>::lowest();
  const auto mul =
      NodeRun{"Mul", 14}.run({make<int32_t>({lowest, 7}, {2}), make<int32_t>({-1, -3}, {2})})[0];
  EXPECT_EQ(values_of<int32_t>(mul), (std::vector<int32_t>{lowest, -21}));
  const auto div = NodeRun{"Div", 14}.run(
      {make<int32_t>({7, -7, lowest}, {3}), make<int32_t>({2, 2, -1}, {3})})[0];
  EXPECT_EQ(values_of<int32_t>(div), (std::vector<int32_t>{3, -3, lowest}));
}

TEST(Binary, IntegerDivisionByZeroIsAnErrorNamingTheNode) {
  expect_error(
      [] {
        NodeRun{"Div", 14}.run({make<int32_t>({1}, {1}), make<int32_t>({0}, {1})});
      },
      ErrorCode::kRuntime, {"Div node 'node'", "division by zero"});
  const auto floats = NodeRun{"Div", 14}.run({make<float>({1}, {1}), make<float>({0}, {1})})[0];
  EXPECT_TRUE(std::isinf(values_of<float>(floats)[0]));
}

TEST(Binary, IncompatibleShapesNameTheNode) {
  expect_error(
      [] {
        NodeRun{"Mul", 13}.run({make<float>({1, 2, 3}, {3}), make<float>({1, 2}, {2})});
      },
      ErrorCode::kInvalidArgument, {"Mul node 'node'", "[3]", "[2]"});
  expect_error(
      [] {
        NodeRun{"Add", 13}.run({make<float>({1}, {1}), make<double>({1}, {1})});
      },
      ErrorCode::kInvalidModel, {"Add node 'node'", "double"});
}

TEST(Mod, IntegerResultTakesTheDivisorsSignUnlessFmod) {
  const Tensor a = make<int32_t>({-4, 7, 5, -6}, {4});
  const Tensor b = make<int32_t>({3, -3, 2, -4}, {4});
  EXPECT_EQ(values_of<int32_t>(NodeRun{"Mod", 13}.run({a, b})[0]),
            (std::vector<int32_t>{2, -2, 1, -2}));
  NodeRun fmod{"Mod", 13, {{"fmod", int_attr(1)}}};
  EXPECT_EQ(values_of<int32_t>(fmod.run({a, b})[0]), (std::vector<int32_t>{-1, 1, 1, -2}));
  const auto floats =
      fmod.run({make<float>({-4.5f, 7.5f}, {2}), make<float>({2.0f, -2.0f}, {2})})[0];
  EXPECT_EQ(values_of<float>(floats), (std::vector<float>{-0.5f, 1.5f}));
}

TEST(Mod, IntegerModuloByZeroIsAnErrorNamingTheNode) {
  expect_error(
      [] {
        NodeRun{"Mod", 13}.run({make<int64_t>({5, 6}, {2}), Tensor::scalar<int64_t>(0)});
      },
      ErrorCode::kRuntime, {"Mod node 'node'", "by zero"});
  expect_error(
      [] {
        NodeRun{"Mod", 13}.run({make<uint8_t>({5}, {1}), make<uint8_t>({0}, {1})});
      },
      ErrorCode::kRuntime, {"Mod node 'node'"});
}

TEST(Pow, MixedBaseAndExponentTypesFromOpset12) {
  const auto ints =
      NodeRun{"Pow", 13}.run({make<int64_t>({1, 2, 3}, {3}), make<int64_t>({4, 5, 6}, {3})})[0];
  EXPECT_EQ(values_of<int64_t>(ints), (std::vector<int64_t>{1, 32, 729}));
  const auto mixed =
      NodeRun{"Pow", 13}.run({make<float>({2, 4}, {2}), Tensor::scalar<int32_t>(2)})[0];
  EXPECT_EQ(values_of<float>(mixed), (std::vector<float>{4, 16}));
  const auto int_float =
      NodeRun{"Pow", 13}.run({make<int32_t>({4, 9}, {2}), Tensor::scalar(0.5f)})[0];
  EXPECT_EQ(values_of<int32_t>(int_float), (std::vector<int32_t>{2, 3}));
  expect_error(
      [] {
        NodeRun{"Pow", 7}.run({make<float>({2}, {1}), make<int32_t>({2}, {1})});
      },
      ErrorCode::kInvalidModel, {"Pow node 'node'"});
}

TEST(Comparison, ProduceBoolWithBroadcast) {
  const Tensor a = make<int32_t>({1, 2, 3}, {3});
  const Tensor b = Tensor::scalar<int32_t>(2);
  EXPECT_EQ(values_of<bool>(NodeRun{"Equal", 13}.run({a, b})[0]),
            (std::vector<bool>{false, true, false}));
  EXPECT_EQ(values_of<bool>(NodeRun{"Greater", 13}.run({a, b})[0]),
            (std::vector<bool>{false, false, true}));
  EXPECT_EQ(values_of<bool>(NodeRun{"GreaterOrEqual", 16}.run({a, b})[0]),
            (std::vector<bool>{false, true, true}));
  EXPECT_EQ(values_of<bool>(NodeRun{"Less", 13}.run({a, b})[0]),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values_of<bool>(NodeRun{"LessOrEqual", 16}.run({a, b})[0]),
            (std::vector<bool>{true, true, false}));
  const auto nan = NodeRun{"Equal", 13}.run({make<float>({NAN}, {1}), make<float>({NAN}, {1})})[0];
  EXPECT_EQ(values_of<bool>(nan), (std::vector<bool>{false}));
  EXPECT_EQ(kernels::OpRegistry::reference().find("", "GreaterOrEqual", 11), nullptr);
}

TEST(Logical, AndOrXorBroadcastOverBool) {
  const Tensor a = make<bool>({true, true, false, false}, {2, 2});
  const Tensor b = make<bool>({true, false}, {2});
  EXPECT_EQ(values_of<bool>(NodeRun{"And", 7}.run({a, b})[0]),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(values_of<bool>(NodeRun{"Or", 7}.run({a, b})[0]),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(values_of<bool>(NodeRun{"Xor", 7}.run({a, b})[0]),
            (std::vector<bool>{false, true, true, false}));
  expect_error(
      [] {
        NodeRun{"And", 7}.run({make<int32_t>({1}, {1}), make<int32_t>({1}, {1})});
      },
      ErrorCode::kInvalidModel, {"And node 'node'", "int32"});
}

TEST(Variadic, MaxMinMeanSumBroadcastManyInputs) {
  const Tensor a = make<float>({1, 5, 3}, {3});
  const Tensor b = make<float>({4, 2}, {2, 1});
  const Tensor c = Tensor::scalar(3.0f);
  EXPECT_EQ(values_of<float>(NodeRun{"Max", 13}.run({a, b, c})[0]),
            (std::vector<float>{4, 5, 4, 3, 5, 3}));
  EXPECT_EQ(values_of<float>(NodeRun{"Min", 13}.run({a, b, c})[0]),
            (std::vector<float>{1, 3, 3, 1, 2, 2}));
  EXPECT_EQ(values_of<float>(NodeRun{"Sum", 13}.run({a, b, c})[0]),
            (std::vector<float>{8, 12, 10, 6, 10, 8}));
  const auto mean = NodeRun{"Mean", 13}.run({a, b})[0];
  EXPECT_EQ(mean.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<float>(mean), (std::vector<float>{2.5f, 4.5f, 3.5f, 1.5f, 3.5f, 2.5f}));
  const auto one = NodeRun{"Max", 13}.run({make<uint16_t>({7, 9}, {2})})[0];
  EXPECT_EQ(values_of<uint16_t>(one), (std::vector<uint16_t>{7, 9}));
}

TEST(Where, BroadcastsConditionAndBothBranches) {
  const auto out =
      NodeRun{"Where", 16}.run({make<bool>({true, false}, {2}), make<int64_t>({1, 2, 3, 4}, {2, 2}),
                                Tensor::scalar<int64_t>(-1)})[0];
  EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{1, -1, 3, -1}));
  const auto strings =
      NodeRun{"Where", 16}.run({make<bool>({false, true}, {2}), make<std::string>({"a", "b"}, {2}),
                                make<std::string>({"c"}, {1})})[0];
  EXPECT_EQ(values_of<std::string>(strings), (std::vector<std::string>{"c", "b"}));
  expect_error(
      [] {
        NodeRun{"Where", 16}.run(
            {make<int32_t>({1}, {1}), make<float>({1}, {1}), make<float>({2}, {1})});
      },
      ErrorCode::kInvalidModel, {"Where node 'node'"});
}

}  // namespace
}  // namespace inferlab::testing
