// The one range rule: --input-range, then the manifest's range, then the
// default by dtype; integer inputs take the integers of [low, high).
#include "inferlab/inputs/input_range.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"
#include "input_test_support.h"

namespace inferlab::inputs {
namespace {

backends::ModelSource manifest_with_range(const model::ValueInfo& input, double low, double high) {
  backends::ModelSource source;
  source.inputs.push_back({input, std::make_pair(low, high)});
  return source;
}

TEST(InputRange, DefaultsAreByDtype) {
  EXPECT_EQ(default_range(DataType::kFloat32), (ValueRange{0, 1}));
  EXPECT_EQ(default_range(DataType::kFloat16), (ValueRange{0, 1}));
  EXPECT_EQ(default_range(DataType::kInt64), (ValueRange{0, 100}));
  EXPECT_EQ(default_range(DataType::kUint8), (ValueRange{0, 100}));
}

TEST(InputRange, FlagFirstThenManifestThenDefault) {
  const model::ValueInfo ids = declared("ids", DataType::kInt64, {8});
  const model::ValueInfo mask = declared("mask", DataType::kFloat32, {8});
  const backends::ModelSource source = manifest_with_range(ids, 5, 9);
  EXPECT_EQ(input_range(ids, {}, source), (ValueRange{5, 9}));
  EXPECT_EQ(input_range(ids, {{"ids", {1, 2}}}, source), (ValueRange{1, 2}));
  EXPECT_EQ(input_range(mask, {}, source), (ValueRange{0, 1}));
  const auto ranges = input_ranges({ids, mask}, {{"mask", {-1, 1}}}, source);
  EXPECT_EQ(ranges.at("ids"), (ValueRange{5, 9}));
  EXPECT_EQ(ranges.at("mask"), (ValueRange{-1, 1}));
}

TEST(InputRange, RangeForANameThatIsNotAnInputIsAnError) {
  try {
    input_ranges({declared("x", DataType::kFloat32, {2})}, {{"y", {0, 1}}}, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--input-range: a range is given for 'y', which is not an input (inputs: x)");
  }
}

TEST(InputRange, EmptyGivenRangeIsAnError) {
  try {
    input_ranges({declared("x", DataType::kFloat32, {2})}, {{"x", {1, 1}}}, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--input-range x: the range [1, 1) is empty or not finite");
  }
}

TEST(InputRange, IntegerBoundsAreTheIntegersBelowHigh) {
  EXPECT_EQ(integer_bounds("x", {0, 100}), std::make_pair(int64_t{0}, int64_t{99}));
  EXPECT_EQ(integer_bounds("x", {0.5, 3.5}), std::make_pair(int64_t{1}, int64_t{3}));
  EXPECT_EQ(integer_bounds("x", {-2.5, -1}), std::make_pair(int64_t{-2}, int64_t{-2}));
  EXPECT_THROW(integer_bounds("x", {0.2, 0.9}), Error);
  EXPECT_THROW(integer_bounds("x", {0, 1e30}), Error);
}

}  // namespace
}  // namespace inferlab::inputs
