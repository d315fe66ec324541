// The terminal table of `inferlab bench`: one block per point, one row per
// backend, ratios to the reference with their intervals, accuracy beside speed.
#pragma once

#include <nlohmann/json.hpp>

namespace inferlab::cli {

void print_bench_table(const nlohmann::json& result, bool color);
// True when every backend that ran passed its accuracy comparison.
bool bench_accuracy_passed(const nlohmann::json& result);

}  // namespace inferlab::cli
