// `inferlab bench --markdown FILE`: a readable report of a bench result
// (docs/bench-schema.md) — title, command, environment, one table per point
// with ratios to the reference and accuracy beside speed, noise warnings.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::report {

// Throws Error(kInvalidArgument) for a document that is not inferlab-bench v1.
std::string markdown_report(const nlohmann::json& result);

// Text made inert for Markdown: punctuation that Markdown or inline HTML
// would act on is backslash-escaped; line breaks become spaces.
std::string markdown_escape(const std::string& text);

}  // namespace inferlab::report
