// HTML report: self-contained, escaped, and — loaded in Debian's headless
// Chromium with the pinned Chart.js inlined — draws every chart it declares
// with no script error and no blocked network request.
#include "inferlab/report/html_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "inferlab/core/error.h"
#include "report/bench_result_fixture.h"
#include "test_util.h"

namespace inferlab::report {
namespace {

// A stand-in library for the tests that only read the page's text.
constexpr const char* kStubLibrary = "window.Chart = function () {};";

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The page without the inlined library's text (whose licence banners name
// the project's web sites in comments).
std::string page_without_library(const std::string& html, const std::string& library) {
  const size_t at = html.find(library);
  EXPECT_NE(at, std::string::npos) << "library not inlined verbatim";
  if (at == std::string::npos) return html;
  return html.substr(0, at) + html.substr(at + library.size());
}

void expect_nothing_fetched(const std::string& html) {
  for (const char* reference : {"src=", "href=", "url(", "@import", "<link", "<iframe", "<img"}) {
    EXPECT_EQ(html.find(reference), std::string::npos) << reference;
  }
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none';"),
            std::string::npos);
}

TEST(HtmlReport, HasNoNetworkReferences) {
  const std::string html = html_report(testing::fixture_result(), kStubLibrary);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  expect_nothing_fetched(html);
}

TEST(HtmlReport, InlinesPinnedLibraryWithoutNetworkReferences) {
  const std::string library = read_chart_library(testing::cache_dir());
  ASSERT_NE(library.find("Chart.js v4.6.1"), std::string::npos) << "not the pinned chart.js";
  const std::string html = html_report(testing::fixture_result(), library);
  expect_nothing_fetched(page_without_library(html, library));
  const std::string page = page_without_library(html, library);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST(HtmlReport, EscapesScriptCloseFromResultText) {
  nlohmann::json result = testing::fixture_result();
  result["model"]["name"] = "m</script><b>";
  result["points"][0]["point"]["shapes"] = {{"in</script>put", {1, 3}}};
  const std::string html = html_report(result, kStubLibrary);
  // Only the report's own four script elements close.
  EXPECT_EQ(count(html, "</script>"), 4u);
  EXPECT_EQ(count(html, "<script"), 4u);
  EXPECT_NE(html.find("error: python: model &#39;x&#39;, says &quot;no artifact&quot; "
                      "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("<title>InferLab bench: m&lt;/script&gt;&lt;b&gt;</title>"),
            std::string::npos);
  EXPECT_NE(html.find("in\\u003c/script\\u003eput"), std::string::npos);  // in the chart JSON
}

TEST(HtmlReport, EscapesScriptCloseInsideInlinedLibrary) {
  const std::string html = html_report(testing::fixture_result(), "var s = '</SCRIPT><!--';");
  EXPECT_NE(html.find("var s = '<\\/SCRIPT><\\!--';"), std::string::npos);
}

TEST(HtmlReport, RefusesEmptyLibrary) {
  EXPECT_THROW(html_report(testing::fixture_result(), ""), Error);
}

TEST(HtmlReport, DeclaresOneChartPerPointTwoPerSweptVariableAndAccuracy) {
  const std::string html = html_report(testing::fixture_result(), kStubLibrary);
  EXPECT_NE(html.find("data-charts-expected=\"5\""), std::string::npos);
  EXPECT_EQ(count(html, "<canvas id=\"chart-"), 5u);
  EXPECT_NE(html.find("Headline latency ms against batch"), std::string::npos);
  EXPECT_NE(html.find("Throughput samples/s against batch"), std::string::npos);
  EXPECT_NE(html.find("Accuracy error against onnxruntime"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"fail\">FAIL: output: error 3.2e-3 &gt; 1e-4</td>"),
            std::string::npos);
}

TEST(FindChartLibrary, NamesInstallScriptWhenMissing) {
  const std::string empty_cache = testing::make_temp_dir("inferlab-report-cache");
  try {
    find_chart_library(empty_cache);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(error.what()).find("tools/install.sh"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find(empty_cache), std::string::npos);
  }
  std::filesystem::remove_all(empty_cache);
}

// The value of one attribute of the <body> start tag in a dumped DOM.
std::string body_attribute(const std::string& dom, const std::string& name) {
  const size_t start = dom.find("<body");
  const size_t end = dom.find('>', start);
  if (start == std::string::npos || end == std::string::npos) return "(no body)";
  const std::string tag = dom.substr(start, end - start);
  const std::string key = " " + name + "=\"";
  const size_t at = tag.find(key);
  if (at == std::string::npos) return "(absent)";
  const size_t value = at + key.size();
  return tag.substr(value, tag.find('"', value) - value);
}

TEST(HtmlReport, RendersEveryChartInHeadlessChromium) {
  const std::string chromium = "/usr/bin/chromium";
  ASSERT_TRUE(std::filesystem::exists(chromium))
      << chromium << " is missing: tools/install.sh installs Debian's chromium package";
  // Accuracy errors within a narrow band, as on real runs (4.4e-7 and 6.5e-7
  // on mobilenet_v2): Chart.js's own logarithmic ticks then read
  // "1.8000000000E-7".
  nlohmann::json result = testing::fixture_result();
  double error = 1.8e-7;
  for (nlohmann::json& point : result["points"])
    for (nlohmann::json& backend : point["backends"])
      if (backend.contains("accuracy"))
        for (nlohmann::json& output : backend["accuracy"]["outputs"])
          output["error"] = error *= 1.3;
  const std::string html = html_report(result, read_chart_library(testing::cache_dir()));
  const std::string dir = testing::make_temp_dir("inferlab-report-html");
  const std::string page = dir + "/report.html";
  testing::write_file(page, html);
  const testing::CommandResult run = testing::run_command(
      "timeout 60 " + chromium +
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --user-data-dir=" +
      dir + "/profile" + " --dump-dom file://" + page);
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const std::string& dom = run.stdout_text;
  EXPECT_EQ(body_attribute(dom, "data-charts-expected"), "5") << dom.substr(0, 400);
  EXPECT_EQ(body_attribute(dom, "data-charts-rendered"), "5");
  EXPECT_EQ(body_attribute(dom, "data-script-errors"), "0")
      << body_attribute(dom, "data-last-script-error");
  EXPECT_EQ(body_attribute(dom, "data-blocked-requests"), "0")
      << body_attribute(dom, "data-last-blocked");
  // Axis labels stay short, logarithmic ones included ("2e-7", not
  // "1.8000000000E-7").
  const std::string longest = body_attribute(dom, "data-longest-tick-label");
  ASSERT_FALSE(longest.empty());
  EXPECT_LE(std::stoi(longest), 8);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace inferlab::report
