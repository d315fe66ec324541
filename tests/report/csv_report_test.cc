// CSV report: one row per (point, backend), RFC 4180 quoting.
#include "inferlab/report/csv_report.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "inferlab/core/error.h"
#include "report/bench_result_fixture.h"

namespace inferlab::report {
namespace {

using Table = std::vector<std::vector<std::string>>;

// A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes.
Table parse_csv(const std::string& text) {
  Table table(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = table.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "quote inside an unquoted field at byte " << i;
      quoted = true;
    } else if (c == ',') {
      table.back().emplace_back();
    } else if (c == '\r') {
      EXPECT_EQ(text[i + 1], '\n') << "CR not followed by LF at byte " << i;
      ++i;
      table.emplace_back(1);
    } else {
      EXPECT_NE(c, '\n') << "bare LF at byte " << i;
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quoted field";
  EXPECT_EQ(table.back(), std::vector<std::string>(1)) << "last record must end with CRLF";
  table.pop_back();
  return table;
}

std::map<std::string, std::string> row_map(const Table& table, size_t row) {
  std::map<std::string, std::string> fields;
  for (size_t c = 0; c < table[0].size(); ++c) fields[table[0][c]] = table[row].at(c);
  return fields;
}

TEST(CsvReport, HasOneRowPerPointAndBackendWithEqualWidths) {
  const Table table = parse_csv(csv_report(testing::fixture_result()));
  ASSERT_EQ(table.size(), 1u + 2 * 3);
  for (const auto& row : table) EXPECT_EQ(row.size(), table[0].size());
  const std::vector<std::string> leading(table[0].begin(), table[0].begin() + 6);
  // Point variables come in the document's key order (nlohmann::json sorts keys).
  EXPECT_EQ(leading,
            (std::vector<std::string>{"point", "batch", "shapes", "threads", "backend", "status"}));
  for (const char* column : {"headline_ms",
                             "headline_low_ms",
                             "headline_high_ms",
                             "trimmed_mean_ms",
                             "p50_ms",
                             "p90_ms",
                             "p95_ms",
                             "p99_ms",
                             "p999_ms",
                             "mean_ms",
                             "stddev_ms",
                             "min_ms",
                             "max_ms",
                             "samples_per_s",
                             "startup_ms",
                             "load_ms",
                             "cold_start_ms",
                             "memory_peak_mib",
                             "memory_steady_above_before_open_mib",
                             "ratio_to_reference",
                             "ratio_low",
                             "ratio_high",
                             "verdict",
                             "accuracy_error",
                             "accuracy_cosine",
                             "accuracy_passed",
                             "noise_warning"}) {
    EXPECT_NE(std::find(table[0].begin(), table[0].end(), column), table[0].end()) << column;
  }
  const auto native_batch4 = row_map(table, 5);
  EXPECT_EQ(native_batch4.at("point"), "1");
  EXPECT_EQ(native_batch4.at("batch"), "4");
  EXPECT_EQ(native_batch4.at("shapes"), "input=4x3x224x224");
  EXPECT_EQ(native_batch4.at("backend"), "native");
  EXPECT_DOUBLE_EQ(std::stod(native_batch4.at("headline_ms")), 36.0 * 1.05);
  EXPECT_DOUBLE_EQ(std::stod(native_batch4.at("ratio_to_reference")), 36.0 / 28.0);
  EXPECT_EQ(native_batch4.at("verdict"), "slower");
  EXPECT_EQ(native_batch4.at("accuracy_passed"), "false");
  EXPECT_DOUBLE_EQ(std::stod(native_batch4.at("accuracy_error")), 3.2e-3);
  EXPECT_EQ(native_batch4.at("p999_ms"), "");  // null below 1000 samples
  const auto reference = row_map(table, 1);
  EXPECT_EQ(reference.at("backend"), "onnxruntime");
  EXPECT_EQ(reference.at("ratio_to_reference"), "");
}

TEST(CsvReport, QuotesFieldHoldingCommaAndQuotes) {
  const std::string csv = csv_report(testing::fixture_result());
  EXPECT_NE(csv.find("\"python: model 'x', says \"\"no artifact\"\" </script>"), std::string::npos);
  const Table table = parse_csv(csv);
  const auto python = row_map(table, 3);
  EXPECT_EQ(python.at("backend"), "python");
  EXPECT_EQ(python.at("status"), "error");
  EXPECT_EQ(python.at("error"), testing::kPlantedError);
  EXPECT_EQ(python.at("headline_ms"), "");
}

TEST(CsvReport, QuotesLineBreaksAndLeavesPlainFieldsBare) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(CsvReport, RefusesOtherSchemasAndVersions) {
  nlohmann::json result = testing::fixture_result();
  result["schema_version"] = 2;
  EXPECT_THROW(csv_report(result), Error);
  result = testing::fixture_result();
  result["schema"] = "something-else";
  try {
    csv_report(result);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("something-else"), std::string::npos);
  }
}

}  // namespace
}  // namespace inferlab::report
