// Seeded random inputs: the documented seed rule (seed and input name), the
// range rule applied per dtype, and the errors that name the input.
#include "inferlab/inputs/input_generator.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "inferlab/core/error.h"
#include "input_test_support.h"

namespace inferlab::inputs {
namespace {

std::string error_of(const model::ValueInfo& input, const ValueRange& range) {
  try {
    random_tensor(input, {16}, range, 0);
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(InputGenerator, SeedWordsAreTheSeedAndTheNamesFnv1a) {
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector).
  EXPECT_EQ(seed_words(0x0000000700000009ull, "a"),
            (std::vector<uint32_t>{9, 7, 0x8601ec8cu, 0xaf63dc4cu}));
}

TEST(InputGenerator, FloatsFollowTheDocumentedRule) {
  const model::ValueInfo x = declared("a", DataType::kFloat64, {4});
  const Tensor tensor = random_tensor(x, {4}, {2.0, 6.0}, 3);
  const std::vector<uint32_t> words = seed_words(3, "a");
  std::seed_seq seeds(words.begin(), words.end());
  std::mt19937_64 generator(seeds);
  for (int64_t i = 0; i < 4; ++i) {
    const double unit = static_cast<double>(generator() >> 11) * 0x1.0p-53;
    EXPECT_EQ(tensor.data<double>()[i], 2.0 + 4.0 * unit) << i;
  }
}

TEST(InputGenerator, SameSeedAndNameGiveTheSameValues) {
  const model::ValueInfo x = declared("x", DataType::kFloat32, {64});
  const Tensor first = random_tensor(x, {64}, {0.0, 1.0}, 7);
  EXPECT_TRUE(first.equals(random_tensor(x, {64}, {0.0, 1.0}, 7)));
  EXPECT_FALSE(first.equals(random_tensor(x, {64}, {0.0, 1.0}, 8)));
  EXPECT_FALSE(
      first.equals(random_tensor(declared("y", DataType::kFloat32, {64}), {64}, {0.0, 1.0}, 7)));
}

TEST(InputGenerator, AnInputsValuesDoNotDependOnItsPosition) {
  const model::ValueInfo a = declared("a", DataType::kFloat32, {8});
  const model::ValueInfo b = declared("b", DataType::kInt64, {8});
  const std::map<std::string, Shape> shapes = {{"a", {8}}, {"b", {8}}};
  const std::map<std::string, ValueRange> ranges = {{"a", {0, 1}}, {"b", {0, 100}}};
  const backends::TensorMap forward = random_inputs({a, b}, shapes, ranges, 1);
  const backends::TensorMap backward = random_inputs({b, a}, shapes, ranges, 1);
  EXPECT_TRUE(forward.at("a").equals(backward.at("a")));
  EXPECT_TRUE(forward.at("b").equals(backward.at("b")));
}

TEST(InputGenerator, FloatsOfEveryWidthStayInTheirRange) {
  for (DataType dtype :
       {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}) {
    const Tensor tensor = random_tensor(declared("x", dtype, {4096}), {4096}, {-1.0, 1.0}, 0);
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      const double value = tensor.element_as_double(i);
      ASSERT_GE(value, -1.0) << dtype_name(dtype);
      ASSERT_LT(value, 1.0) << dtype_name(dtype);
    }
  }
}

TEST(InputGenerator, IntegersTakeEveryIntegerOfTheRangeAndNoOther) {
  // [4.5, 8.5): ceil(4.5) = 5 up to 8, the last integer below 8.5.
  const Tensor tensor =
      random_tensor(declared("ids", DataType::kInt32, {1000}), {1000}, {4.5, 8.5}, 0);
  std::set<int64_t> seen;
  for (int64_t value : tensor.to_int64_vector()) seen.insert(value);
  EXPECT_EQ(seen, (std::set<int64_t>{5, 6, 7, 8}));
}

TEST(InputGenerator, NegativeIntegerRangesWork) {
  const Tensor tensor =
      random_tensor(declared("v", DataType::kInt8, {1000}), {1000}, {-128, 128}, 0);
  std::set<int64_t> seen;
  for (int64_t value : tensor.to_int64_vector()) seen.insert(value);
  EXPECT_EQ(*seen.begin(), -128);
  EXPECT_EQ(*seen.rbegin(), 127);
}

TEST(InputGenerator, BoolsAreCoinFlipsWhateverTheRange) {
  const Tensor tensor =
      random_tensor(declared("mask", DataType::kBool, {1000}), {1000}, {0.0, 1.0}, 0);
  int64_t heads = 0;
  for (int64_t i = 0; i < tensor.numel(); ++i) heads += tensor.data<bool>()[i] ? 1 : 0;
  EXPECT_GT(heads, 400);  // fixed seed: a fair coin's count, not a flaky bound
  EXPECT_LT(heads, 600);
}

TEST(InputGenerator, RangeWithoutAValueOfTheDtypeIsAnErrorNamingTheInput) {
  EXPECT_EQ(error_of(declared("ids", DataType::kInt64, {16}), {0.2, 0.8}),
            "input 'ids': the range [0.2, 0.8) holds no integer, but the input is an integer "
            "tensor");
  // float16 has no value in [0.1, 0.10001): 0.0999756 and 0.1000366 lie either side.
  EXPECT_EQ(error_of(declared("h", DataType::kFloat16, {16}), {0.1, 0.10001}),
            "input 'h': the range [0.1, 0.10001) holds no float16 value");
}

TEST(InputGenerator, IntegerRangeBeyondTheDtypeIsAnError) {
  EXPECT_EQ(error_of(declared("pixels", DataType::kUint8, {16}), {0, 1000}),
            "input 'pixels' is uint8, which cannot hold the range [0, 1000)");
}

TEST(InputGenerator, StringInputsAreNotGenerated) {
  try {
    random_tensor(declared("text", DataType::kString, {2}), {2}, {0, 1}, 0);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(error.what()).find("input 'text' holds strings"), std::string::npos);
  }
}

}  // namespace
}  // namespace inferlab::inputs
