// Markdown report: a table per point, errors as "error: ...", noise warnings.
#include "inferlab/report/markdown_report.h"

#include <gtest/gtest.h>

#include <string>

#include "inferlab/core/error.h"
#include "report/bench_result_fixture.h"

namespace inferlab::report {
namespace {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(MarkdownReport, HasTitleCommandEnvironmentAndOneTablePerPoint) {
  const std::string md = markdown_report(testing::fixture_result());
  EXPECT_EQ(md.rfind("# InferLab bench: mobilenet\\_v2\n", 0), 0u) << md.substr(0, 80);
  EXPECT_NE(md.find("inferlab bench model/ --backends native,onnxruntime,python --batch 1,4"),
            std::string::npos);
  EXPECT_NE(md.find("- CPU: Test CPU @ 2.0GHz"), std::string::npos);
  EXPECT_NE(md.find("## Point 1 of 2: batch=1, shapes=input=1x3x224x224, threads=2"),
            std::string::npos);
  EXPECT_NE(md.find("## Point 2 of 2: batch=4"), std::string::npos);
  EXPECT_EQ(count(md, "| Backend | Headline ms \\[95% CI\\] |"), 2u);
  EXPECT_EQ(count(md, "| --- | ---: |"), 2u);
  EXPECT_NE(md.find("Ratio to onnxruntime \\[95% CI\\]"), std::string::npos);
  // Brackets are escaped so no result text can form a link.
  // native at batch 1: headline 9.45 [9.27, 9.63], ratio 9/7 with its interval and verdict.
  EXPECT_NE(md.find("| native | 9.450 \\[9.270, 9.630\\] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.286× \\[1.247, 1.324\\] slower |"), std::string::npos);
  EXPECT_NE(md.find("| 2.00e-06 | 0.999998 | pass |"), std::string::npos);
  EXPECT_NE(md.find("| FAIL: output: error 3.2e-3 \\> 1e-4 |"), std::string::npos);
  EXPECT_NE(md.find("| onnxruntime | 7.350 \\[7.210, 7.490\\] |"), std::string::npos);
}

TEST(MarkdownReport, ShowsFailedBackendAsErrorRowEscaped) {
  const std::string md = markdown_report(testing::fixture_result());
  const std::string row =
      "| python | error: python: model 'x', says \"no artifact\" "
      "\\</script\\>\\<script\\>alert(1)\\</script\\> |";
  EXPECT_EQ(count(md, row), 2u) << md;
  EXPECT_EQ(md.find("</script>"), std::string::npos);
}

TEST(MarkdownReport, ListsNoiseWarnings) {
  const std::string md = markdown_report(testing::fixture_result());
  EXPECT_NE(md.find("Noise warnings:\n\n- **native**: round medians vary 7.5% (CV \\> 5%): another "
                    "process ran"),
            std::string::npos);
  EXPECT_EQ(count(md, "Noise warnings:"), 1u);
}

TEST(MarkdownReport, RefusesDocumentWithoutPoints) {
  nlohmann::json result = testing::fixture_result();
  result.erase("points");
  EXPECT_THROW(markdown_report(result), Error);
}

}  // namespace
}  // namespace inferlab::report
