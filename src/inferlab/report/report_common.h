// What every file report of `inferlab bench` shares: the schema check, safe
// reads of optional figures from the result document (docs/bench-schema.md),
// and the summary table — one row of plain-text cells per backend — that the
// Markdown and HTML reports both print, each escaping it in its own way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace inferlab::report {

// Throws Error(kInvalidArgument) unless `result` is an inferlab-bench
// version 1 document with a `points` array.
void check_result_schema(const nlohmann::json& result);

// The value at `path` when every step exists and the last is not null.
const nlohmann::json* find(const nlohmann::json& object, std::initializer_list<const char*> path);
std::optional<double> number_at(const nlohmann::json& object,
                                std::initializer_list<const char*> path);
std::string string_at(const nlohmann::json& object, std::initializer_list<const char*> path);

// Point variables (batch, threads, shapes, ...) in order of first appearance
// over all points.
std::vector<std::string> point_variable_names(const nlohmann::json& result);
// One point variable as text: numbers as they are, a shape list as 1x3x224x224,
// an object of shapes as input=1x3x224x224;mask=1x128.
std::string point_value_text(const nlohmann::json& value);
// "batch=1, threads=2, shapes=input=1x3x224x224".
std::string point_label(const nlohmann::json& point_entry);

// The figures of one backend at one point, missing ones empty.
struct BackendFigures {
  std::string name;
  std::string status;  // ok, error, no_artifact
  std::string error;
  std::optional<double> headline_ms, headline_low_ms, headline_high_ms, trimmed_mean_ms;
  std::optional<double> count, p50_ms, p90_ms, p95_ms, p99_ms, p999_ms, mean_ms, stddev_ms;
  std::optional<double> min_ms, max_ms, cv_round_medians;
  std::optional<double> samples_per_s, inferences_per_s;
  std::optional<double> startup_ms, load_ms, cold_start_ms;
  std::optional<double> memory_before_open_mib, memory_peak_mib, memory_steady_mib;
  std::optional<double> memory_peak_above_mib, memory_steady_above_mib;
  std::string ratio_reference, verdict;
  std::optional<double> ratio, ratio_low, ratio_high;
  std::string accuracy_reference;
  std::optional<double> accuracy_error;   // worst (largest) over outputs
  std::optional<double> accuracy_cosine;  // worst (smallest) over outputs
  std::optional<bool> accuracy_passed;
  std::string accuracy_failure;  // the failing outputs' reasons, joined
  std::string noise_warning;
  bool ok() const { return status == "ok"; }
  // "error: <message>" or "no artifact: <message>"; empty when ok.
  std::string status_text() const;
};
BackendFigures backend_figures(const nlohmann::json& backend);

// The backend entries of one point (empty when malformed).
std::vector<const nlohmann::json*> backends_of(const nlohmann::json& point_entry);

// Every latency of every round, pooled (rounds[].latencies_ms).
std::vector<double> pooled_latencies(const nlohmann::json& backend);

// Numbers for people: about four significant digits, "—" when missing.
std::string human_number(std::optional<double> value);
// Accuracy errors: scientific notation, "0" for an exact match.
std::string error_number(std::optional<double> value);

// The per-point summary table shared by the Markdown and HTML reports.
struct SummaryTable {
  std::vector<std::string> headers;
  // One row per backend; a backend that is not ok has its name, then its
  // status text in the second cell and empty cells after it.
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> row_ok;
  std::vector<bool> row_accuracy_failed;
};
SummaryTable summary_table(const nlohmann::json& point_entry, const std::string& reference);

// The reference backend named in settings, "" when none.
std::string reference_name(const nlohmann::json& result);

}  // namespace inferlab::report
