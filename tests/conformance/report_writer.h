// Turns case results into the runner's outputs: the summary line, the
// per-operator table, docs/conformance.md and a JSON dump. Cases are grouped
// by their primary operator (the one the case is named after), so every
// counted case appears in exactly one row and a failure routes to one kernel.
#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "conformance/case_catalog.h"
#include "conformance/case_execution.h"

namespace inferlab::conformance {

struct CaseResult {
  const ConformanceCase* test_case = nullptr;
  std::optional<CaseOutcome> outcome;  // set for counted cases that ran
};

struct StatusCounts {
  int total = 0;
  int passed = 0;
  int failed = 0;
  int unsupported = 0;
  int crashed = 0;

  void add(CaseStatus status) {
    ++total;
    if (status == CaseStatus::kPass) ++passed;
    if (status == CaseStatus::kFail) ++failed;
    if (status == CaseStatus::kUnsupported) ++unsupported;
    if (status == CaseStatus::kCrash) ++crashed;
  }
  double pass_rate() const { return total == 0 ? 0.0 : static_cast<double>(passed) / total; }
};

inline StatusCounts count_statuses(const std::vector<CaseResult>& results) {
  StatusCounts counts;
  for (const auto& result : results) {
    if (result.outcome) counts.add(result.outcome->status);
  }
  return counts;
}

inline std::map<std::string, StatusCounts> counts_by_operator(
    const std::vector<CaseResult>& results) {
  std::map<std::string, StatusCounts> table;
  for (const auto& result : results) {
    if (result.outcome) table[result.test_case->primary_operator].add(result.outcome->status);
  }
  return table;
}

inline std::string summary_line(const StatusCounts& counts) {
  return fmt::format(
      "conformance: {} passed, {} failed, {} unsupported, {} crashed of {} counted ({:.1f}%)",
      counts.passed, counts.failed, counts.unsupported, counts.crashed, counts.total,
      100.0 * counts.pass_rate());
}

inline std::string operator_table_text(const std::vector<CaseResult>& results) {
  std::string text = fmt::format("{:<24} {:>7} {:>6} {:>6} {:>11} {:>7}\n", "operator", "counted",
                                 "pass", "fail", "unsupported", "crash");
  for (const auto& [op, counts] : counts_by_operator(results)) {
    text += fmt::format("{:<24} {:>7} {:>6} {:>6} {:>11} {:>7}\n", op, counts.total, counts.passed,
                        counts.failed, counts.unsupported, counts.crashed);
  }
  return text;
}

namespace detail {

// A reason on one line, safe inside a Markdown table cell.
inline std::string table_cell(const std::string& text, size_t max_chars = 400) {
  std::string cell;
  for (char c : text.substr(0, max_chars)) {
    if (c == '\n' || c == '\r')
      cell += ' ';
    else if (c == '|')
      cell += "\\|";
    else
      cell += c;
  }
  return text.size() > max_chars ? cell + "..." : cell;
}

inline std::string markdown_operator_table(const std::vector<CaseResult>& results,
                                           bool list_uncovered) {
  std::string md = "| Operator | Counted | Pass | Fail | Unsupported | Crash |\n";
  md += "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [op, counts] : counts_by_operator(results)) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", op, counts.total, counts.passed,
                      counts.failed, counts.unsupported, counts.crashed);
  }
  std::set<std::string> uncovered = operators_in_scope();
  for (const auto& result : results) {
    if (!result.outcome) continue;
    for (const auto& op : result.test_case->operators) uncovered.erase(op);
  }
  if (list_uncovered && !uncovered.empty()) {
    md += "\nOperators in scope that no counted case uses:";
    for (const auto& op : uncovered) md += " " + op;
    md += ".\n";
  }
  return md;
}

inline std::string markdown_not_passing(const std::vector<CaseResult>& results) {
  std::string md = "| Case | Operator | Status | Reason |\n|---|---|---|---|\n";
  int rows = 0;
  for (const auto& result : results) {
    if (!result.outcome || result.outcome->status == CaseStatus::kPass) continue;
    md += fmt::format("| {} | {} | {} | {} |\n", result.test_case->id(),
                      result.test_case->primary_operator, case_status_name(result.outcome->status),
                      table_cell(result.outcome->reason));
    ++rows;
  }
  return rows == 0 ? std::string("Every counted case passes.\n") : md;
}

