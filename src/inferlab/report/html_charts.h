// The charts of the HTML report, as Chart.js configurations built here from a
// bench result, so the page's own script stays a small generic loop: latency
// distribution per point, latency and throughput against each swept
// variable, and accuracy error against headline latency.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::report {

// [{"canvas": "chart-0", "title": "...", "note": "...", "config": {...}}, ...]:
// one entry per chart that has data to draw.
nlohmann::json chart_specs(const nlohmann::json& result);

}  // namespace inferlab::report
