// The regression gate: compares a new bench result with a stored baseline
// through each backend's ratio to a reference backend measured in the same
// run (e.g. native / onnxruntime), which cancels the machine's speed of the
// day. A change is a regression only when it is beyond the threshold AND the
// two ratios' bootstrap intervals do not overlap, so noise does not flap it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace inferlab::bench {

struct GateFinding {
  std::string point;  // "threads 2, batch 1"
  std::string backend;
  double baseline_ratio = 0;
  double new_ratio = 0;
  double new_low = 0, new_high = 0;  // the new ratio's 95% interval
  double change = 0;                 // new / baseline - 1 (positive: slower)
  std::string verdict;               // "regressed", "improved", "unchanged"
};

struct GateReport {
  std::vector<GateFinding> findings;
  bool passed = true;
};

// Throws Error(kInvalidArgument) naming the difference when the two results
// are not comparable (schema, model hash, reference, backends, settings, points).
GateReport compare_results(const nlohmann::json& baseline, const nlohmann::json& candidate,
                           double max_regression);

// `gate --interleave`: one bench result in which `new_label` was measured
// against `old_label` (the reference) in interleaved rounds. A point regresses
// when the new/old latency ratio is beyond 1 + max_regression and its
// interval lies wholly above 1; a build that failed to run fails the gate.
GateReport compare_builds(const nlohmann::json& result, const std::string& old_label,
                          const std::string& new_label, double max_regression);

}  // namespace inferlab::bench
