// `inferlab bench --html FILE`: one self-contained page — summary tables and
// charts drawn by the pinned charting library (Chart.js, inlined) — that
// needs no network to view. A Content-Security-Policy forbids every fetch.
// The page records into <body> data attributes how many charts it drew
// (data-charts-rendered, of data-charts-expected) and how many script errors
// happened (data-script-errors), so a headless browser can check it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::report {

// Throws Error(kInvalidArgument) for a document that is not inferlab-bench
// v1 or an empty `chart_library_js`.
std::string html_report(const nlohmann::json& result, const std::string& chart_library_js);

// The pinned library file under the install cache:
// <cache_dir>/npm/node_modules/chart.js/dist/chart.umd.js. Throws Error(kIo)
// naming the path and tools/install.sh when it is missing.
std::string find_chart_library(const std::string& cache_dir);
// find_chart_library, then its contents.
std::string read_chart_library(const std::string& cache_dir);

// & < > " ' as character references.
std::string html_escape(const std::string& text);
// JSON text safe inside <script type="application/json">: '<', '>' and '&'
// as \u escapes, invalid UTF-8 replaced.
std::string script_safe_json(const nlohmann::json& value);

}  // namespace inferlab::report
