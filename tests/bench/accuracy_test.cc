// Tests of the accuracy comparison: metrics against hand-computed values, the
// top-1 margin rule, top-5, batches, mismatches, non-finite values and the
// per-precision tolerance defaults.
#include "inferlab/bench/accuracy.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab::bench {
namespace {

Tensor floats(const std::vector<float>& values, Shape shape) {
  return Tensor::from_vector<float>(values, std::move(shape));
}

const Tolerance kFp32 = default_tolerance("fp32");

TEST(AccuracyCompare, IdenticalTensorsAgreeExactly) {
  const Tensor reference = floats({0.5f, -1.0f, 2.0f, 7.0f}, {1, 4});
  const OutputAccuracy result = compare_output("logits", reference.clone(), reference, kFp32, true);
  EXPECT_EQ(result.name, "logits");
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_EQ(result.failure, "");
  EXPECT_DOUBLE_EQ(result.cosine, 1.0);
  EXPECT_EQ(result.max_abs, 0.0);
  EXPECT_EQ(result.mean_abs, 0.0);
  EXPECT_EQ(result.error, 0.0);
  EXPECT_EQ(result.max_relative, 0.0);
  ASSERT_TRUE(result.top1_agreement.has_value());
  EXPECT_EQ(*result.top1_agreement, 1.0);
  EXPECT_EQ(*result.top5_agreement, 1.0);
  EXPECT_EQ(result.samples, 1);
}

TEST(AccuracyCompare, MetricsMatchHandComputedValues) {
  // diffs 0.5, 0, 0.1, 0; max|ref| = 3; relative only where ref != 0.
  const Tensor actual = Tensor::from_vector<double>({0.5, -2.0, 3.1, 0.0}, {4});
  const Tensor reference = Tensor::from_vector<double>({1.0, -2.0, 3.0, 0.0}, {4});
  const OutputAccuracy result = compare_output("out", actual, reference, kFp32, false);
  EXPECT_NEAR(result.max_abs, 0.5, 1e-12);
  EXPECT_NEAR(result.mean_abs, 0.6 / 4, 1e-12);
  EXPECT_NEAR(result.error, 0.5 / 3.0, 1e-12);
  EXPECT_NEAR(result.max_relative, 0.5, 1e-12);
  // dot = 0.5 + 4 + 9.3 = 13.8; |a|^2 = 13.86; |ref|^2 = 14.
  EXPECT_NEAR(result.cosine, 13.8 / std::sqrt(13.86 * 14.0), 1e-12);
  EXPECT_FALSE(result.top1_agreement.has_value());
  EXPECT_FALSE(result.top5_agreement.has_value());
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("error 0.167 > 0.0001"), std::string::npos) << result.failure;
}

TEST(AccuracyCompare, ErrorDividesByOneWhenReferenceIsSmall) {
  const OutputAccuracy result =
      compare_output("out", floats({0.1f, 0.25f}, {2}), floats({0.1f, 0.2f}, {2}), kFp32, false);
  EXPECT_NEAR(result.error, 0.05, 1e-6);  // max(1, 0.2) = 1
  EXPECT_NEAR(result.max_relative, 0.25, 1e-6);
}

TEST(AccuracyCompare, PassesWithinToleranceAndFailsJustOutside) {
  const Tensor reference = floats({10.0f, -20.0f, 40.0f}, {3});
  // error = 0.002 / 40 = 5e-5 <= 1e-4
  const OutputAccuracy close =
      compare_output("out", floats({10.0f, -20.0f, 40.002f}, {3}), reference, kFp32, false);
  EXPECT_TRUE(close.passed) << close.failure;
  // error = 0.008 / 40 = 2e-4 > 1e-4
  const OutputAccuracy far =
      compare_output("out", floats({10.0f, -20.008f, 40.0f}, {3}), reference, kFp32, false);
  EXPECT_FALSE(far.passed);
  EXPECT_NE(far.failure.find("error"), std::string::npos);
}

TEST(AccuracyCompare, NearTieInReferenceIsNotATop1Disagreement) {
  // The reference prefers class 2 by 1e-5, below 1e-4 * max(1, 5.00001).
  const Tensor reference = floats({0.0f, 5.0f, 5.00001f, 1.0f}, {1, 4});
  const Tensor actual = floats({0.0f, 5.00001f, 5.0f, 1.0f}, {1, 4});
  const OutputAccuracy result = compare_output("logits", actual, reference, kFp32, true);
  ASSERT_TRUE(result.top1_agreement.has_value());
  EXPECT_EQ(*result.top1_agreement, 1.0);
  EXPECT_EQ(*result.top5_agreement, 1.0);
}

