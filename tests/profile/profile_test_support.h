// Hand-made profiled runs for the profiler's tests.
#pragma once

#include <string>

#include "inferlab/profile/profile.h"

namespace inferlab::profile {

inline backends::NodeEvent event(const std::string& name, const std::string& op_type,
                                 double start_ms, double duration_ms, int64_t thread = 0) {
  return {name, op_type, static_cast<int64_t>(start_ms * 1e6),
          static_cast<int64_t>(duration_ms * 1e6), thread};
}

// Two runs: 10 ms with conv 4 ms + relu 1 ms, 12 ms with conv 5 ms + relu 1 ms.
inline std::vector<RunRecord> two_runs() {
  return {{10'000'000, {event("conv", "FusedConv", 0.5, 4), event("relu", "Relu", 5, 1)}},
          {12'000'000, {event("conv", "FusedConv", 0.5, 5), event("relu", "Relu", 6, 1, 7)}}};
}

inline NodeFactsMap two_run_facts() {
  NodeFactsMap facts;
  facts["conv"] = {NodeCost{true, 2e9, 1e6}, {"conv_onnx", "relu_onnx"}};
  facts["relu"] = {NodeCost{true, 0, 4e6}, {}};
  return facts;
}

}  // namespace inferlab::profile
