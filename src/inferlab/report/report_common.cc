// Shared reading of bench results for the file reports (report_common.h).
#include "inferlab/report/report_common.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::report {

using nlohmann::json;

void check_result_schema(const json& result) {
  if (!result.is_object()) fail(ErrorCode::kInvalidArgument, "bench result: not a JSON object");
  const std::string schema = string_at(result, {"schema"});
  const json* version = find(result, {"schema_version"});
  if (schema != "inferlab-bench" || version == nullptr || !version->is_number_integer() ||
      version->get<int64_t>() != 1) {
    fail(ErrorCode::kInvalidArgument,
         "bench result: schema '{}' version {} is not inferlab-bench version 1", schema,
         version == nullptr ? std::string("(none)") : version->dump());
  }
  const json* points = find(result, {"points"});
  if (points == nullptr || !points->is_array()) {
    fail(ErrorCode::kInvalidArgument, "bench result: 'points' is missing or not an array");
  }
}

const json* find(const json& object, std::initializer_list<const char*> path) {
  const json* current = &object;
  for (const char* key : path) {
    if (!current->is_object()) return nullptr;
    auto it = current->find(key);
    if (it == current->end()) return nullptr;
    current = &*it;
  }
  return current->is_null() ? nullptr : current;
}

std::optional<double> number_at(const json& object, std::initializer_list<const char*> path) {
  const json* value = find(object, path);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

std::string string_at(const json& object, std::initializer_list<const char*> path) {
  const json* value = find(object, path);
  if (value == nullptr) return "";
  return value->is_string() ? value->get<std::string>() : value->dump();
}

std::vector<std::string> point_variable_names(const json& result) {
  std::vector<std::string> names;
  const json* points = find(result, {"points"});
  if (points == nullptr || !points->is_array()) return names;
  for (const json& entry : *points) {
    const json* point = find(entry, {"point"});
    if (point == nullptr || !point->is_object()) continue;
    for (auto it = point->begin(); it != point->end(); ++it) {
      if (std::find(names.begin(), names.end(), it.key()) == names.end()) names.push_back(it.key());
    }
  }
  return names;
}

std::string point_value_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string text;
    for (const json& element : value) {
      if (!text.empty()) text += "x";
      text += point_value_text(element);
    }
    return text;
  }
  if (value.is_object()) {
    std::string text;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!text.empty()) text += ";";
      text += it.key() + "=" + point_value_text(it.value());
    }
    return text;
  }
  return value.dump();
}

std::string point_label(const json& point_entry) {
  const json* point = find(point_entry, {"point"});
  if (point == nullptr || !point->is_object() || point->empty()) return "default";
  std::string label;
  for (auto it = point->begin(); it != point->end(); ++it) {
    if (it.value().is_null()) continue;  // a variable the run left at the model's default
    if (!label.empty()) label += ", ";
    label += it.key() + "=" + point_value_text(it.value());
  }
  return label.empty() ? "default" : label;
}

std::string BackendFigures::status_text() const {
  if (ok()) return "";
  std::string kind = status == "no_artifact" ? "no artifact" : status.empty() ? "error" : status;
  return error.empty() ? kind : kind + ": " + error;
}

namespace {

void read_accuracy(const json& backend, BackendFigures& figures) {
  const json* accuracy = find(backend, {"accuracy"});
  if (accuracy == nullptr) return;
  figures.accuracy_reference = string_at(*accuracy, {"reference"});
  if (const json* passed = find(*accuracy, {"passed"}); passed != nullptr && passed->is_boolean()) {
    figures.accuracy_passed = passed->get<bool>();
  }
  const json* outputs = find(*accuracy, {"outputs"});
  if (outputs == nullptr || !outputs->is_array()) return;
  for (const json& output : *outputs) {
    if (auto error = number_at(output, {"error"})) {
      figures.accuracy_error = std::max(figures.accuracy_error.value_or(*error), *error);
    }
    if (auto cosine = number_at(output, {"cosine"})) {
      figures.accuracy_cosine = std::min(figures.accuracy_cosine.value_or(*cosine), *cosine);
    }
    const std::string failure = string_at(output, {"failure"});
    if (!failure.empty()) {
      if (!figures.accuracy_failure.empty()) figures.accuracy_failure += "; ";
      figures.accuracy_failure += string_at(output, {"name"}) + ": " + failure;
    }
  }
}

}  // namespace

