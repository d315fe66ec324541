// Turns the raw measurements of one point into the figures of
// docs/bench-schema.md: pooled percentiles, the headline (median of round
// medians) with its bootstrap interval, the trimmed mean, throughput, the
// paired ratio to the reference backend and its verdict, and noise warnings.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::bench {

// Adds the statistics to `backend` (a raw_json() with "rounds"); `batch` is
// the samples per inference.
void add_latency_statistics(nlohmann::json& backend, int64_t batch, uint64_t seed);

// Adds "ratio_to_reference" to `backend` from both sides' round medians,
// paired by round index.
void add_ratio_to_reference(nlohmann::json& backend, const nlohmann::json& reference,
                            uint64_t seed);

}  // namespace inferlab::bench
