// CSV file report: flat rows for spreadsheets and scripts (csv_report.h).
#include "inferlab/report/csv_report.h"

#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "inferlab/report/report_common.h"

namespace inferlab::report {

using nlohmann::json;

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

// Shortest text that reads back as the same double; empty when missing.
std::string number_field(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "";
  return fmt::format("{}", *value);
}

using Column = std::pair<const char*, std::function<std::string(const BackendFigures&)>>;

std::vector<Column> figure_columns() {
  auto number = [](std::optional<double> BackendFigures::*field) {
    return [field](const BackendFigures& f) { return number_field(f.*field); };
  };
  auto text = [](std::string BackendFigures::*field) {
    return [field](const BackendFigures& f) { return f.*field; };
  };
  using F = BackendFigures;
  return {
      {"backend", text(&F::name)},
      {"status", text(&F::status)},
      {"error", text(&F::error)},
      {"headline_ms", number(&F::headline_ms)},
      {"headline_low_ms", number(&F::headline_low_ms)},
      {"headline_high_ms", number(&F::headline_high_ms)},
      {"trimmed_mean_ms", number(&F::trimmed_mean_ms)},
      {"count", number(&F::count)},
      {"p50_ms", number(&F::p50_ms)},
      {"p90_ms", number(&F::p90_ms)},
      {"p95_ms", number(&F::p95_ms)},
      {"p99_ms", number(&F::p99_ms)},
      {"p999_ms", number(&F::p999_ms)},
      {"mean_ms", number(&F::mean_ms)},
      {"stddev_ms", number(&F::stddev_ms)},
      {"min_ms", number(&F::min_ms)},
      {"max_ms", number(&F::max_ms)},
      {"cv_round_medians", number(&F::cv_round_medians)},
      {"samples_per_s", number(&F::samples_per_s)},
      {"inferences_per_s", number(&F::inferences_per_s)},
      {"startup_ms", number(&F::startup_ms)},
      {"load_ms", number(&F::load_ms)},
      {"cold_start_ms", number(&F::cold_start_ms)},
      {"memory_before_open_mib", number(&F::memory_before_open_mib)},
      {"memory_peak_mib", number(&F::memory_peak_mib)},
      {"memory_steady_mib", number(&F::memory_steady_mib)},
      {"memory_peak_above_before_open_mib", number(&F::memory_peak_above_mib)},
      {"memory_steady_above_before_open_mib", number(&F::memory_steady_above_mib)},
      {"ratio_reference", text(&F::ratio_reference)},
      {"ratio_to_reference", number(&F::ratio)},
      {"ratio_low", number(&F::ratio_low)},
      {"ratio_high", number(&F::ratio_high)},
      {"verdict", text(&F::verdict)},
      {"accuracy_reference", text(&F::accuracy_reference)},
      {"accuracy_error", number(&F::accuracy_error)},
      {"accuracy_cosine", number(&F::accuracy_cosine)},
      {"accuracy_passed",
       [](const F& f) {
         return f.accuracy_passed ? std::string(*f.accuracy_passed ? "true" : "false") : "";
       }},
      {"accuracy_failure", text(&F::accuracy_failure)},
      {"noise_warning", text(&F::noise_warning)},
  };
}

void append_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  out += "\r\n";
}

}  // namespace

std::string csv_report(const json& result) {
  check_result_schema(result);
  const std::vector<std::string> variables = point_variable_names(result);
  const std::vector<Column> columns = figure_columns();

  std::vector<std::string> header{"point"};
  header.insert(header.end(), variables.begin(), variables.end());
  for (const Column& column : columns) header.push_back(column.first);
  std::string out;
  append_row(out, header);

  const json& points = result.at("points");
  for (size_t index = 0; index < points.size(); ++index) {
    const json& entry = points[index];
    std::vector<std::string> prefix{std::to_string(index)};
    for (const std::string& variable : variables) {
      const json* value = find(entry, {"point"});
      value = value == nullptr ? nullptr : find(*value, {variable.c_str()});
      prefix.push_back(value == nullptr ? "" : point_value_text(*value));
    }
    for (const json* backend : backends_of(entry)) {
      const BackendFigures figures = backend_figures(*backend);
      std::vector<std::string> row = prefix;
      for (const Column& column : columns) row.push_back(column.second(figures));
      append_row(out, row);
    }
  }
  return out;
}

}  // namespace inferlab::report
