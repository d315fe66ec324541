// `inferlab bench --csv FILE`: one row per (point, backend) of a bench result
// (docs/bench-schema.md), RFC 4180 quoting, CRLF line ends. Columns are
// documented in docs/reports.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::report {

// Throws Error(kInvalidArgument) for a document that is not inferlab-bench v1.
std::string csv_report(const nlohmann::json& result);

// One field quoted when it holds a comma, quote, CR or LF (quotes doubled).
std::string csv_field(const std::string& text);

}  // namespace inferlab::report
