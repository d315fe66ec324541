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
  double change = 0;    // new / baseline - 1 (positive: slower)
  std::string verdict;  // "regressed", "improved", "unchanged"
};

struct GateReport {
  std::vector<GateFinding> findings;
  bool passed = true;
};

// Throws Error(kInvalidArgument) naming the difference when the two results
// are not comparable (schema, model hash, reference, backends, settings, points).
GateReport compare_results(const nlohmann::json& baseline, const nlohmann::json& candidate,
                           double max_regression);

}  // namespace inferlab::bench
