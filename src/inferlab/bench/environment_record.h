// The environment record every bench result carries, so a reader can tell
// what machine, software and command produced it and rerun it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace inferlab::bench {

// CPU model and flags (/proc/cpuinfo), logical cores and cores usable
// (sched_getaffinity), memory (/proc/meminfo), kernel (uname), compiler
// (__VERSION__), InferLab version and git commit (fixed at build time),
// hostname-free (results are shared).
nlohmann::json machine_record();

}  // namespace inferlab::bench