TEST(AccuracyCompare, ClearTop1DisagreementCounts) {
  const Tensor reference = floats({0.0f, 5.0f, 6.0f, 1.0f}, {1, 4});
  const Tensor actual = floats({0.0f, 6.0f, 5.0f, 1.0f}, {1, 4});
  const OutputAccuracy result = compare_output("logits", actual, reference, kFp32, true);
  EXPECT_EQ(*result.top1_agreement, 0.0);
  EXPECT_EQ(*result.top5_agreement, 1.0);  // class 2 is the actual's second best
  EXPECT_FALSE(result.passed);
}

TEST(AccuracyCompare, Top5ChecksReferenceTop1AmongActualBestFive) {
  // The reference's clear best is class 0; the actual ranks it 5th, then 6th.
  const Tensor reference = floats({9, 1, 2, 3, 4, 5, 6, 7, 0, 0}, {1, 10});
  const Tensor fifth = floats({5, 1, 2, 3, 4, 6, 7, 8, 9, 0}, {1, 10});
  const Tensor sixth = floats({4.5f, 1, 2, 3, 5, 6, 7, 8, 9, 0}, {1, 10});
  const OutputAccuracy in = compare_output("logits", fifth, reference, kFp32, true);
  EXPECT_EQ(*in.top1_agreement, 0.0);
  EXPECT_EQ(*in.top5_agreement, 1.0);
  const OutputAccuracy out = compare_output("logits", sixth, reference, kFp32, true);
  EXPECT_EQ(*out.top1_agreement, 0.0);
  EXPECT_EQ(*out.top5_agreement, 0.0);
}

TEST(AccuracyCompare, BatchOfThreeRowsCountsEachSample) {
  const Tensor reference = floats({1, 9, 2,         // clear best: class 1
                                   7, 1, 3,         // clear best: class 0
                                   4, 4.0001f, 0},  // near tie of 0 and 1
                                  {3, 3});
  const Tensor actual = floats({1, 9, 2,         // agrees
                                3, 1, 7,         // clear disagreement
                                4.0001f, 4, 0},  // disagrees on a near tie: forgiven
                               {3, 3});
  const OutputAccuracy result = compare_output("logits", actual, reference, kFp32, true);
  EXPECT_EQ(result.samples, 3);
  EXPECT_NEAR(*result.top1_agreement, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(*result.top5_agreement, 1.0, 1e-12);  // 3 classes: all within top-5
}

TEST(AccuracyCompare, SamplesAreTheRowsBeforeTheLastAxis) {
  const Tensor reference(DataType::kFloat32, {2, 3, 4});
  const OutputAccuracy result = compare_output("scores", reference, reference, kFp32, true);
  EXPECT_EQ(result.samples, 6);
  EXPECT_TRUE(result.passed) << result.failure;  // all zeros on both sides
  EXPECT_DOUBLE_EQ(result.cosine, 1.0);
}

TEST(AccuracyCompare, ShapeMismatchIsAFailedComparison) {
  const Tensor actual(DataType::kFloat32, {1, 10});
  const Tensor reference(DataType::kFloat32, {1, 1000});
  const OutputAccuracy result = compare_output("logits", actual, reference, kFp32, true);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure, "shape [1, 10] vs [1, 1000]");
  EXPECT_FALSE(result.top1_agreement.has_value());
}

TEST(AccuracyCompare, DtypeMismatchIsAFailedComparison) {
  const Tensor actual = Tensor::from_vector<double>({1.0, 2.0}, {2});
  const Tensor reference = floats({1.0f, 2.0f}, {2});
  const OutputAccuracy result = compare_output("out", actual, reference, kFp32, false);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("dtype"), std::string::npos) << result.failure;
  EXPECT_NE(result.failure.find("double"), std::string::npos) << result.failure;
}

TEST(AccuracyCompare, StringTensorsAreNotCompared) {
  const Tensor text = Tensor::from_vector<std::string>({"a"}, {1});
  const OutputAccuracy result = compare_output("labels", text, text, kFp32, false);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("not numeric"), std::string::npos) << result.failure;
}

TEST(AccuracyCompare, NanWhereReferenceIsFiniteFails) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const OutputAccuracy result = compare_output("out", floats({1.0f, nan, 3.0f}, {3}),
                                               floats({1.0f, 2.0f, 3.0f}, {3}), kFp32, false);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("non-finite"), std::string::npos) << result.failure;
  EXPECT_NE(result.failure.find("element 1"), std::string::npos) << result.failure;
  // The metrics cover the finite pairs and stay finite (JSON has no NaN).
  EXPECT_EQ(result.max_abs, 0.0);
  EXPECT_TRUE(std::isfinite(result.cosine));
}

TEST(AccuracyCompare, NanInBothAtTheSamePlaceAgrees) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor reference = floats({1.0f, nan, 3.0f}, {3});
  const OutputAccuracy result = compare_output("out", reference.clone(), reference, kFp32, false);
  EXPECT_TRUE(result.passed) << result.failure;
}