BackendFigures backend_figures(const json& backend) {
  BackendFigures f;
  f.name = string_at(backend, {"name"});
  f.status = string_at(backend, {"status"});
  f.error = string_at(backend, {"error"});
  f.headline_ms = number_at(backend, {"headline_ms"});
  if (const json* interval = find(backend, {"headline_interval_ms"});
      interval != nullptr && interval->is_array() && interval->size() == 2 &&
      (*interval)[0].is_number() && (*interval)[1].is_number()) {
    f.headline_low_ms = (*interval)[0].get<double>();
    f.headline_high_ms = (*interval)[1].get<double>();
  }
  f.trimmed_mean_ms = number_at(backend, {"trimmed_mean_ms"});
  f.count = number_at(backend, {"latency_ms", "count"});
  f.p50_ms = number_at(backend, {"latency_ms", "p50"});
  f.p90_ms = number_at(backend, {"latency_ms", "p90"});
  f.p95_ms = number_at(backend, {"latency_ms", "p95"});
  f.p99_ms = number_at(backend, {"latency_ms", "p99"});
  f.p999_ms = number_at(backend, {"latency_ms", "p999"});
  f.mean_ms = number_at(backend, {"latency_ms", "mean"});
  f.stddev_ms = number_at(backend, {"latency_ms", "stddev"});
  f.min_ms = number_at(backend, {"latency_ms", "min"});
  f.max_ms = number_at(backend, {"latency_ms", "max"});
  f.cv_round_medians = number_at(backend, {"cv_round_medians"});
  f.samples_per_s = number_at(backend, {"throughput", "samples_per_s"});
  f.inferences_per_s = number_at(backend, {"throughput", "inferences_per_s"});
  f.startup_ms = number_at(backend, {"startup_ms"});
  f.load_ms = number_at(backend, {"load_ms"});
  f.cold_start_ms = number_at(backend, {"cold_start_ms"});
  f.memory_before_open_mib = number_at(backend, {"memory_mib", "before_open"});
  f.memory_peak_mib = number_at(backend, {"memory_mib", "peak"});
  f.memory_steady_mib = number_at(backend, {"memory_mib", "steady"});
  f.memory_peak_above_mib = number_at(backend, {"memory_mib", "peak_above_before_open"});
  f.memory_steady_above_mib = number_at(backend, {"memory_mib", "steady_above_before_open"});
  f.ratio_reference = string_at(backend, {"ratio_to_reference", "reference"});
  f.ratio = number_at(backend, {"ratio_to_reference", "value"});
  if (const json* interval = find(backend, {"ratio_to_reference", "interval"});
      interval != nullptr && interval->is_array() && interval->size() == 2 &&
      (*interval)[0].is_number() && (*interval)[1].is_number()) {
    f.ratio_low = (*interval)[0].get<double>();
    f.ratio_high = (*interval)[1].get<double>();
  }
  f.verdict = string_at(backend, {"ratio_to_reference", "verdict"});
  f.noise_warning = string_at(backend, {"noise_warning"});
  read_accuracy(backend, f);
  return f;
}

std::vector<const json*> backends_of(const json& point_entry) {
  std::vector<const json*> backends;
  const json* list = find(point_entry, {"backends"});
  if (list == nullptr || !list->is_array()) return backends;
  for (const json& backend : *list) {
    if (backend.is_object()) backends.push_back(&backend);
  }
  return backends;
}

std::vector<double> pooled_latencies(const json& backend) {
  std::vector<double> latencies;
  const json* rounds = find(backend, {"rounds"});
  if (rounds == nullptr || !rounds->is_array()) return latencies;
  for (const json& round : *rounds) {
    const json* values = find(round, {"latencies_ms"});
    if (values == nullptr || !values->is_array()) continue;
    for (const json& value : *values) {
      if (value.is_number()) latencies.push_back(value.get<double>());
    }
  }
  return latencies;
}

