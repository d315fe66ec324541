// A model version's counters in Triton's statistics schema (extension
// "statistics"): per kind of time, how many requests and how many
// nanoseconds in all.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace inferlab::serve {

struct StatDuration {
  uint64_t count = 0;
  uint64_t ns = 0;
  void add(int64_t duration_ns) {
    ++count;
    ns += static_cast<uint64_t>(duration_ns < 0 ? 0 : duration_ns);
  }
};

struct InferenceStatistics {
  // success and fail: from entering the queue to the answer; queue and
  // compute_*: of the successful requests.
  StatDuration success, fail, queue, compute_input, compute_infer, compute_output;
  uint64_t inference_count = 0;    // samples inferred (the batch dimension summed)
  uint64_t execution_count = 0;    // engine runs
  uint64_t last_inference_ms = 0;  // ms since the epoch of the last completed request
};

// Triton's "inference_stats" object, and its top-level counters beside.
nlohmann::json inference_stats_json(const InferenceStatistics& statistics);

}  // namespace inferlab::serve
