// The regression gate on synthetic results: identical results pass, a 20%
// slowdown of a ratio outside the noise fails, a slowdown inside overlapping
// intervals does not, and incomparable results are refused with the reason.
#include "inferlab/bench/gate.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab::bench {
namespace {

nlohmann::json result_with_ratio(double ratio, double half_width) {
  nlohmann::json backend_ratio = {{"reference", "onnxruntime"},
                                  {"value", ratio},
                                  {"interval", {ratio - half_width, ratio + half_width}},
                                  {"verdict", "slower"}};
  return {{"schema", "inferlab-bench"},
          {"schema_version", 1},
          {"model", {{"sha256", "abc"}}},
          {"settings",
           {{"reference", "onnxruntime"},
            {"backends", {"native", "onnxruntime"}},
            {"precision", "fp32"},
            {"opt_level", 3},
            {"swept", nlohmann::json::array()}}},
          {"points",
           {{{"point", {{"threads", 2}, {"batch", nullptr}}},
             {"backends",
              {{{"name", "native"}, {"ratio_to_reference", backend_ratio}},
               {{"name", "onnxruntime"}}}}}}}};
}

TEST(Gate, AResultPassesAgainstItself) {
  const nlohmann::json result = result_with_ratio(3.0, 0.05);
  const GateReport report = compare_results(result, result, 0.05);
  EXPECT_TRUE(report.passed);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].verdict, "unchanged");
}

TEST(Gate, FailsOnATwentyPercentRegressionOutsideTheNoise) {
  const GateReport report =
      compare_results(result_with_ratio(3.0, 0.05), result_with_ratio(3.6, 0.05), 0.05);
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.findings[0].verdict, "regressed");
  EXPECT_NEAR(report.findings[0].change, 0.2, 1e-9);
}

TEST(Gate, DoesNotFailWhenIntervalsOverlap) {
  const GateReport report =
      compare_results(result_with_ratio(3.0, 0.5), result_with_ratio(3.6, 0.5), 0.05);
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.findings[0].verdict, "unchanged");
}

TEST(Gate, DoesNotFailBelowTheThreshold) {
  const GateReport report =
      compare_results(result_with_ratio(3.0, 0.01), result_with_ratio(3.09, 0.01), 0.05);
  EXPECT_TRUE(report.passed);
}

TEST(Gate, ReportsImprovements) {
  const GateReport report =
      compare_results(result_with_ratio(3.0, 0.05), result_with_ratio(2.4, 0.05), 0.05);
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.findings[0].verdict, "improved");
}

TEST(Gate, RefusesResultsOfDifferentModelsOrSettingsSayingWhy) {
  nlohmann::json other_model = result_with_ratio(3.0, 0.05);
  other_model["model"]["sha256"] = "def";
  try {
    compare_results(result_with_ratio(3.0, 0.05), other_model, 0.05);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("model"), std::string::npos) << error.what();
  }
  nlohmann::json other_settings = result_with_ratio(3.0, 0.05);
  other_settings["settings"]["opt_level"] = 1;
  try {
    compare_results(result_with_ratio(3.0, 0.05), other_settings, 0.05);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("opt_level"), std::string::npos) << error.what();
  }
  EXPECT_THROW(compare_results(result_with_ratio(3.0, 0.05), nlohmann::json::object(), 0.05),
               Error);
}

// An interleaved run of two builds: "old" is the reference, "new" has a
// ratio to it (or failed).
nlohmann::json builds_result(double ratio, double low, double high, bool new_failed = false) {
  nlohmann::json new_backend = {{"name", "new"}, {"status", new_failed ? "error" : "ok"}};
  if (new_failed)
    new_backend["error"] = "worker exited with status 3";
  else
    new_backend["ratio_to_reference"] = {
        {"reference", "old"}, {"value", ratio}, {"interval", {low, high}}};
  return {{"points",
           {{{"point", {{"threads", 1}, {"batch", nullptr}}},
             {"backends", {{{"name", "old"}, {"status", "ok"}}, new_backend}}}}}};
}

TEST(GateBuilds, TheSameSpeedPasses) {
  const GateReport report = compare_builds(builds_result(1.01, 0.98, 1.04), "old", "new", 0.05);
  EXPECT_TRUE(report.passed);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].verdict, "unchanged");
  EXPECT_EQ(report.findings[0].point, "threads 1");
}

TEST(GateBuilds, ASlowerBuildOutsideTheNoiseFails) {
  const GateReport report = compare_builds(builds_result(1.20, 1.15, 1.26), "old", "new", 0.05);
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.findings[0].verdict, "regressed");
  EXPECT_NEAR(report.findings[0].change, 0.20, 1e-12);
}

TEST(GateBuilds, ASlowdownWhoseIntervalReachesOneIsNoise) {
  const GateReport report = compare_builds(builds_result(1.20, 0.97, 1.40), "old", "new", 0.05);
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.findings[0].verdict, "unchanged");
}

TEST(GateBuilds, AFasterBuildIsReportedAsImproved) {
  const GateReport report = compare_builds(builds_result(0.80, 0.76, 0.85), "old", "new", 0.05);
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.findings[0].verdict, "improved");
}

TEST(GateBuilds, ABuildThatFailedToRunFailsTheGateWithItsError) {
  const GateReport report = compare_builds(builds_result(0, 0, 0, true), "old", "new", 0.05);
  EXPECT_FALSE(report.passed);
  EXPECT_NE(report.findings[0].verdict.find("exited with status 3"), std::string::npos);
}

}  // namespace
}  // namespace inferlab::bench