std::string human_number(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "—";
  const double magnitude = std::fabs(*value);
  if (magnitude == 0) return "0";
  if (magnitude >= 1000) return fmt::format("{:.0f}", *value);
  if (magnitude >= 100) return fmt::format("{:.1f}", *value);
  if (magnitude >= 10) return fmt::format("{:.2f}", *value);
  if (magnitude >= 0.01) return fmt::format("{:.3f}", *value);
  return fmt::format("{:.2e}", *value);
}

std::string error_number(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "—";
  if (*value == 0) return "0";
  return fmt::format("{:.2e}", *value);
}

std::string reference_name(const json& result) {
  return string_at(result, {"settings", "reference"});
}

namespace {

std::string interval_text(std::optional<double> low, std::optional<double> high) {
  if (!low || !high) return "";
  return fmt::format(" [{}, {}]", human_number(low), human_number(high));
}

std::string ratio_text(const BackendFigures& f, const std::string& reference) {
  if (f.name == reference && !f.ratio) return "reference";
  if (!f.ratio) return "—";
  std::string text =
      fmt::format("{}×{}", human_number(f.ratio), interval_text(f.ratio_low, f.ratio_high));
  if (!f.verdict.empty()) text += " " + f.verdict;
  return text;
}

std::string accuracy_text(const BackendFigures& f, const std::string& reference) {
  if (!f.accuracy_passed) return f.name == reference ? "reference" : "—";
  if (*f.accuracy_passed) return "pass";
  return f.accuracy_failure.empty() ? "FAIL" : "FAIL: " + f.accuracy_failure;
}

std::vector<std::string> figure_cells(const BackendFigures& f, const std::string& reference) {
  return {
      f.name,
      human_number(f.headline_ms) + interval_text(f.headline_low_ms, f.headline_high_ms),
      human_number(f.trimmed_mean_ms),
      fmt::format("{} / {} / {} / {} / {}", human_number(f.p50_ms), human_number(f.p90_ms),
                  human_number(f.p95_ms), human_number(f.p99_ms), human_number(f.p999_ms)),
      fmt::format("{} ± {}", human_number(f.mean_ms), human_number(f.stddev_ms)),
      fmt::format("{} / {}", human_number(f.min_ms), human_number(f.max_ms)),
      human_number(f.samples_per_s),
      ratio_text(f, reference),
      error_number(f.accuracy_error),
      f.accuracy_cosine ? fmt::format("{:.6f}", *f.accuracy_cosine) : "—",
      accuracy_text(f, reference),
      fmt::format("{} / {} / {}", human_number(f.startup_ms), human_number(f.load_ms),
                  human_number(f.cold_start_ms)),
      fmt::format("{} / {} ({} / {})", human_number(f.memory_peak_mib),
                  human_number(f.memory_steady_mib), human_number(f.memory_peak_above_mib),
                  human_number(f.memory_steady_above_mib)),
  };
}

}  // namespace

SummaryTable summary_table(const json& point_entry, const std::string& reference) {
  SummaryTable table;
  const std::string against = reference.empty() ? "reference" : reference;
  table.headers = {"Backend",
                   "Headline ms [95% CI]",
                   "Trimmed mean ms",
                   "P50 / P90 / P95 / P99 / P99.9 ms",
                   "Mean ± SD ms",
                   "Min / Max ms",
                   "Samples/s",
                   "Ratio to " + against + " [95% CI]",
                   "Accuracy error",
                   "Cosine",
                   "Accuracy vs " + against,
                   "Startup / load / cold start ms",
                   "Memory MiB peak / steady (above before-open)"};
  for (const json* backend : backends_of(point_entry)) {
    const BackendFigures f = backend_figures(*backend);
    if (f.ok()) {
      table.rows.push_back(figure_cells(f, reference));
    } else {
      std::vector<std::string> row(table.headers.size());
      row[0] = f.name;
      row[1] = f.status_text();
      table.rows.push_back(row);
    }
    table.row_ok.push_back(f.ok());
    table.row_accuracy_failed.push_back(f.accuracy_passed.has_value() && !*f.accuracy_passed);
  }
  return table;
}

}  // namespace inferlab::report