TEST(AccuracyCompare, Int8ToleranceJudgesByCosineOnly) {
  const Tolerance int8 = default_tolerance("int8");
  const Tensor reference = Tensor::from_vector<int8_t>({10, 20, -30, 40}, {4});
  // error = 1/40 = 0.025, far above any float bound, but the direction holds.
  const Tensor close = Tensor::from_vector<int8_t>({11, 19, -30, 41}, {4});
  const OutputAccuracy pass = compare_output("q", close, reference, int8, false);
  EXPECT_NEAR(pass.error, 1.0 / 40.0, 1e-12);
  EXPECT_TRUE(pass.passed) << pass.failure;
  // cosine = (100 - 400 - 900 - 1600) / 3000 < 0.99
  const Tensor flipped = Tensor::from_vector<int8_t>({10, -20, 30, -40}, {4});
  const OutputAccuracy fail = compare_output("q", flipped, reference, int8, false);
  EXPECT_NEAR(fail.cosine, -2800.0 / 3000.0, 1e-12);
  EXPECT_FALSE(fail.passed);
  EXPECT_NE(fail.failure.find("cosine"), std::string::npos) << fail.failure;
  EXPECT_EQ(fail.failure.find("error"), std::string::npos) << fail.failure;
}

TEST(AccuracyCompare, Int8ClassScoresStillCountClearDisagreements) {
  // int8 has no error bound, so only exact ties in the reference are forgiven.
  const Tolerance int8 = default_tolerance("int8");
  const Tensor reference = Tensor::from_vector<int8_t>({5, 6, 1, 5, 5, 1}, {2, 3});
  const Tensor actual = Tensor::from_vector<int8_t>({6, 5, 1, 5, 6, 1}, {2, 3});
  const OutputAccuracy result = compare_output("q", actual, reference, int8, true);
  EXPECT_NEAR(*result.top1_agreement, 0.5, 1e-12);
}

TEST(AccuracyCompare, Float16OutputsAreCompared) {
  auto halves = [](const std::vector<float>& values) {
    std::vector<Float16> out;
    for (float v : values) out.push_back(Float16::from_float(v));
    return Tensor::from_vector<Float16>(out, {static_cast<int64_t>(out.size())});
  };
  const OutputAccuracy result =
      compare_output("h", halves({1.0f, 2.0f, 4.0f}), halves({1.0f, 2.0f, 4.03125f}),
                     default_tolerance("fp16"), false);
  EXPECT_NEAR(result.max_abs, 0.03125, 1e-12);  // both exactly representable in fp16
  EXPECT_NEAR(result.error, 0.03125 / 4.03125, 1e-12);
  EXPECT_TRUE(result.passed) << result.failure;  // 7.75e-3 <= 1e-2
  const OutputAccuracy beyond =
      compare_output("h", halves({1.0f, 2.0f, 4.0f}), halves({1.0f, 2.0f, 4.0625f}),
                     default_tolerance("fp16"), false);
  EXPECT_FALSE(beyond.passed);  // 0.0625 / 4.0625 = 1.5e-2 > 1e-2
  EXPECT_EQ(beyond.failure, "error 0.0154 > 0.01");
}

TEST(AccuracyTolerance, DefaultsFollowTheMethodology) {
  EXPECT_EQ(default_tolerance("fp32").max_error, 1e-4);
  EXPECT_EQ(default_tolerance("fp32").min_cosine, 0.0);
  EXPECT_EQ(default_tolerance("fp16").max_error, 1e-2);
  EXPECT_EQ(default_tolerance("bf16").max_error, 1e-2);
  const Tolerance int8 = default_tolerance("int8");
  EXPECT_TRUE(std::isinf(int8.max_error));
  EXPECT_EQ(int8.min_cosine, 0.99);
}

TEST(AccuracyTolerance, UnknownPrecisionIsNamed) {
  try {
    default_tolerance("fp64");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("'fp64'"), std::string::npos) << error.what();
  }
}

TEST(AccuracyJson, CarriesEveryFieldOfTheSchema) {
  const Tensor reference = floats({1.0f, 3.0f}, {1, 2});
  const nlohmann::json classifier =
      accuracy_json(compare_output("logits", reference.clone(), reference, kFp32, true));
  EXPECT_EQ(classifier["name"], "logits");
  EXPECT_EQ(classifier["cosine"], 1.0);
  EXPECT_EQ(classifier["top1_agreement"], 1.0);
  EXPECT_EQ(classifier["top5_agreement"], 1.0);
  EXPECT_EQ(classifier["samples"], 1);
  EXPECT_EQ(classifier["passed"], true);
  EXPECT_EQ(classifier["failure"], "");
  for (const char* key : {"max_abs", "mean_abs", "error", "max_relative"}) {
    EXPECT_EQ(classifier[key], 0.0) << key;
  }
  const nlohmann::json plain =
      accuracy_json(compare_output("boxes", reference.clone(), reference, kFp32, false));
  EXPECT_TRUE(plain["top1_agreement"].is_null());
  EXPECT_TRUE(plain["top5_agreement"].is_null());
}

}  // namespace
}  // namespace inferlab::bench
