// The figures of one load run, with the bench's statistics
// (bench/statistics.h): as JSON (every figure, for --json) and as the table
// `inferlab load` prints.
#pragma once

#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "inferlab/loadgen/load_loop.h"

namespace inferlab::loadgen {

// {"requests", "successes", "errors", "error_details", "window_s",
//  "throughput": {"requests_per_s", "successes_per_s", "samples_per_s",
//  "window_replies", "window_successes", "samples_per_request"} (over the
//  replies inside the window: LoadResult::window_s),
//  "latency_ms": {count, p50, p90, p95, p99, p999 (null under 1,000
//  samples), mean, stddev, min, max} (successful requests; null when none),
//  "send_lag_ms" (open loop), "client_cpu": {"seconds", "percent_of_core",
//  "us_per_request"}, "connections_opened", "senders"}.
// `samples_per_request`: the first input's first dim (the batch).
nlohmann::json result_json(const LoadResult& result, int64_t samples_per_request);

// The human-readable table of `report`: {"target", "model", "settings",
// "body", "result"} as the CLI assembles it.
void print_report(std::FILE* out, const nlohmann::json& report);

}  // namespace inferlab::loadgen
