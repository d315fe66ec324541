#include "inferlab/bench/gate.h"

#include <fmt/format.h>

#include "inferlab/core/error.h"
#include "inferlab/runtime/compute_threads.h"

namespace inferlab::bench {

namespace {

void require_same(const nlohmann::json& baseline, const nlohmann::json& candidate,
                  const std::string& what) {
  if (baseline != candidate) {
    fail(ErrorCode::kInvalidArgument,
         "results are not comparable: {} differs (baseline {}, new {})", what, baseline.dump(),
         candidate.dump());
  }
}

void check_comparable(const nlohmann::json& baseline, const nlohmann::json& candidate) {
  for (const nlohmann::json* result : {&baseline, &candidate}) {
    if (result->value("schema", "") != "inferlab-bench" || result->value("schema_version", 0) != 1)
      fail(ErrorCode::kInvalidArgument, "not an inferlab-bench version 1 result");
  }
  require_same(baseline["model"]["sha256"], candidate["model"]["sha256"], "the model (sha256)");
  for (const char* key : {"reference", "backends", "precision", "opt_level", "swept"})
    require_same(baseline["settings"][key], candidate["settings"][key],
                 std::string("setting ") + key);
  if (baseline["points"].size() != candidate["points"].size())
    fail(ErrorCode::kInvalidArgument, "results are not comparable: {} points vs {}",
         baseline["points"].size(), candidate["points"].size());
}

std::string point_label(const nlohmann::json& point) {
  std::string label = "threads " + runtime::threads_label(point.value("threads", 0),
                                                          point.value("threads_used", 0));
  if (point.contains("batch") && !point["batch"].is_null())
    label += fmt::format(", batch {}", point["batch"].get<int64_t>());
  return label;
}

const nlohmann::json* find_backend(const nlohmann::json& point, const std::string& name) {
  for (const nlohmann::json& backend : point["backends"])
    if (backend["name"] == name) return &backend;
  return nullptr;
}

GateFinding judge(const nlohmann::json& old_ratio, const nlohmann::json& new_ratio,
                  double max_regression) {
  GateFinding finding;
  finding.baseline_ratio = old_ratio["value"].get<double>();
  finding.new_ratio = new_ratio["value"].get<double>();
  finding.new_low = new_ratio["interval"][0].get<double>();
  finding.new_high = new_ratio["interval"][1].get<double>();
  finding.change = finding.new_ratio / finding.baseline_ratio - 1.0;
  const bool disjoint_slower =
      new_ratio["interval"][0].get<double>() > old_ratio["interval"][1].get<double>();
  const bool disjoint_faster =
      new_ratio["interval"][1].get<double>() < old_ratio["interval"][0].get<double>();
  if (finding.change > max_regression && disjoint_slower)
    finding.verdict = "regressed";
  else if (finding.change < -max_regression && disjoint_faster)
    finding.verdict = "improved";
  else
    finding.verdict = "unchanged";
  return finding;
}

}  // namespace

GateReport compare_results(const nlohmann::json& baseline, const nlohmann::json& candidate,
                           double max_regression) {
  check_comparable(baseline, candidate);
  GateReport report;
  for (size_t i = 0; i < baseline["points"].size(); ++i) {
    const nlohmann::json& old_point = baseline["points"][i];
    const nlohmann::json& new_point = candidate["points"][i];
    require_same(old_point["point"], new_point["point"], fmt::format("point {}", i + 1));
    for (const nlohmann::json& old_backend : old_point["backends"]) {
      const std::string name = old_backend["name"].get<std::string>();
      const nlohmann::json* new_backend = find_backend(new_point, name);
      if (!old_backend.contains("ratio_to_reference") || new_backend == nullptr ||
          !new_backend->contains("ratio_to_reference"))
        continue;
      GateFinding finding = judge(old_backend["ratio_to_reference"],
                                  (*new_backend)["ratio_to_reference"], max_regression);
      finding.point = point_label(old_point["point"]);
      finding.backend = name;
      report.passed &= finding.verdict != "regressed";
      report.findings.push_back(std::move(finding));
    }
  }
  if (report.findings.empty())
    fail(ErrorCode::kInvalidArgument,
         "nothing to compare: no backend has a ratio to the reference in both results");
  return report;
}

namespace {

GateFinding judge_build(const nlohmann::json& backend, double max_regression) {
  GateFinding finding;
  finding.backend = backend.value("name", "");
  finding.baseline_ratio = 1.0;
  if (backend.value("status", "") != "ok" || !backend.contains("ratio_to_reference")) {
    finding.verdict = "error: " + backend.value("error", std::string("no ratio to the old build"));
    return finding;
  }
  const nlohmann::json& ratio = backend["ratio_to_reference"];
  finding.new_ratio = ratio["value"].get<double>();
  finding.new_low = ratio["interval"][0].get<double>();
  finding.new_high = ratio["interval"][1].get<double>();
  finding.change = finding.new_ratio - 1.0;
  if (finding.change > max_regression && ratio["interval"][0].get<double>() > 1.0)
    finding.verdict = "regressed";
  else if (finding.change < -max_regression && ratio["interval"][1].get<double>() < 1.0)
    finding.verdict = "improved";
  else
    finding.verdict = "unchanged";
  return finding;
}

}  // namespace

GateReport compare_builds(const nlohmann::json& result, const std::string& old_label,
                          const std::string& new_label, double max_regression) {
  GateReport report;
  for (const nlohmann::json& point : result.at("points")) {
    const nlohmann::json* old_backend = find_backend(point, old_label);
    const nlohmann::json* new_backend = find_backend(point, new_label);
    if (old_backend == nullptr || new_backend == nullptr)
      fail(ErrorCode::kInvalidArgument, "the result has no '{}' and '{}' backends to compare",
           old_label, new_label);
    GateFinding finding = (*old_backend)["status"] != "ok"
                              ? judge_build(*old_backend, max_regression)
                              : judge_build(*new_backend, max_regression);
    finding.point = point_label(point["point"]);
    report.passed &= finding.verdict == "unchanged" || finding.verdict == "improved";
    report.findings.push_back(std::move(finding));
  }
  return report;
}

}  // namespace inferlab::bench