inline std::string markdown_not_counted(const std::vector<CaseResult>& results) {
  std::map<std::string, int> by_kind;
  std::map<std::string, int> by_missing_operator;
  for (const auto& result : results) {
    const ConformanceCase& c = *result.test_case;
    if (c.counted) continue;
    ++by_kind[c.not_counted_kind];
    if (c.not_counted_kind != "operator not in scope") continue;
    for (const auto& op : c.operators) {
      if (!operators_in_scope().count(op)) ++by_missing_operator[op];
    }
  }
  std::string md = "| Reason | Cases |\n|---|---:|\n";
  for (const auto& [kind, count] : by_kind) md += fmt::format("| {} | {} |\n", kind, count);
  if (!by_missing_operator.empty()) {
    md += "\nOperators outside the issue's list, with the number of cases that use them:";
    std::string separator = " ";
    for (const auto& [op, count] : by_missing_operator) {
      md += fmt::format("{}{} ({})", separator, op, count);
      separator = ", ";
    }
    md += ".\n";
  }
  return md;
}

}  // namespace detail

// How the results were produced, for the report's preamble.
struct ReportContext {
  std::string data_dir;
  std::string filter;  // empty: every case
  double timeout_seconds = 60;
};

inline std::string markdown_report(const std::vector<CaseResult>& results,
                                   const ReportContext& context) {
  const std::string& data_dir = context.data_dir;
  const std::string& filter = context.filter;
  const StatusCounts counts = count_statuses(results);
  std::string md = "# ONNX conformance\n\n";
  md += "Generated by `make conformance-report` (`conformance_runner --data-dir " + data_dir +
        " --report docs/conformance.md`); do not edit by hand.\n\n";
  md +=
      "Cases come from Debian's `libonnx-testdata` 1.12 (`node`, `pytorch-converted`, "
      "`pytorch-operator`, `simple`). A case counts when its default-domain opset is 7 to 17 "
      "and every node, subgraphs included, is a default-domain operator of the issue's list; "
      "`test_training_dropout*` (random masks) does not count. Floating-point outputs must "
      "satisfy |a-b| <= 1e-5 + 1e-3*|b| (NaN equals NaN), other types must match exactly, and "
      "dtype and shape must match. Each case runs in its own process, so a crash or a hang ";
  md += fmt::format("({:.0f} s timeout) fails that case only. ", context.timeout_seconds);
  md +=
      "The 1.12 data stores bfloat16 tensors as uint16 (numpy has no bfloat16); the runner reads "
      "them as the bfloat16 the model declares. Inputs are read with InferLab's `.pb` reader, "
      "expected outputs with the runner's own.\n\n";
  if (!filter.empty()) md += "Only cases matching `" + filter + "` were run.\n\n";
  md += "## Summary\n\n`" + summary_line(counts) + "`\n\n";
  md +=
      "## Per operator\n\nEach counted case is listed under the operator it is named after "
      "(multi-operator models under their main operator).\n\n";
  md += detail::markdown_operator_table(results, filter.empty());
  md += "\n## Counted cases that do not pass\n\n" + detail::markdown_not_passing(results);
  md += "\n## Not counted\n\n" + detail::markdown_not_counted(results);
  return md;
}

inline nlohmann::json json_report(const std::vector<CaseResult>& results) {
  const StatusCounts counts = count_statuses(results);
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& result : results) {
    const ConformanceCase& c = *result.test_case;
    nlohmann::json entry = {
        {"id", c.id()},        {"suite", c.suite},         {"name", c.name},
        {"opset", c.opset},    {"operators", c.operators}, {"primary_operator", c.primary_operator},
        {"counted", c.counted}};
    if (!c.counted) entry["not_counted"] = c.not_counted_kind + ": " + c.not_counted_reason;
    if (result.outcome) {
      entry["status"] = case_status_name(result.outcome->status);
      entry["reason"] = result.outcome->reason;
      entry["seconds"] = result.outcome->seconds;
    }
    cases.push_back(std::move(entry));
  }
  return {{"summary",
           {{"counted", counts.total},
            {"passed", counts.passed},
            {"failed", counts.failed},
            {"unsupported", counts.unsupported},
            {"crashed", counts.crashed},
            {"pass_rate", counts.pass_rate()}}},
          {"cases", cases}};
}

}  // namespace inferlab::conformance
